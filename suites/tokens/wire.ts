/** Wire format of the other /oauth JSON answers: exactly `application/json`, without a charset parameter. */
import type { Check, CheckContext, HttpResponse } from '../types.js';
import { expectExactJsonType, mintPair, REVOKE_PATH, TOKEN_INFO_PATH, tokenInfo } from '../shared/oauth.js';

export const wireChecks: Check[] = [
  {
    id: 'tokens.json-content-type',
    suite: 'tokens',
    title:
      'Token info, revocation, userinfo, keys and discovery answer Content-Type application/json without charset, errors included',
    rules: ['ENC-JSON-CONTENT-TYPE'],
    async run(t: CheckContext) {
      const { tokens } = await mintPair(t, 'confidential');
      const answers: Array<[string, () => Promise<HttpResponse>]> = [
        [`GET ${TOKEN_INFO_PATH}`, () => tokenInfo(t, tokens.access_token)],
        [`GET ${TOKEN_INFO_PATH} without a token`, () => t.http.get(TOKEN_INFO_PATH)],
        ['GET /oauth/userinfo', () => t.http.get('/oauth/userinfo', { bearer: tokens.access_token })],
        ['GET /oauth/discovery/keys', () => t.http.get('/oauth/discovery/keys')],
        ['GET /.well-known/openid-configuration', () => t.http.get('/.well-known/openid-configuration')],
        [`POST ${REVOKE_PATH}`, () => t.oauth.revoke(tokens.access_token, 'confidential')],
      ];
      for (const [what, send] of answers) expectExactJsonType(t, await send(), what);
    },
  },
];
