/**
 * The rule catalogue and which rules are in force, from spec/index.ts (the only reader of
 * rules.yaml). A test may hand in its own catalogue; it is read with the spec's own predicate.
 */
import {
  flagsAt,
  inRelease,
  rules,
  rulesInForce as specRulesInForce,
  type Offering,
  type Rule,
} from '../../spec/index.js';
import { SelectionError } from '../errors.js';

/** What the runner needs of a rule. Tests build these by hand, with ids of their own: hence `string`. */
export type RuleInfo = Pick<
  Rule,
  'title' | 'level' | 'source' | 'origin' | 'since' | 'until' | 'offering' | 'flag' | 'leaf'
> & {
  id: string;
};

export function ruleCatalogue(): RuleInfo[] {
  return rules();
}

/** Ids of the rules of spec/rules.yaml in force at a release, offering and flags. */
export function rulesInForce(release: string, offering: Offering, flags: Record<string, boolean>): Set<string> {
  return new Set(specRulesInForce(release, offering, flags).map((r) => r.id));
}

/** The same reading for a catalogue a test hands in. */
export function inForceOf(
  catalogue: RuleInfo[],
  release: string,
  offering: Offering,
  flags: Record<string, boolean>,
): Set<string> {
  const effective = flagsAt(release, flags);
  return new Set(
    catalogue
      .filter(
        (r) =>
          inRelease(r, release) && (!r.offering || r.offering === offering) && (!r.flag || effective[r.flag] === true),
      )
      .map((r) => r.id),
  );
}

/**
 * Why a rule is not in force on a run, in the words a reader acts on: the release window first
 * (it explains a flag that does not exist yet), then the feature flag, then the offering.
 */
export function whyNotInForce(
  rule: RuleInfo,
  release: string,
  offering: Offering,
  flags: Record<string, boolean>,
): string | null {
  if (!inRelease(rule, release)) {
    return rule.since && !inRelease({ since: rule.since }, release)
      ? `${rule.id} applies from release ${rule.since} (this run: ${release})`
      : `${rule.id} applies until release ${rule.until} (this run: ${release})`;
  }
  if (rule.flag && flagsAt(release, flags)[rule.flag] !== true)
    return `${rule.id} needs feature flag ${rule.flag}, which is off`;
  if (rule.offering && rule.offering !== offering)
    return `${rule.id} applies to the ${rule.offering} offering only (this run: ${offering})`;
  return null;
}

/** Feature flags of a run: the profile's defaults in their release window, then the config's. */
export const flagsFor = flagsAt;

/**
 * Does a rule's origin fall under a filter of `--origin`? Case-insensitive; `rfc` is every RFC; a
 * filter names an origin or a prefix of it that ends at a word or section boundary, so
 * `RFC 6749 §4.1` takes `RFC 6749 §4.1.2.1` but not `RFC 6749 §4.10`, and `RFC 67` takes nothing.
 */
export function originMatches(origin: string, filter: string): boolean {
  const o = origin.trim().toLowerCase();
  const f = filter.trim().toLowerCase();
  if (!f) return false;
  if (f === 'rfc') return /^rfc\s/.test(o);
  if (!o.startsWith(f)) return false;
  const rest = o.slice(f.length);
  return rest === '' || /[^0-9a-z]$/.test(f) || /^[^0-9a-z]/.test(rest);
}

/**
 * The ids of the rules whose origin falls under one of the filters (`--origin source,RFC 7636`).
 * A filter no rule falls under is a usage error that lists the origins there are.
 */
export function rulesOfOrigins(catalogue: readonly RuleInfo[], filters: readonly string[]): string[] {
  const empty = filters.filter((f) => !catalogue.some((r) => originMatches(r.origin, f)));
  if (empty.length) {
    // Every RFC is one kind, as `originMatches` reads `rfc`; other origins without their section.
    const kinds = [
      ...new Set(catalogue.map((r) => (originMatches(r.origin, 'rfc') ? 'rfc' : r.origin.split('§')[0].trimEnd()))),
    ];
    throw new SelectionError(
      `no rule has origin ${empty.map((f) => `"${f}"`).join(', ')} (origins: ${kinds.sort().join(', ')}, or an RFC and section such as "RFC 6749 §5.2")`,
    );
  }
  return catalogue.filter((r) => filters.some((f) => originMatches(r.origin, f))).map((r) => r.id);
}
