/**
 * The rule catalogue: for each rule what a reader needs to judge a verdict — its statement, level
 * and origin, the sentences of the source it comes from (line and text), when and where it is in
 * force, the checks that prove it and the simulator faults that break it. Derived from spec/ (and
 * the suites' check list), never written by hand; reporters/catalogue.ts renders it.
 */
import { coverage, type CheckRef } from './coverage.js';
import { faults, rules } from './index.js';
import { isExternalSource } from './source-text.js';
import type { Rule } from './types.js';

export interface SourceSentence {
  line: number;
  section: string;
  text: string;
}

export interface CatalogueEntry extends Rule {
  /** The source's table rows and list items that carry the rule (spec/source-map.yaml). */
  sentences: SourceSentence[];
  /** Ids of the checks that prove it. */
  checks: string[];
  /** Names of the simulator faults (spec/faults.yaml) that break it. */
  faults: string[];
}

export function ruleCatalogueEntries(checks: CheckRef[]): CatalogueEntry[] {
  const cov = coverage(checks);
  const sentences = new Map<string, SourceSentence[]>();
  for (const item of cov.items)
    for (const id of item.rules) {
      const list = sentences.get(id) ?? [];
      list.push({ line: item.line, section: item.section, text: item.text });
      sentences.set(id, list);
    }
  const breaking = new Map<string, string[]>();
  for (const fault of faults())
    for (const id of fault.rules) breaking.set(id, [...(breaking.get(id) ?? []), fault.name]);
  return rules().map((rule) => ({
    ...rule,
    sentences: sentences.get(rule.id) ?? [],
    checks: cov.checks?.byRule[rule.id] ?? [],
    faults: breaking.get(rule.id) ?? [],
  }));
}

/**
 * What a report quotes for a rule: the source's own sentence, or, where the source is silent (the
 * rule's source is an RFC "(not shown)" or another text outside it), the governing text and the
 * rule's statement. Such a rule's mapped rows (a parameter table row, "| success |") only place it
 * in the source; quoted, they read as the sentence the target broke (review 21).
 */
export function ruleQuote(entry: CatalogueEntry): { where: string; text: string } {
  const sentence = isExternalSource(entry.source) ? undefined : entry.sentences[0];
  return sentence
    ? { where: `source L${sentence.line}`, text: sentence.text }
    : { where: entry.origin, text: entry.statement };
}
