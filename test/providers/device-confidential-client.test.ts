/**
 * The device flow played by a confidential application (a config naming no public one), at a
 * provider that authenticates it at the device authorization endpoint as RFC 8628 §3.1 says ("the
 * client authentication requirements of Section 3.2.1 of [RFC6749] apply to requests on this
 * endpoint"; Keycloak, Ory Hydra and Spring Authorization Server do): a request for the
 * confidential application without its secret, or with a wrong one, is refused 401
 * `invalid_client`. The harness must authenticate that application there as it does at the token
 * endpoint (its secret in the body, L241): every device check that judges a target offering the grant passes. Before, it sent the
 * client_id alone; the refusal was read as the device grant refused to the configured application.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from '../../simulator/oauth/accounts.js';
import { targetConfig } from '../../simulator/control/config.js';
import type { Sim } from '../../simulator/types.js';
import type { Loopback } from '../suites/loopback.js';
import { answeringPosts, checksWith, explain, runAgainst } from './provider.js';

let front: Loopback & { sim: Sim };
/** Device authorizations of the confidential application, and those that carried its secret. */
const asked = { confidential: 0, authenticated: 0 };

beforeAll(async () => {
  front = await answeringPosts(['/oauth/authorize_device'], async ({ form }, simulator, sim) => {
    const app = seeded(sim).applications.confidential;
    if (form.get('client_id') !== app.uid) return simulator();
    asked.confidential++;
    if (form.get('client_secret') !== app.secret)
      return new Response(
        JSON.stringify({ error: 'invalid_client', error_description: 'Invalid client or Invalid client credentials' }),
        { status: 401, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } },
      );
    asked.authenticated++;
    return simulator();
  });
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe('the device flow of a confidential application, authenticated at the device authorization endpoint', () => {
  it('sends its secret there: every device check that judges a target offering the grant passes', async () => {
    const { public: _none, ...applications } = targetConfig(front.sim, front.url).applications!;
    const { code, report, stderr } = await runAgainst(front, { runs: '1', suite: 'device' }, undefined, {
      applications,
    });
    const why = explain(report, stderr);
    expect(checksWith(report, 'failed', 'warned', 'errored'), why).toEqual([]);
    // device.unavailable judges a target without the grant only.
    expect(checksWith(report, 'skipped'), why).toEqual(['device.unavailable']);
    expect(code, why).toBe(0);
    expect(asked.authenticated, why).toBeGreaterThan(5);
    expect(asked.authenticated, why).toBe(asked.confidential);
  }, 180_000);
});
