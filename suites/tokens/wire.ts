/** Wire format of the other /oauth JSON answers: exactly `application/json`, without a charset parameter. */
import type { Check, CheckContext, HttpResponse } from '../types.js';
import {
  DISCOVERY_PATH,
  expectExactJsonType,
  getDiscovery,
  KEYS_PATH,
  mintPair,
  REVOKE_PATH,
  TOKEN_INFO_PATH,
  tokenInfo,
  USERINFO_PATH,
} from '../shared/oauth.js';
import { userinfoDown } from '../shared/userinfo-premise.js';

const USERINFO_ROW = `GET ${USERINFO_PATH}`;

export const wireChecks: Check[] = [
  {
    id: 'tokens.json-content-type',
    suite: 'tokens',
    title:
      'Token info, revocation, userinfo, keys and discovery answer Content-Type application/json without charset, errors included',
    rules: ['ENC-JSON-CONTENT-TYPE'],
    async run(t: CheckContext) {
      const { tokens } = await mintPair(t, 'confidential');
      // Only the endpoints the target serves: the 404 of an absent one is no JSON answer to judge.
      // Discovery is not asked at start-up: judged when found (its absence is oidc.discovery's).
      const answers: Array<[string, () => Promise<HttpResponse>, boolean | 'if found']> = [
        [`GET ${TOKEN_INFO_PATH}`, () => tokenInfo(t, tokens.access_token), t.caps.tokenInfo],
        [`GET ${TOKEN_INFO_PATH} without a token`, () => t.http.get(TOKEN_INFO_PATH), t.caps.tokenInfo],
        [USERINFO_ROW, () => t.http.get(USERINFO_PATH, { bearer: tokens.access_token }), t.caps.userinfo],
        [`GET ${KEYS_PATH}`, () => t.http.get(KEYS_PATH), t.caps.keys],
        [`GET ${DISCOVERY_PATH}`, () => getDiscovery(t.http, t.config.issuer), 'if found'],
        [`POST ${REVOKE_PATH}`, () => t.oauth.revoke(tokens.access_token, 'confidential'), t.caps.revocation],
      ];
      for (const [what, send, served] of answers) {
        if (!served) continue;
        const res = await send();
        if (served === 'if found' && res.status === 404) continue;
        // A userinfo that serves no token at all is OIDC-USERINFO's, once: its label is not judged.
        const down = what === USERINFO_ROW ? await userinfoDown(t, res) : undefined;
        if (down !== undefined) {
          t.note(`${what} not judged: ${down}`);
          continue;
        }
        expectExactJsonType(t, res, what);
      }
    },
  },
];
