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
      'A wrong or missing client secret, or an unknown client_id, is refused with 401 invalid_client and WWW-Authenticate',
    rules: ['AUTH-INVALID-CLIENT', 'ERR-TOKEN-STATUS'],
    async run(t: CheckContext) {
      const app = t.oauth.app('confidential');
      const secretLike = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 64 });
      await t.property(
        fc.constantFrom<Failure>('wrong secret', 'missing secret', 'unknown client'),
        fc.constantFrom<'body' | 'basic'>('body', 'basic'),
        secretLike,
        fc.stringMatching(/^[0-9a-f]{16,64}$/),
        async (failure, presentation, otherSecret, otherClient) => {
          if (otherSecret === app.clientSecret || otherClient === app.clientId) return;
          // Missing secret only exists in the body form (Basic always carries a password).
          const via = failure === 'missing secret' ? 'body' : presentation;
          const clientId = failure === 'unknown client' ? otherClient : app.clientId;
          const secret =
            failure === 'wrong secret' ? otherSecret : failure === 'missing secret' ? undefined : app.clientSecret;
          // A bogus code: client authentication comes before the grant is looked at.
          const form = { grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: app.redirectUri };
          const res =
            via === 'body'
              ? await t.http.post(TOKEN_PATH, { form: { ...form, client_id: clientId, client_secret: secret } })
              : await t.http.post(TOKEN_PATH, { form, basic: { user: clientId, password: secret ?? '' } });
          const what = `token request with ${failure} (client credentials in ${via === 'body' ? 'the body' : 'HTTP Basic'})`;
          expectOAuthError(
            t,
            res,
            {
              status: 401,
              error: 'invalid_client',
              rules: ['AUTH-INVALID-CLIENT'],
              statusRules: ['AUTH-INVALID-CLIENT', 'ERR-TOKEN-STATUS'],
            },
            what,
          );
          // RFC 6749 §5.2 asks for WWW-Authenticate only when the client authenticated with the Authorization header.
          if (via === 'basic')
            t.soft(
              res.headers.get('www-authenticate'),
              `${what}: the 401 must carry a WWW-Authenticate header`,
              broke(['AUTH-INVALID-CLIENT'], { status: res.status }),
            );
        },
      );
    },
  },
];
