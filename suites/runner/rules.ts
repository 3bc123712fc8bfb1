/**
 * The rule catalogue and which rules are in force, through spec/index.ts (the only reader of
 * rules.yaml). Read through the module namespace so this file keeps compiling while the spec's
 * accessors are being added; without them no rule is known and every rule counts as in force.
 */
import * as spec from '../../spec/index.js';
import type { Level, Offering } from '../../spec/index.js';

export interface RuleInfo {
  id: string;
  title: string;
  level: Level;
  source: string;
  since?: string;
  until?: string;
  offering?: Offering;
  flag?: string;
}

type Accessors = {
  rules?: () => RuleInfo[];
  rulesInForce?: (release: string, offering: Offering, flags: Record<string, boolean>) => Array<RuleInfo | string>;
};
const accessors = spec as unknown as Accessors;

export function ruleCatalogue(): RuleInfo[] {
  return typeof accessors.rules === 'function' ? accessors.rules() : [];
}

/** Ids of the rules in force; null when the spec cannot tell (then everything counts as in force). */
export function rulesInForce(release: string, offering: Offering, flags: Record<string, boolean>): Set<string> | null {
  if (typeof accessors.rulesInForce === 'function') {
    return new Set(accessors.rulesInForce(release, offering, flags).map((r) => (typeof r === 'string' ? r : r.id)));
  }
  const all = ruleCatalogue();
  return all.length ? inForceOf(all, release, offering, flags) : null;
}

/** The spec's reading of a rule's scope: since <= release < until, offering and flag when named. */
export function inForceOf(catalogue: RuleInfo[], release: string, offering: Offering, flags: Record<string, boolean>): Set<string> {
  return new Set(
    catalogue
      .filter((r) => spec.inRelease(r, release) && (!r.offering || r.offering === offering) && (!r.flag || flags[r.flag] !== false))
      .map((r) => r.id),
  );
}

/** Feature flags of a run: the profile's defaults (in their release window), then what the config says. */
export function flagsFor(release: string, features: Record<string, boolean> = {}): Record<string, boolean> {
  const flags: Record<string, boolean> = {};
  for (const [name, info] of Object.entries(spec.profiles().flags ?? {})) flags[name] = info.default && spec.inRelease(info, release);
  return { ...flags, ...features };
}
