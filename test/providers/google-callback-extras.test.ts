/**
 * The application's callback with parameters of the provider's own beside the code, as Google's is
 * (`?code=…&state=…&scope=openid%20https://www.googleapis.com/auth/userinfo.email&authuser=0&hd=…&prompt=consent`):
 * RFC 6749 §4.1.2 names `code` and `state` only and has the client ignore what it does not know
 * (§3.1), and the source's redirect (L130) is about `code` and `state`, so the extras are allowed
 * variation. Neither page driver nor any check that reads the callback may take them for a refusal,
 * a second answer or a scope granted: every check passes. (`iss` and `session_state`, Keycloak's
 * and Ory's, are held by the corpus: test/independent/oauth-variants.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { simulatorRewriting, type Loopback } from '../suites/loopback.js';
import { expectAllPassed, PAGE_DRIVERS, runWithDriver } from './provider.js';

/** Checks that read the callback: its code, its state, its refusal, and the code's use after. */
const CHECKS = [
  'grants.state-unchanged',
  'grants.consent-denied',
  'grants.code-single-use',
  'grants.pkce-valid-verifier',
  'grants.scope-within-application',
  'oidc.id-token',
];

/** What Google adds to a callback that carries a code. */
const GOOGLE = {
  scope: 'openid https://www.googleapis.com/auth/userinfo.email',
  authuser: '0',
  hd: 'example.com',
  prompt: 'consent',
};

let front: Loopback & { sim: Sim };
/** Callbacks the provider added its parameters to. */
let added = 0;

beforeAll(async () => {
  front = await simulatorRewriting(
    (_method, url) => url.pathname === '/oauth/authorize',
    (answer, url) => {
      const location = answer.headers.get('location');
      if (!location) return answer;
      const back = new URL(location, url);
      if (!back.searchParams.has('code')) return answer;
      for (const [name, value] of Object.entries(GOOGLE)) back.searchParams.set(name, value);
      added++;
      const headers = new Headers(answer.headers);
      headers.set('location', back.toString());
      return new Response(answer.body, { status: answer.status, headers });
    },
  );
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe("a callback carrying Google's scope, authuser, hd and prompt beside the code", () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: every check passes',
    async (kind) => {
      added = 0;
      const why = expectAllPassed(await runWithDriver(front, kind, CHECKS));
      expect(added, why).toBeGreaterThan(4);
    },
    120_000,
  );
});
