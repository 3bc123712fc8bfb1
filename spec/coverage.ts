/**
 * Coverage views of the spec: each row and list item of the source, and each prose sentence the
 * map names, with the rules that carry it (and the rows and items with none), and, given the
 * suites' check list, the rules no check proves.
 */
import { rules, sourceMap, sourceText } from './index.js';
import { matchSourceMap } from './validate.js';
import type { SourceItem } from './source-text.js';
import type { Rule, SourceMapEntry } from './types.js';

/** What coverage needs of a check: its id and the rule ids it proves. */
export interface CheckRef {
  id: string;
  rules: string[];
}

export interface CoveredItem {
  section: string;
  kind: 'row' | 'bullet' | 'sentence';
  text: string;
  line: number;
  rules: string[];
}

export interface Coverage {
  /** Every table row and list item of the source, and every mapped prose sentence, in document order, with its rule ids. */
  items: CoveredItem[];
  /** Items without any rule (the source-map test keeps this empty). */
  unmapped: CoveredItem[];
  /** Rules no source row or item names (rules that come from RFCs, or context). */
  rulesWithoutSourceRow: Rule[];
  /** Every rule grouped by level (must, should, info) then origin (source, documented, RFC sections). */
  byLevel: LevelGroup[];
  /** Present when checks were given. */
  checks?: {
    /** Rules no check names, with the level so `must` gaps stand out. */
    rulesWithoutCheck: Rule[];
    /** Check ids naming a rule id that does not exist. */
    unknownRuleRefs: { check: string; rule: string }[];
    /** Rule id to the ids of the checks that prove it. */
    byRule: Record<string, string[]>;
  };
}

export interface LevelGroup {
  level: Rule['level'];
  origin: string;
  rules: string[];
}

const LEVELS: Rule['level'][] = ['must', 'should', 'info'];

/** Origins in a stable order: the source first, then documented behaviour, then RFC sections. */
function originRank(origin: string): string {
  return origin === 'source' ? '0' : origin === 'documented' ? '1' : `2${origin}`;
}

/** localeCompare(…, 'en', { numeric: true }) without building a collator per comparison. */
const numeric = new Intl.Collator('en', { numeric: true }).compare;

export function rulesByLevel(all: Rule[]): LevelGroup[] {
  const groups = new Map<string, LevelGroup>();
  for (const r of all) {
    const key = `${r.level}\u0000${r.origin}`;
    if (!groups.has(key)) groups.set(key, { level: r.level, origin: r.origin, rules: [] });
    groups.get(key)!.rules.push(r.id);
  }
  return [...groups.values()].sort(
    (a, b) => LEVELS.indexOf(a.level) - LEVELS.indexOf(b.level) || numeric(originRank(a.origin), originRank(b.origin)),
  );
}

/**
 * The source's items and the map entries each matches: fixed for a loaded spec (keyed by its map),
 * and every `run` asks for them in its report's catalogue (parsing the source and matching each
 * item against each entry took about 8 ms a time).
 */
const matched = new WeakMap<SourceMapEntry[], { sourceItems: SourceItem[]; byItem: number[][] }>();

function sourceMatches(entries: SourceMapEntry[]): { sourceItems: SourceItem[]; byItem: number[][] } {
  let found = matched.get(entries);
  if (!found) {
    const { items: listed, prose } = sourceText();
    const sourceItems = [...listed, ...prose];
    matched.set(entries, (found = { sourceItems, byItem: matchSourceMap(sourceItems, entries).byItem }));
  }
  return found;
}

export function coverage(checks?: CheckRef[]): Coverage {
  const entries = sourceMap();
  const { sourceItems, byItem } = sourceMatches(entries);
  const items: CoveredItem[] = sourceItems
    .map((item, i) => ({
      section: item.section,
      kind: item.kind,
      text: item.text,
      line: item.line,
      rules: [...new Set(byItem[i].flatMap((e) => entries[e].rules))],
    }))
    // Prose without an entry is context, not a gap.
    .filter((item) => item.kind !== 'sentence' || item.rules.length > 0)
    .sort((a, b) => a.line - b.line);
  const all = rules();
  const named = new Set(items.flatMap((i) => i.rules));
  const result: Coverage = {
    items,
    unmapped: items.filter((i) => i.rules.length === 0),
    rulesWithoutSourceRow: all.filter((r) => !named.has(r.id)),
    byLevel: rulesByLevel(all),
  };
  if (checks) {
    const known = new Set<string>(all.map((r) => r.id));
    const byRule: Record<string, string[]> = {};
    const unknownRuleRefs: { check: string; rule: string }[] = [];
    for (const check of checks) {
      for (const id of check.rules) {
        if (!known.has(id)) unknownRuleRefs.push({ check: check.id, rule: id });
        (byRule[id] ??= []).push(check.id);
      }
    }
    result.checks = { rulesWithoutCheck: all.filter((r) => !byRule[r.id]), unknownRuleRefs, byRule };
  }
  return result;
}
