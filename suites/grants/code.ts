/** Authorization code exchange: single use, binding to redirect_uri and client, expiry, granted scopes. */
import fc from 'fast-check';
import { limits } from '../../spec/index.js';
import type { Check, CheckContext, HttpResponse } from '../types.js';
import { jsonObject } from '../shared/json.js';
import { namedState } from '../runner/state.js';
import {
  authorizeCode,
  broke,
  exchangeCode,
  expectAccessAlive,
  expectAccessDead,
  expectClientTaken,
  expectOAuthError,
  expectExchangeOk,
  heldScopes,
} from '../shared/oauth.js';
import { mutationName, redirectMutations, word } from './variants.js';

/**
 * RFC 6749 §4.1.2: a code "MUST expire shortly after it is issued" (ten minutes RECOMMENDED, the
 * figure LIM-AUTHORIZATION-CODE-LIFETIME holds); a day is past any reading of shortly.
 */
const CODE_LONG_EXPIRED = 24 * 60 * 60;
/** The answer is a token response: the code was taken. */
const tokenIn = (res: HttpResponse) => typeof jsonObject(res)?.access_token === 'string';

export const codeChecks: Check[] = [
  {
    id: 'grants.code-single-use',
    suite: 'grants',
    title: 'An authorization code is redeemed once; a second exchange is refused with invalid_grant',
    rules: ['GRANT-CODE-SINGLE-USE', 'ERR-INVALID-GRANT'],
    async run(t: CheckContext) {
      const code = await authorizeCode(t, 'confidential', {});
      expectExchangeOk(
        t,
        await exchangeCode(t, 'confidential', code),
        'confidential',
        'first exchange of a fresh code',
      );
      expectOAuthError(
        t,
        await exchangeCode(t, 'confidential', code),
        { status: 400, error: 'invalid_grant', rules: ['GRANT-CODE-SINGLE-USE'], errorRules: ['ERR-INVALID-GRANT'] },
        'second exchange of the same code',
      );
    },
  },
  {
    id: 'grants.code-reuse-revokes-tokens',
    suite: 'grants',
    title: 'Presenting a redeemed code again revokes the tokens issued for it',
    rules: ['GRANT-CODE-REUSE-REVOKES'],
    async run(t: CheckContext) {
      const code = await authorizeCode(t, 'confidential', {});
      const first = expectExchangeOk(
        t,
        await exchangeCode(t, 'confidential', code),
        'confidential',
        'first exchange of a fresh code',
      );
      await expectAccessAlive(t, first.access_token, 'access token of the first exchange');
      await exchangeCode(t, 'confidential', code);
      await expectAccessDead(t, first.access_token, 'access token issued for a code that was presented again');
    },
  },
  {
    id: 'grants.redirect-uri-mismatch',
    suite: 'grants',
    title: 'The code exchange is refused unless redirect_uri equals the one of the authorization request',
    rules: ['GRANT-CODE-REDIRECT-URI-MATCH'],
    async run(t: CheckContext) {
      const registered = new URL(t.oauth.app('confidential').redirectUri);
      await t.property(fc.oneof(mutationName, fc.constant('missing')), word, async (mutation, w) => {
        const redirectUri = mutation === 'missing' ? undefined : redirectMutations[mutation](registered, w);
        if (redirectUri === registered.href) return;
        const code = await authorizeCode(t, 'confidential', {});
        const res = await exchangeCode(t, 'confidential', code, { redirect_uri: redirectUri });
        const what = `code exchange with redirect_uri ${mutation === 'missing' ? 'missing' : `changed (${mutation})`}`;
        expectClientTaken(t, res, 'confidential', what);
        // A missing redirect_uri is a missing required parameter: invalid_request (RFC 6749 §5.2) is as right as invalid_grant.
        expectOAuthError(
          t,
          res,
          { status: 400, error: mutation === 'missing' ? ['invalid_grant', 'invalid_request'] : 'invalid_grant' },
          what,
        );
      });
    },
  },
  {
    id: 'grants.code-unknown',
    suite: 'grants',
    title: 'A code the provider never issued is refused with invalid_grant, whatever its characters',
    rules: ['GRANT-CODE-UNKNOWN', 'ERR-INVALID-GRANT', 'ERR-NO-SERVER-ERROR'],
    async run(t: CheckContext) {
      await t.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }), async (code) => {
        const res = await exchangeCode(t, 'confidential', code);
        expectClientTaken(t, res, 'confidential', 'code exchange with a code never issued');
        expectOAuthError(
          t,
          res,
          {
            status: 400,
            error: 'invalid_grant',
            rules: ['GRANT-CODE-UNKNOWN'],
            errorRules: ['ERR-INVALID-GRANT'],
            serverErrorRules: ['ERR-NO-SERVER-ERROR'],
          },
          'code exchange with a code never issued',
        );
      });
    },
  },
  {
    id: 'grants.code-client-bound',
    suite: 'grants',
    title: 'A code issued to one application is refused when another application presents it',
    rules: ['GRANT-CODE-CLIENT-BOUND', 'ERR-INVALID-GRANT'],
    async run(t: CheckContext) {
      if (!t.config.applications?.limited?.clientSecret)
        t.skip('needs a second confidential application (applications.limited)');
      const code = await authorizeCode(t, 'confidential', {});
      const res = await exchangeCode(t, 'limited', code, { redirect_uri: t.oauth.app('confidential').redirectUri });
      expectClientTaken(t, res, 'limited', 'code exchange by an application the code was not issued to');
      expectOAuthError(
        t,
        res,
        { status: 400, error: 'invalid_grant', rules: ['GRANT-CODE-CLIENT-BOUND'], errorRules: ['ERR-INVALID-GRANT'] },
        'code exchange by an application the code was not issued to',
      );
    },
  },
  {
    id: 'grants.code-expiry',
    suite: 'grants',
    title: 'A code not exchanged within its lifetime is refused with invalid_grant, and one a day old is',
    rules: ['GRANT-CODE-EXPIRY', 'LIM-AUTHORIZATION-CODE-LIFETIME', 'ERR-INVALID-GRANT'],
    needs: ['clock'],
    async run(t: CheckContext) {
      // Two codes of one moment: one exchanged a second past the figure, one a day on. Judged in
      // that order of causes: a code that never expires breaks the MUST alone (the figure is moot).
      const [onTime, late] = [await authorizeCode(t, 'confidential', {}), await authorizeCode(t, 'confidential', {})];
      await t.driver.advanceClock(limits().authorizationCodeLifetime + 1);
      const pastFigure = await exchangeCode(t, 'confidential', onTime);
      await t.driver.advanceClock(CODE_LONG_EXPIRED - limits().authorizationCodeLifetime - 1);
      const dayOld = await exchangeCode(t, 'confidential', late);
      const refused = { status: 400, error: 'invalid_grant', errorRules: ['ERR-INVALID-GRANT' as const] };
      expectOAuthError(t, dayOld, { ...refused, rules: ['GRANT-CODE-EXPIRY'] }, 'code exchange a day after issue');
      if (!tokenIn(dayOld))
        expectOAuthError(
          t,
          pastFigure,
          { ...refused, rules: ['LIM-AUTHORIZATION-CODE-LIFETIME'] },
          'code exchange after the code lifetime',
        );
    },
  },
  {
    id: 'grants.scope-within-application',
    suite: 'grants',
    title: 'Requesting a subset of the application scopes yields a token with exactly those scopes',
    rules: ['SCOPE-GRANTED-SUBSET', 'SCOPE-SPACE-SEPARATED'],
    async run(t: CheckContext) {
      const app = 'confidential';
      const own = t.oauth.app(app).scopes;
      await t.property(fc.shuffledSubarray(own, { minLength: 1 }), async (requested) => {
        // Refusing allowed scopes joined by spaces is a failure to read the space-separated list.
        const code = await authorizeCode(t, app, { scope: requested.join(' ') }, ['SCOPE-SPACE-SEPARATED']);
        const body = expectExchangeOk(
          t,
          await exchangeCode(t, app, code),
          app,
          `code exchange for scope "${requested.join(' ')}"`,
          ['SCOPE-SPACE-SEPARATED'],
        );
        const granted = await heldScopes(t, body, requested);
        t.expect(
          granted.length === requested.length && requested.every((s) => granted.includes(s)),
          'the token must carry exactly the requested scopes',
          broke(['SCOPE-GRANTED-SUBSET'], { requested, granted }),
        );
      });
    },
  },
  {
    id: 'grants.scope-default',
    suite: 'grants',
    title:
      "An authorization without scope gets a default within the application's scopes, or is refused with invalid_scope",
    rules: ['SCOPE-GRANTED-SUBSET', 'GRANT-SCOPE-ALLOWED'],
    async run(t: CheckContext) {
      const app = 'confidential';
      const own = t.oauth.app(app).scopes;
      const { redirect, response } = await t.driver.authorize(
        t.oauth.authorizeUrl(app, { scope: undefined, state: namedState('no-scope') }),
        'approve',
        { refusable: true },
      );
      const code = redirect?.searchParams.get('code');
      if (!code) {
        // RFC 6749 §3.3: without a default the request fails "indicating an invalid scope".
        const error = redirect?.searchParams.get('error') ?? null;
        t.expect(
          error === 'invalid_scope',
          'an authorization without scope must get a default scope or be refused with invalid_scope',
          broke(['SCOPE-GRANTED-SUBSET'], { error, status: response.status }),
        );
        return;
      }
      const body = expectExchangeOk(
        t,
        await exchangeCode(t, app, code),
        app,
        'code exchange of an authorization without scope',
        ['SCOPE-GRANTED-SUBSET'],
      );
      // Where nothing tells the granted scopes, RFC 6749 §5.1 leaves them unsaid: the default is not judged.
      const granted = await heldScopes(t, body, own);
      t.expect(
        granted.every((s) => own.includes(s)),
        "the default scopes of an authorization without scope must lie within the application's",
        broke(['GRANT-SCOPE-ALLOWED', 'SCOPE-GRANTED-SUBSET'], { granted, application: own }),
      );
    },
  },
];
