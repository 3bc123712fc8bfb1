/**
 * Authorization codes in Google's format, `4/0Ab…`: a slash in them, so the callback carries
 * `code=4%2F0Ab…` and the token request must send the code decoded from the callback and then
 * form-encoded again (`code=4%2F0Ab…`, RFC 6749 §4.1.3, Appendix B). A client that sent the
 * callback's text as it is (`4%252F…`) or the slash unencoded where another parser splits on it
 * would present a code the provider never issued. Every check that redeems a code passes, with
 * both page drivers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import type { Loopback } from '../suites/loopback.js';
import { answeringPosts, expectAllPassed, PAGE_DRIVERS, runWithDriver } from './provider.js';

/** Checks that redeem a code once, twice, with PKCE, with another redirect_uri, and for an id_token. */
const CHECKS = [
  'grants.code-single-use',
  'grants.pkce-valid-verifier',
  'grants.redirect-uri-mismatch',
  'oidc.id-token',
];
const PREFIX = '4/0A';

let front: Loopback & { sim: Sim };
/** Callbacks whose code the provider wrote in Google's format, and token requests that presented one. */
const seen = { issued: 0, presented: 0 };

beforeAll(async () => {
  front = await answeringPosts(['/oauth/authorize', '/oauth/token'], async ({ url, form }, simulator) => {
    if (url.pathname === '/oauth/token') {
      const code = form.get('code');
      if (!code?.startsWith(PREFIX)) return simulator();
      seen.presented++;
      form.set('code', code.slice(PREFIX.length));
      return simulator(form);
    }
    const answer = await simulator();
    const location = answer.headers.get('location');
    const back = location ? new URL(location, url) : undefined;
    const code = back?.searchParams.get('code');
    if (!back || !code) return answer;
    back.searchParams.set('code', `${PREFIX}${code}`);
    seen.issued++;
    const headers = new Headers(answer.headers);
    headers.set('location', back.toString());
    return new Response(answer.body, { status: answer.status, headers });
  });
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe("authorization codes in Google's format, a slash in them", () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: every check that redeems a code passes',
    async (kind) => {
      seen.issued = seen.presented = 0;
      const why = expectAllPassed(await runWithDriver(front, kind, CHECKS));
      expect(seen.issued, why).toBeGreaterThanOrEqual(4);
      expect(seen.presented, why).toBeGreaterThanOrEqual(4);
    },
    120_000,
  );
});
