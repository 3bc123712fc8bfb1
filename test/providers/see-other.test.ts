/**
 * Every redirect of the authorization endpoint and the sign-in answered 303 See Other, as Dex's
 * (its approval and error redirects: Go's http.StatusSeeOther) and oidc-provider's (its interaction
 * hops and the resume) are: to the sign-in, back to the authorization, and to the application's
 * redirect_uri with the code or the error. RFC 6749 §1.7 leaves how the user-agent is redirected to
 * the server ("any other method available via the user-agent"; RFC 9110 §15.4.4: a 303's Location
 * is fetched with GET, as a 302's is by every browser): both page drivers, and the checks that read
 * the authorization endpoint's answer themselves (the sign-in it requires, its refusals of a
 * malformed request), judge the redirect as they judge a 302; every check passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { simulatorRewriting, type Loopback } from '../suites/loopback.js';
import { expectAllPassed, PAGE_DRIVERS, runWithDriver } from './provider.js';

/** Pages that play the consent, and checks that ask the authorization endpoint themselves. */
const CHECKS = [
  'grants.state-unchanged',
  'grants.consent-denied',
  'grants.sign-in-required',
  'grants.response-type-code-only',
  'grants.authorize-missing-parameters',
  'grants.scope-unknown',
];
const SEE_OTHER = new Set(['/oauth/authorize', '/users/sign_in']);

let front: Loopback & { sim: Sim };
/** Redirects the provider answered 303. */
let seeOther = 0;

beforeAll(async () => {
  front = await simulatorRewriting(
    (_method, url) => SEE_OTHER.has(url.pathname),
    (answer) => {
      if (answer.status !== 302) return answer;
      seeOther++;
      return new Response(answer.body, { status: 303, headers: answer.headers });
    },
  );
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe('the authorization and sign-in redirects answered 303 See Other', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: every check passes',
    async (kind) => {
      seeOther = 0;
      const why = expectAllPassed(await runWithDriver(front, kind, CHECKS));
      expect(seeOther, why).toBeGreaterThan(5);
    },
    120_000,
  );
});
