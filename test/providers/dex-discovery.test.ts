/**
 * A discovery document as Dex and Authentik serve theirs: members no spec of ours names
 * (`claims_supported`, `request_parameter_supported`, a vendor's own list), and no
 * `code_challenge_methods_supported` although PKCE with S256 works (OIDC Discovery §3 and RFC 8414
 * §2 make the member OPTIONAL). Unknown members are ignored and the missing list is no premise:
 * the PKCE checks and the discovery check pass. Held, never seen failing (the provider counts the
 * documents it served, so the test cannot pass on the plain simulator's document).
 */
import { describe, expect, it } from 'vitest';
import { simulatorDocument } from '../suites/loopback.js';
import { expectAllPassed, runChecks, startProvider } from './provider.js';

describe('a discovery document with members of its own and without code_challenge_methods_supported', () => {
  it('passes discovery and every PKCE check', async () => {
    let served = 0;
    const provider = await startProvider((method, url, sim) =>
      method === 'GET' && url.pathname === '/.well-known/openid-configuration'
        ? async () => {
            const doc = await simulatorDocument(sim, url);
            delete doc.code_challenge_methods_supported;
            served++;
            return {
              status: 200,
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({
                ...doc,
                claims_supported: ['iss', 'sub', 'aud', 'iat', 'exp', 'email', 'email_verified', 'groups', 'name'],
                request_parameter_supported: false,
                'x-dex-connectors': [{ id: 'ldap', type: 'ldap' }],
              }),
            };
          }
        : undefined,
    );
    try {
      const run = await runChecks(provider, [
        'oidc.discovery',
        'grants.pkce-valid-verifier',
        'grants.pkce-method-unsupported',
        'grants.pkce-method-plain',
      ]);
      const why = expectAllPassed(run);
      expect(served, why).toBeGreaterThan(0);
    } finally {
      await provider.close();
    }
  }, 120_000);
});
