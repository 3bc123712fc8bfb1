/** POST /oauth/revoke: 200 {}, the token dead everywhere, refresh tokens too, unknown tokens, client binding. */
import fc from 'fast-check';
import { limits, type RuleId } from '../../spec/index.js';
import type { AppRole, Check, CheckContext, HttpResponse } from '../types.js';
import { hasBearerChallenge } from '../shared/challenge.js';
import { clockMoves } from '../runner/capabilities.js';
import { expectServed } from '../shared/served.js';
import {
  acceptingOracle,
  broke,
  CURRENT_USER_PATH,
  expectAccessAlive,
  expectAccessDead,
  expectJsonType,
  expectOAuthError,
  jsonObject,
  mintPair,
  refreshTokenOf,
  refresh,
  REVOKE_PATH,
  TOKEN_INFO_PATH,
  tokenInfo,
} from '../shared/oauth.js';

/** What a revocation is of: a held access token, a held refresh token, or `rules`' (see expectEmptyObject). */
type Revoked = 'access token' | 'refresh token' | readonly RuleId[];

/**
 * 200 with {} (REV-EMPTY-OBJECT; a refusal also breaks REV-PARAMS, the request being well formed).
 * `revoked`, as rules: the token is one the provider does not hold (never issued, revoked already),
 * and those rules (REV-UNKNOWN-TOKEN-OK) say it is answered so too: refusing it breaks them alone.
 * False when the provider refused to revoke an access token it holds for its type (nothing was revoked).
 */
function expectEmptyObject(t: CheckContext, res: HttpResponse, what: string, revoked: Revoked): boolean {
  const body = jsonObject(res);
  const rules = typeof revoked === 'string' ? [] : revoked;
  // An access token refused 400 unsupported_token_type (RFC 7009 §2.2.1: Amazon Cognito revokes
  // refresh tokens only): a right request refused in the form RFC 7009 gives it. L96 revokes any
  // token, so the deviation is the token living on, REV-REVOKES-TOKEN's, judged where the oracles
  // are asked after the revocation. A refresh token refused so, or another status, is no such
  // provider: judged below.
  if (revoked === 'access token' && res.status === 400 && body?.error === 'unsupported_token_type') return false;
  // A 200 proves `rules` (a token never issued is revoked too). Another 2xx (204) is the
  // revocation done and answered otherwise, like the body: REV-EMPTY-OBJECT alone.
  const otherwise = res.status > 200 && res.status < 300;
  // A refusal of a token it does not hold (Google answers 400 invalid_token) says nothing of how it
  // revokes one it holds (REV-EMPTY-OBJECT, REV-PARAMS): its body is an error body, not judged here.
  // The client's own credentials, sent as L162 says, refused (invalid_client: a provider that takes
  // them in HTTP Basic only): how the client authenticates, whatever the token.
  const clientRefused = res.status >= 400 && body?.error === 'invalid_client';
  const refusedUnheld = rules.length > 0 && !otherwise && !clientRefused && res.status !== 200;
  t.soft(
    res.status === 200,
    `${what}: revocation must answer 200`,
    broke(
      otherwise
        ? ['REV-EMPTY-OBJECT']
        : clientRefused
          ? ['REV-PARAMS']
          : refusedUnheld
            ? rules
            : ['REV-EMPTY-OBJECT', 'REV-PARAMS', ...rules],
      {
        status: res.status,
        error: body?.error ?? null,
      },
    ),
  );
  if (refusedUnheld || clientRefused) return true;
  t.soft(
    body && Object.keys(body).length === 0,
    `${what}: revocation must answer the empty JSON object {}`,
    broke(['REV-EMPTY-OBJECT'], { status: res.status, fields: body ? Object.keys(body) : null }),
  );
  // An empty body (oidc-provider's, Hydra's) already broke REV-EMPTY-OBJECT above: the media type
  // of no content is the same deviation, not ENC-RESPONSE-JSON's too (one cause, one blame; the
  // proxy judges it so).
  if (res.text.length > 0) expectJsonType(t, res, what, ['REV-EMPTY-OBJECT']);
  return true;
}

/**
 * Revoke as a given application with its own credentials, placed as the start-up found the provider
 * takes them; the token stays tracked (t.oauth.revoke would forget it), so the run still revokes it.
 */
