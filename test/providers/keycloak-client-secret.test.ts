/**
 * A wrong client secret refused as Keycloak refused it (its client-secret authenticator, up to
 * release 22): 401 with `{"error":"unauthorized_client","error_description":"Invalid client secret"}`,
 * at the token and the revocation endpoints alike; an unknown client_id or a missing secret is
 * still `invalid_client`. RFC 6749 §5.2 names invalid_client for a failed client authentication
 * (unauthorized_client is a client that authenticated and may not use the grant): one sentence,
 * broken at each endpoint, so `AUTH-INVALID-CLIENT` and `REV-CLIENT-AUTH` warn (shoulds: the
 * source shows no code, L262) and nothing else is blamed. The code is one of the standard ones
 * (`ERR-TOKEN-STANDARD-CODES` holds), and the 401 with its challenge is the status RFC 6749 §5.2
 * gives a failed client authentication, so no status rule may be blamed for the code it carries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import type { Loopback } from '../suites/loopback.js';
import { answeringPosts, checksWith, explain, rulesWith, runChecks } from './provider.js';

/** Checks that send a wrong secret, and one that sends the right secret in HTTP Basic. */
const CHECKS = ['grants.client-authentication-failures', 'tokens.revoke-client-auth', 'grants.password-response'];

let front: Loopback & { sim: Sim };
/** Refusals the provider answered with Keycloak's code. */
let keycloak = 0;

/** The client id and secret a request presents, in its body or in HTTP Basic. */
function credentials(form: URLSearchParams, authorization: string | undefined): [string | null, string | null] {
  const basic = /^basic\s+(\S+)$/i.exec(authorization ?? '');
  if (!basic) return [form.get('client_id'), form.get('client_secret')];
  const [id, ...secret] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
  return [decodeURIComponent(id), decodeURIComponent(secret.join(':'))];
}

beforeAll(async () => {
  front = await answeringPosts(['/oauth/token', '/oauth/revoke'], async ({ form, authorization }, simulator, sim) => {
    const answer = await simulator();
    const [id, secret] = credentials(form, authorization);
    const known = [...sim.store.applications.values()].some((a) => a.uid === id);
    if (answer.status !== 401 || !known || !secret) return answer;
    keycloak++;
    return new Response(
      JSON.stringify({ error: 'unauthorized_client', error_description: 'Invalid client secret' }),
      answer,
    );
  });
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe("a wrong client secret refused with Keycloak's 401 unauthorized_client", () => {
  it('warns AUTH-INVALID-CLIENT and REV-CLIENT-AUTH alone, exit 0', async () => {
    keycloak = 0;
    const { code, report, stderr } = await runChecks(front, CHECKS, { runs: '3' });
    const why = explain(report, stderr);
    expect(keycloak, why).toBeGreaterThan(2);
    expect(rulesWith(report, 'warned'), why).toEqual(['AUTH-INVALID-CLIENT', 'REV-CLIENT-AUTH']);
    expect(rulesWith(report, 'failed', 'errored'), why).toEqual([]);
    expect(checksWith(report, 'failed', 'errored', 'skipped'), why).toEqual([]);
    expect(code, why).toBe(0);
  }, 120_000);
});
