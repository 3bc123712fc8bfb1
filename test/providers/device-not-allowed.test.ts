/**
 * A device grant the provider offers, but not to the configured application, as Keycloak's is until
 * "OAuth 2.0 Device Authorization Grant" is switched on for the client (and Okta's until the app's
 * grant types include it): POST /oauth/authorize_device answers 400 `unauthorized_client` ("Client
 * is not allowed to initiate OAuth 2.0 Device Authorization Grant. The flow is disabled for the
 * client.") for each configured application; an unknown client_id is still `invalid_client`. With
 * the grant declared available (features.device_authorization_grant), that is one missing premise:
 * `device.authorization-response` fails `DEV-AVAILABILITY` (the grant is not offered; RFC 6749
 * §5.2's unauthorized_client says so of the client, not of its parameters or of a response), once;
 * every other device check that needs the grant is skipped naming it. Before, 11 device checks
 * failed, each on `DEV-AVAILABILITY`, `DEV-AUTHORIZE-PARAMS` and `DEV-AUTHORIZE-RESPONSE`.
 * Auth0 refuses a grant the application may not use with 403 `access_denied` ("Unauthorized"): the
 * same refusal in other words (RFC 6749 §4.1.2.1: the server denied the request), the same one
 * premise (before, `device.authorization-response` failed the three DEV rules for it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import type { Loopback } from '../suites/loopback.js';
import { answeringPosts, checksWith, explain, rulesWith, runAgainst } from './provider.js';

let front: Loopback & { sim: Sim };
/** Device authorizations the provider refused to a configured application. */
let refused = 0;

/** How the provider refuses: Keycloak's and Okta's way, or Auth0's. */
const REFUSALS = {
  unauthorized_client: {
    status: 400,
    error_description:
      'Client is not allowed to initiate OAuth 2.0 Device Authorization Grant. The flow is disabled for the client.',
  },
  access_denied: { status: 403, error_description: 'Unauthorized' },
};
let refusal: keyof typeof REFUSALS = 'unauthorized_client';

beforeAll(async () => {
  front = await answeringPosts(['/oauth/authorize_device'], async ({ form }, simulator, sim) => {
    const id = form.get('client_id');
    if (![...sim.store.applications.values()].some((a) => a.uid === id)) return simulator();
    refused++;
    const { status, error_description } = REFUSALS[refusal];
    return new Response(JSON.stringify({ error: refusal, error_description }), {
      status,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    });
  });
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe('the device grant, declared available, refused to the configured application', () => {
  it.each(Object.keys(REFUSALS) as Array<keyof typeof REFUSALS>)(
    '%s: fails DEV-AVAILABILITY once; every other device check that needs it is skipped, naming it',
    async (error) => {
      refusal = error;
      refused = 0;
      const { code, report, stderr } = await runAgainst(front, { runs: '1', suite: 'device' });
      const why = explain(report, stderr);
      expect(refused, why).toBeGreaterThan(0);
      expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['DEV-AVAILABILITY']);
      expect(checksWith(report, 'failed', 'warned', 'errored'), why).toEqual(['device.authorization-response']);
      const skipped = report.checks.filter((c) => c.status === 'skipped' && c.id !== 'device.unavailable');
      expect(skipped.length, why).toBeGreaterThan(8);
      for (const check of skipped)
        expect(check.message, why).toMatch(
          new RegExp(
            `^the device authorization grant, declared available \\(features\\.device_authorization_grant\\), was refused to the configured application at start-up \\(${REFUSALS[error].status} ${error}\\) \\(device\\.authorization-response reports it on DEV-AVAILABILITY\\)$`,
          ),
        );
      expect(code, why).toBe(1);
    },
    120_000,
  );
});
