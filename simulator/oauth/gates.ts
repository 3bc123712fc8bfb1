/**
 * Release, offering and flag gates of OAuth behaviour, read from spec data: the release in
 * profiles.yaml that names a rule is the release where that rule's change happens.
 */
import { machine, profiles } from '../../spec/index.js';
import type { Sim } from '../types.js';

function releaseNaming(ruleId: string): string {
  const releases = (profiles() as unknown as { releases?: Record<string, { rules?: string[] }> }).releases ?? {};
  for (const [release, info] of Object.entries(releases)) if (info.rules?.includes(ruleId)) return release;
  throw new Error(`spec/profiles.yaml names no release for ${ruleId}`);
}

/** The password grant exists until the release that removes it. */
export function passwordGrantAvailable(sim: Sim): boolean {
  return sim.inForce({ until: releaseNaming('VER-PASSWORD-GRANT-REMOVED') });
}

/** The device authorization grant: its machine's release window and flag. */
export function deviceGrantAvailable(sim: Sim): boolean {
  const m = machine('device-authorization');
  return sim.inForce(m) && (!m.flag || sim.flag(m.flag));
}

/** Must a password grant carry client credentials (admin setting, or the hosted offering since its date)? */
export function passwordGrantNeedsClient(sim: Sim): boolean {
  if (sim.options.settings.passwordGrantClientCredentialsOnly) return true;
  if (sim.options.offering !== 'hosted') return false;
  const offerings = (profiles() as unknown as { offerings?: Record<string, { clientAuthForPasswordGrantSince?: string }> }).offerings;
  const since = offerings?.hosted?.clientAuthForPasswordGrantSince;
  return since === undefined || sim.clock.now() >= Date.parse(since);
}
