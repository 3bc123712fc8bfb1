/** Refresh tokens: rotation (old pair dead, new pair alive), refresh after the access token expired, client binding. */
import { limits } from '../../spec/index.js';
import type { AppRole, Check, CheckContext } from '../types.js';
import {
  broke,
  expectAccessAlive,
  expectAccessDead,
  expectOAuthError,
  expectTokenOk,
  mintPair,
  refreshTokenOf,
  refresh,
  refreshRefusalRules,
  heldScopes,
} from '../shared/oauth.js';
import { expectTokenFields } from './token-fields.js';

/** Applications of the config that take part: confidential (secret) and public (PKCE). */
function roles(t: CheckContext): AppRole[] {
  const apps = (['confidential', 'public'] as const).filter((r) => t.config.applications?.[r]);
  if (apps.length === 0) t.skip('the target config names neither a confidential nor a public application');
  return apps;
}

export const refreshChecks: Check[] = [
  {
    id: 'grants.refresh-rotation',
    suite: 'grants',
    title: 'A refresh returns a new pair and kills the old access and refresh tokens; the new pair works',
    rules: [
      'TOK-REFRESH-ROTATION',
      'TOK-REFRESH-OLD-REFUSED',
      'TOK-REFRESH-PARAMS',
      'PKCE-REFRESH-PARAMS',
      'TOK-REFRESH-RESPONSE-FIELDS',
      'TOK-REFRESH-SCOPE-KEPT',
      'TOK-VERIFY-USER',
      'ERR-INVALID-GRANT',
    ],
    async run(t: CheckContext) {
      for (const app of roles(t)) {
        const { tokens: a, verifier } = await mintPair(t, app);
        const old = refreshTokenOf(t, a, `code exchange (${app} application)`);
        const before = await heldScopes(t, a, t.oauth.app(app).scopes);
        const refused = refreshRefusalRules(t, app);
        const b = expectTokenOk(t, await refresh(t, app, old, verifier), `refresh (${app} application)`, refused);
        expectTokenFields(t, b, 'refresh_token', `refresh (${app} application)`);
        t.soft(
          b.access_token !== a.access_token && b.refresh_token !== a.refresh_token,
          `refresh (${app}): the new pair must differ from the old one`,
          broke(['TOK-REFRESH-ROTATION']),
        );
        await expectAccessDead(t, a.access_token, `old access token after a refresh (${app})`, [
          'TOK-REFRESH-ROTATION',
        ]);
        await expectAccessAlive(t, b.access_token, `new access token after a refresh (${app})`, [
          'TOK-REFRESH-ROTATION',
        ]);
        const after = await heldScopes(t, b, before);
        t.soft(
          after.join(' ') === before.join(' '),
          `refresh (${app}): the new token must keep the scopes of the original grant`,
          broke(['TOK-REFRESH-SCOPE-KEPT'], { before, after }),
        );
        // Without a new refresh token (judged above) a client goes on with the one it has (RFC 6749 §6).
        const c = expectTokenOk(
          t,
          await refresh(t, app, b.refresh_token ?? old, verifier),
          `refresh with the new refresh token (${app})`,
          refused,
        );
        await expectAccessAlive(t, c.access_token, `access token of a second refresh (${app})`, [
          'TOK-REFRESH-ROTATION',
        ]);
        // Last: replaying a rotated refresh token may revoke the whole grant (RFC 9700 §4.14.2), new pair included.
        // That it still works (a grace period) is one sentence of L92, one rule.
        expectOAuthError(
          t,
          await refresh(t, app, old, verifier),
          {
            status: 400,
            error: 'invalid_grant',
            rules: ['TOK-REFRESH-OLD-REFUSED'],
            errorRules: ['ERR-INVALID-GRANT'],
          },
          `reuse of a rotated refresh token (${app})`,
        );
      }
    },
  },
  {
    id: 'grants.refresh-after-expiry',
    suite: 'grants',
    title: 'Once the access token expired it is refused, and its refresh token still yields a working pair',
    rules: ['TOK-REFRESH-AFTER-EXPIRY', 'TOK-ACCESS-TOKEN-EXPIRY', 'LIM-TOKEN-LIFETIME'],
    needs: ['clock'],
    async run(t: CheckContext) {
      const { tokens: a, verifier } = await mintPair(t, 'confidential');
      const lifetime = limits().accessTokenLifetime;
      await t.driver.advanceClock(lifetime - 60);
      await expectAccessAlive(t, a.access_token, `access token a minute before its ${lifetime} s lifetime ends`, [
        'LIM-TOKEN-LIFETIME',
      ]);
      await t.driver.advanceClock(61);
      await expectAccessDead(t, a.access_token, `access token after its ${lifetime} s lifetime`, [
        'TOK-ACCESS-TOKEN-EXPIRY',
        'LIM-TOKEN-LIFETIME',
      ]);
      // Only the refresh needs the refresh token: a code response without one (L29) must not hide
      // the access token's lifetime (L276), judged above.
      const held = refreshTokenOf(t, a, 'code exchange');
      const b = expectTokenOk(
        t,
        await refresh(t, 'confidential', held, verifier),
        'refresh after the access token expired',
        ['TOK-REFRESH-AFTER-EXPIRY'],
      );
      await expectAccessAlive(t, b.access_token, 'access token refreshed after expiry', ['TOK-REFRESH-AFTER-EXPIRY']);
    },
  },
  {
    id: 'grants.refresh-client-bound',
    suite: 'grants',
    title: 'A refresh token presented by another application is refused with invalid_grant',
    rules: ['TOK-REFRESH-CLIENT-BOUND', 'ERR-INVALID-GRANT'],
    async run(t: CheckContext) {
      if (!t.config.applications?.limited?.clientSecret)
        t.skip('needs a second confidential application (applications.limited)');
      const { tokens } = await mintPair(t, 'confidential');
      expectOAuthError(
        t,
        await refresh(t, 'limited', refreshTokenOf(t, tokens, 'code exchange')),
        { status: 400, error: 'invalid_grant', rules: ['TOK-REFRESH-CLIENT-BOUND'], errorRules: ['ERR-INVALID-GRANT'] },
        'refresh by an application the token was not issued to',
      );
      // Whether the access token lives on is not judged: revoking the grant on such misuse is allowed (RFC 9700 §4.14.2).
    },
  },
];
