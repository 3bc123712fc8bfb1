/**
 * Release, offering and flag gates of OAuth behaviour, read from spec data: a change happens at
 * the release window of the rule that states it (rules.yaml), so release numbers live there only.
 */
import { machine, profiles } from '../../spec/index.js';
import { ruleInForce } from '../release.js';
import type { Sim } from '../types.js';

/** The password grant exists until the release whose rule removes it. */
export function passwordGrantAvailable(sim: Sim): boolean {
  return !ruleInForce(sim, 'VER-PASSWORD-GRANT-REMOVED');
}

/** The device authorization grant: its machine's release window and flag. */
export function deviceGrantAvailable(sim: Sim): boolean {
  const m = machine('device-authorization');
  return sim.inForce(m) && (!m.flag || sim.flag(m.flag));
}

/** Must a password grant carry client credentials (admin setting, or the hosted offering since its date)? */
export function passwordGrantNeedsClient(sim: Sim): boolean {
  if (
    sim.options.settings.passwordGrantClientCredentialsOnly &&
    !sim.fault('password-client-credentials-setting-ignored')
  )
    return true;
  if (sim.options.offering !== 'hosted') return sim.fault('password-requires-client');
  const since = profiles().offerings?.hosted?.clientAuthForPasswordGrantSince;
  return since === undefined || sim.clock.now() >= Date.parse(since);
}
