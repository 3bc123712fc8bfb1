/**
 * RFC 9207: the issuer in the authorization response. Optional for a provider, and the source
 * does not show it; one that sends it (or advertises it) must send its own issuer, else a client
 * that checks it, as RFC 9207 §2.4 asks, rejects every response. Judged here alone, on one
 * approval and one denial; the other checks read past iss (RFC 6749 §4.1.2: unknown parameters).
 */
import type { Check, CheckContext } from '../types.js';
import { authorizeRedirect, getDiscovery, jsonObject } from '../shared/oauth.js';
import { expectedIssuer } from '../oidc/support.js';

export const issuerParamChecks: Check[] = [
  {
    id: 'grants.authorize-iss',
    suite: 'grants',
    title: 'An authorization response that carries iss (RFC 9207) names the issuer, approved or denied',
    rules: ['GRANT-AUTHORIZE-ISS'],
    async run(t: CheckContext) {
      const approved = await authorizeRedirect(t, 'confidential', { state: 'iss-approved' });
      // prompt=consent: a provider that remembers the approval asks again (OIDC Core §3.1.2.1).
      const denied = await authorizeRedirect(t, 'confidential', { state: 'iss-denied', prompt: 'consent' }, 'deny');
      const responses = { 'approved authorization': approved, 'denied authorization': denied };
      const advertised =
        jsonObject(await getDiscovery(t.http, t.config.issuer))?.authorization_response_iss_parameter_supported ===
        true;
      if (!advertised && !Object.values(responses).some((r) => r.searchParams.has('iss')))
        t.skip(
          'the provider neither sends iss in its authorization responses nor advertises it (RFC 9207 is optional)',
        );
      const issuer = await expectedIssuer(t);
      for (const [what, redirect] of Object.entries(responses)) {
        const iss = redirect.searchParams.get('iss');
        t.soft(iss === issuer, `${what}: iss must be the issuer identifier ${issuer} (RFC 9207 §2)`, {
          rules: ['GRANT-AUTHORIZE-ISS'],
          iss,
          issuer,
        });
      }
    },
  },
];
