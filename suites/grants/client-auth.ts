/** Client authentication at the token endpoint: wrong secret, missing secret, unknown client, body or Basic. */
import fc from 'fast-check';
import type { Check, CheckContext } from '../types.js';
import { broke, expectOAuthError, TOKEN_PATH } from '../shared/oauth.js';

type Failure = 'wrong secret' | 'missing secret' | 'unknown client';

export const clientAuthChecks: Check[] = [
  {
    id: 'grants.client-authentication-failures',
    suite: 'grants',
    title:
      'A wrong or missing client secret, or an unknown client_id, is refused with invalid_client: 401 or 400 to body credentials, 401 with WWW-Authenticate to HTTP Basic',
    rules: ['AUTH-INVALID-CLIENT', 'AUTH-INVALID-CLIENT-BASIC', 'ERR-TOKEN-STATUS'],
    async run(t: CheckContext) {
      const app = t.oauth.app('confidential');
      const secretLike = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 64 });
      async function refused(failure: Failure, via: 'body' | 'basic', otherSecret: string, otherClient: string) {
        const clientId = failure === 'unknown client' ? otherClient : app.clientId;
        const secret =
          failure === 'wrong secret' ? otherSecret : failure === 'missing secret' ? undefined : app.clientSecret;
        // A bogus code: client authentication comes before the grant is looked at.
        const form = { grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: app.redirectUri };
        const res =
          via === 'body'
            ? await t.http.post(TOKEN_PATH, { form: { ...form, client_id: clientId, client_secret: secret } })
            : await t.http.post(TOKEN_PATH, { form, clientBasic: { user: clientId, password: secret ?? '' } });
        const what = `token request with ${failure} (client credentials in ${via === 'body' ? 'the body' : 'HTTP Basic'})`;
        // RFC 6749 §5.2: to the Authorization header the server MUST answer 401 with a challenge,
        // one sentence, so its status and its header are one rule's.
        const basicRules = ['AUTH-INVALID-CLIENT-BASIC' as const];
        expectOAuthError(
          t,
          res,
          {
            // With credentials in the body, RFC 6749 §5.2 lets the server answer 400 as well (Cognito does).
            status: via === 'basic' ? 401 : [401, 400],
            error: 'invalid_client',
            rules: ['AUTH-INVALID-CLIENT'],
            ...(via === 'basic' ? { statusRules: basicRules } : {}),
          },
          what,
        );
        if (via === 'basic')
          t.soft(
            res.headers.get('www-authenticate'),
            `${what}: the 401 must carry a WWW-Authenticate header`,
            broke(basicRules, { status: res.status }),
          );
      }
      await t.property(
        fc.constantFrom<Failure>('wrong secret', 'missing secret', 'unknown client'),
        secretLike,
        fc.stringMatching(/^[0-9a-f]{16,64}$/),
        async (failure, otherSecret, otherClient) => {
          if (otherSecret === app.clientSecret || otherClient === app.clientId) return;
          // Both presentations every time: each answers to a rule of its own (RFC 6749 §5.2). A
          // missing secret exists in the body only (Basic with an empty password is a malformed
          // request, which oidc-provider answers invalid_request): Basic then carries a wrong one.
          await refused(failure, 'body', otherSecret, otherClient);
          await refused(failure === 'missing secret' ? 'wrong secret' : failure, 'basic', otherSecret, otherClient);
        },
      );
    },
  },
];
