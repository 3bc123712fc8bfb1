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

/** What the runner needs of a rule. Tests build these by hand, with ids of their own: hence `string`. */
export type RuleInfo = Pick<Rule, 'title' | 'level' | 'source' | 'origin' | 'since' | 'until' | 'offering' | 'flag'> & {
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