function revokeAs(t: CheckContext, app: AppRole, token: string): Promise<HttpResponse> {
  return t.oauth.clientRequest(REVOKE_PATH, { token }, { app });
}

export const revokeChecks: Check[] = [
  {
    id: 'tokens.revoke-access-token',
    suite: 'tokens',
    title:
      'Revoking an access token answers 200 {}; the token is then refused by token info, the REST API and its refresh token by refresh',
    rules: ['REV-PARAMS', 'REV-EMPTY-OBJECT', 'REV-REVOKES-TOKEN', 'REV-ACCESS-REVOKES-REFRESH'],
    async run(t: CheckContext) {
      const { tokens } = await mintPair(t, 'confidential');
      const held = refreshTokenOf(t, tokens, 'code exchange');
      await expectAccessAlive(t, tokens.access_token, 'access token before revocation');
      const revoked = await t.oauth.revoke(tokens.access_token, 'confidential');
      // The one check that reports an absent revocation endpoint: REV-PARAMS alone, not the
      // body, media type or effect of a revocation that never was.
      expectServed(t, revoked, 'revocation');
      expectEmptyObject(t, revoked, 'revoke an access token', 'access token');
      const { stillAccepted } = await expectAccessDead(t, tokens.access_token, 'revoked access token', [
        'REV-REVOKES-TOKEN',
      ]);
      // "Revokes it" (L96) is the access token; its refresh token going too is the real service's
      // way (one grant), asked only where the revocation took (else REV-REVOKES-TOKEN said it all).
      if (stillAccepted) return;
      expectOAuthError(
        t,
        await refresh(t, 'confidential', held),
        { status: 400, error: 'invalid_grant', rules: ['REV-ACCESS-REVOKES-REFRESH'] },
        'refresh with the refresh token of a revoked access token',
      );
    },
  },
  {
    id: 'tokens.info-dead-token',
    suite: 'tokens',
    title: 'Token info and the REST API answer a revoked or expired token with 401 (invalid_token, WWW-Authenticate)',
    rules: ['INFO-INVALID-TOKEN', 'AUTH-INVALID-TOKEN-401'],
    async run(t: CheckContext) {
      // Each endpoint the target serves is judged; one it lacks fails once, on its own rule, elsewhere.
      if (!t.caps.tokenInfo && !t.caps.restApi)
        t.skip('the target serves neither /oauth/token/info nor the REST API: nothing here can refuse a dead token');
      const judgeDead = async (token: string, why: string) => {
        for (const via of t.caps.tokenInfo ? (['header', 'query'] as const) : []) {
          const info = await tokenInfo(t, token, via);
          // A missing endpoint is one failure of its rule, not a malformed refusal besides.
          if (
            !t.soft(
              info.status !== 404,
              `${TOKEN_INFO_PATH} answers 404: the endpoint is missing`,
              broke(['INFO-INVALID-TOKEN']),
            )
          )
            break;
          expectOAuthError(
            t,
            info,
            { status: 401, error: 'invalid_token', rules: ['INFO-INVALID-TOKEN'] },
            `token info of a ${why} token (${via})`,
          );
        }
        if (!t.caps.restApi) return;
        const user = await t.http.get(CURRENT_USER_PATH, { bearer: token });
        t.soft(
          user.status === 401,
          `${CURRENT_USER_PATH} must answer a ${why} token with 401`,
          broke(['AUTH-INVALID-TOKEN-401'], { status: user.status }),
        );
        t.soft(
          hasBearerChallenge(user),
          `${CURRENT_USER_PATH} must answer a ${why} bearer token with WWW-Authenticate: Bearer`,
          broke(['AUTH-INVALID-TOKEN-401'], { status: user.status }),
        );
      };
      const revoked = (await mintPair(t, 'confidential')).tokens.access_token;
      expectEmptyObject(t, await t.oauth.revoke(revoked, 'confidential'), 'revoke an access token', 'access token');
      // Judged before any clock moves (else it is merely expired), and only where the revocation
      // took: a token another oracle still accepts is REV-REVOKES-TOKEN's (tokens.revoke-access-token).
      const alive = await acceptingOracle(t, revoked, { restApi: true, tokenInfo: true });
      if (!alive) await judgeDead(revoked, 'revoked');
      if (!clockMoves(t)) {
        if (alive)
          t.skip(`the revocation did not take: ${alive} still accepts the token, and no clock lets one expire`);
        return;
      }
      const expired = (await mintPair(t, 'confidential')).tokens.access_token;
      await t.driver.advanceClock(limits().accessTokenLifetime + 1);
      await judgeDead(expired, 'expired');
    },
  },
  {
    id: 'tokens.revoke-refresh-token',
    suite: 'tokens',
    title: 'Revoking a refresh token kills it and the access token issued with it',
    rules: ['REV-REVOKES-TOKEN', 'REV-REFRESH-REVOKES-PAIR'],
    async run(t: CheckContext) {
      const { tokens } = await mintPair(t, 'confidential');
      const held = refreshTokenOf(t, tokens, 'code exchange');
      expectEmptyObject(t, await t.oauth.revoke(held, 'confidential'), 'revoke a refresh token', 'refresh token');
      expectOAuthError(
        t,
        await refresh(t, 'confidential', held),
        { status: 400, error: 'invalid_grant', rules: ['REV-REVOKES-TOKEN'] },
        'refresh with a revoked refresh token',
      );
      await expectAccessDead(t, tokens.access_token, 'access token whose refresh token was revoked', [
        'REV-REFRESH-REVOKES-PAIR',
      ]);
    },
  },
  {
    id: 'tokens.revoke-unknown-token',
    suite: 'tokens',
    title: 'Revoking a token the provider does not know answers 200 {} as well',
    rules: ['REV-UNKNOWN-TOKEN-OK'],
    async run(t: CheckContext) {
      await t.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 64 }), async (token) => {
        expectEmptyObject(t, await revokeAs(t, 'confidential', token), 'revoke a token never issued', [
          'REV-UNKNOWN-TOKEN-OK',
        ]);
      });
      const { tokens } = await mintPair(t, 'confidential');
      // Refused for its type, the token is still held: asking again is no revocation of one it no longer holds.
      if (
        !expectEmptyObject(
          t,
          await t.oauth.revoke(tokens.access_token, 'confidential'),
          'revoke a token',
          'access token',
        )
      )
        return;
      expectEmptyObject(t, await revokeAs(t, 'confidential', tokens.access_token), 'revoke the same token again', [
        'REV-UNKNOWN-TOKEN-OK',
      ]);
    },
  },
  {
    id: 'tokens.revoke-client-bound',
    suite: 'tokens',
    title: 'Another client cannot revoke a token it was not issued',
    rules: ['REV-CLIENT-BOUND'],
    async run(t: CheckContext) {
      if (!t.config.applications?.limited?.clientSecret)
        t.skip('needs a second confidential application (applications.limited)');
      const { tokens } = await mintPair(t, 'confidential');
      await revokeAs(t, 'limited', tokens.access_token);
      await expectAccessAlive(t, tokens.access_token, 'access token another client tried to revoke', [
        'REV-CLIENT-BOUND',
      ]);
    },
  },
  {
    id: 'tokens.revoke-client-auth',
    suite: 'tokens',
    title:
      'A revocation with a wrong or missing client secret is refused with invalid_client (401, or 400 for body credentials) and revokes nothing',
    rules: ['REV-CLIENT-AUTH'],
    async run(t: CheckContext) {
      const { tokens } = await mintPair(t, 'confidential');
      const secret = t.oauth.app('confidential').clientSecret ?? '';
      const attempts: Array<[string, string | undefined]> = [
        ['a wrong client secret', `${secret}-wrong`],
        ['no client secret', undefined],
      ];
      for (const [what, given] of attempts) {
        // The way the provider takes the secret (HTTP Basic where the body is refused): a refusal of
        // the body alone is AUTH-CLIENT-BODY's, and would pass here whatever the secret.
        const { fields, clientBasic } = t.oauth.clientAuth('confidential', { secret: given ?? null });
        const res = await t.http.post(REVOKE_PATH, { form: { token: tokens.access_token, ...fields }, clientBasic });
        // RFC 7009 §2.2.1 names invalid_client; RFC 6749 §5.2 allows 400 or 401 when the credentials came in the body.
        expectOAuthError(
          t,
          res,
          { status: clientBasic ? 401 : [400, 401], error: 'invalid_client' },
          `revocation with ${what}`,
        );
        await expectAccessAlive(t, tokens.access_token, `access token after a revocation with ${what}`, [
          'REV-CLIENT-AUTH',
        ]);
      }
    },
  },
];
