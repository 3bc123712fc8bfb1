/** Resource owner password credentials grant: fields, default scope, Basic client auth, refusals, removal in 19.0. */
import fc from 'fast-check';
import type { Check, CheckContext } from '../types.js';
import {
  broke,
  expectOAuthError,
  expectTokenOk,
  jsonObject,
  shownScopes,
  tokenInfo,
  TOKEN_PATH,
  trackBody,
} from '../shared/oauth.js';
import { expectTokenFields } from './token-fields.js';
import { STANDARD_ERRORS } from './response.js';
import { withSetting } from './settings.js';
import { PASSWORD_PREMISE } from '../runner/capabilities.js';

const CONTROL_USERS = '/-/simulator/users';
/** Wrong passwords sent for the configured user in one run: below any provider's lockout. */
const WRONG_PASSWORDS_FOR_USER = 5;

/**
 * How the password checks authenticate the client: HTTP Basic when the config has a confidential
 * application, none where the start-up found Basic refused and the grant taken without it
 * (AUTH-CLIENT-BASIC's, judged once by grants.password-response).
 */
const passwordAuth = (t: CheckContext) =>
  t.config.applications?.confidential && t.caps.clientBasicRefused === undefined ? 'basic' : 'none';

/** A password grant for explicit credentials, the client authenticated as passwordAuth says. */
function passwordGrant(t: CheckContext, username: string, password: string) {
  return t.oauth.tokenRequest(
    { grant_type: 'password', username, password },
    { app: 'confidential', auth: passwordAuth(t) },
  );
}

export const passwordChecks: Check[] = [
  {
    id: 'grants.password-response',
    suite: 'grants',
    title: 'The password grant returns only access_token, token_type bearer and expires_in, with scope api by default',
    rules: [
      'GRANT-PASSWORD-PARAMS',
      'GRANT-PASSWORD-DEFAULT-SCOPE',
      'GRANT-PASSWORD-BASIC-AUTH',
      'AUTH-CLIENT-BASIC',
      'TOK-PASSWORD-RESPONSE-FIELDS',
      'TOK-REFRESH-TOKEN-ABSENT',
      'TOK-TYPE-LOWERCASE-BEARER',
      'TOK-TYPE-BEARER',
      'TOK-EXPIRES-IN',
    ],
    needs: ['passwordGrant'],
    async run(t: CheckContext) {
      // Refused without client authentication too (start-up), the grant is refused, not HTTP Basic.
      const refused = t.caps.passwordRefused;
      const basicRefused = t.caps.clientBasicRefused;
      if (basicRefused) {
        // Refused invalid_client to HTTP Basic and taken without client authentication (start-up):
        // the source's HTTP Basic client authentication is what fails, once; the grant's response
        // is judged on the request the provider takes.
        const viaBasic = await t.oauth.password({ auth: 'basic' });
        const said = jsonObject(viaBasic);
        t.soft(
          viaBasic.status === 200 && typeof said?.access_token === 'string',
          `password grant with HTTP Basic client credentials: refused (at start-up too: ${basicRefused}), while the grant without client authentication is taken`,
          broke(['AUTH-CLIENT-BASIC'], { status: viaBasic.status, error: said?.error ?? null }),
        );
      }
      const body = expectTokenOk(
        t,
        await t.oauth.password({ auth: basicRefused ? 'none' : 'basic' }),
        `password grant ${basicRefused ? 'without client authentication' : 'with HTTP Basic client credentials'}${refused ? ` (refused without client authentication too: ${refused})` : ''}`,
        refused
          ? [PASSWORD_PREMISE.rule]
          : basicRefused
            ? ['GRANT-PASSWORD-PARAMS']
            : ['GRANT-PASSWORD-PARAMS', 'GRANT-PASSWORD-BASIC-AUTH', 'AUTH-CLIENT-BASIC'],
      );
      expectTokenFields(t, body, 'password', 'password grant');
      // No scope was requested: what token info, introspection or the response says is granted. Where
      // none tells, the default scope is not shown and its rule stays untested. A soft assertion: the
      // response's fields above and below are judged whatever the scope.
      const scope = await shownScopes(t, body);
      if (scope)
        t.soft(
          scope.length === 1 && scope[0] === 'api',
          'a password grant without scope must yield scope api',
          broke(['GRANT-PASSWORD-DEFAULT-SCOPE'], { scope }),
        );
    },
  },
  {
    id: 'grants.password-bad-credentials',
    suite: 'grants',
    title: 'A password grant with a wrong password or an unknown user is refused with invalid_grant',
    rules: ['GRANT-PASSWORD-BAD-CREDENTIALS', 'ERR-INVALID-GRANT'],
    needs: ['passwordGrant'],
    async run(t: CheckContext) {
      const user = t.config.user;
      if (!user) t.skip('the target config names no user');
      // Providers throttle or lock an account after a few wrong passwords (AUTH-BRUTE-FORCE-THROTTLED);
      // the real account gets only a handful of them, so the checks after this one can still sign in.
      let wrongForUser = 0;
      await t.property(
        fc.boolean(),
        fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 40 }),
        async (unknown, guess) => {
          if (guess === user.password) return;
          const unknownUser = unknown || wrongForUser >= WRONG_PASSWORDS_FOR_USER;
          if (!unknownUser) wrongForUser++;
          const res = await passwordGrant(
            t,
            unknownUser ? `nobody-${guess.replace(/[^A-Za-z0-9]/g, '') || 'x'}-0` : user.username,
            guess,
          );
          expectOAuthError(
            t,
            res,
            {
              status: 400,
              error: 'invalid_grant',
              rules: ['GRANT-PASSWORD-BAD-CREDENTIALS'],
              errorRules: ['ERR-INVALID-GRANT'],
            },
            `password grant with ${unknownUser ? 'an unknown user' : 'a wrong password'}`,
          );
        },
      );
    },
  },
  {
    id: 'grants.password-two-factor-refused',
    suite: 'grants',
    title: 'The password grant is refused for a user with two-factor authentication',
    rules: ['GRANT-PASSWORD-2FA-REFUSED'],
    needs: ['passwordGrant', 'control', 'writable'],
    async run(t: CheckContext) {
      const unique = `${t.seed >>> 0}-${Date.now().toString(36)}`;
      const [username, password] = [`two-factor-${unique}`, `pw-${unique}-Zz9`];
      const created = await t.http.post(CONTROL_USERS, { json: { username, password, twoFactor: true } });
      t.expect(created.status < 300, 'the control API did not create a two-factor user', { status: created.status });
      const res = await passwordGrant(t, username, password);
      trackBody(t, res);
      // The source names no code (L245): any standard one refuses (the simulator's is invalid_grant).
      expectOAuthError(
        t,
        res,
        { status: 400, error: STANDARD_ERRORS, rules: ['GRANT-PASSWORD-2FA-REFUSED'] },
        'password grant for a two-factor user',
      );
    },
  },
  {
    id: 'grants.password-without-client',
    suite: 'grants',
    title:
      'On self-managed a password grant without client authentication succeeds, and its token info names an application uid string',
    rules: ['GRANT-PASSWORD-PARAMS', 'INFO-RESPONSE-FIELDS'],
    needs: ['passwordGrant'],
    async run(t: CheckContext) {
      if (t.inForce('GRANT-PASSWORD-HOSTED-CLIENT-AUTH'))
        t.skip(`the hosted offering requires client authentication for the password grant (this run: ${t.offering})`);
      const attempt = async (): Promise<void> => {
        const res = await t.oauth.password({ auth: 'none' });
        if (!t.caps.settings && res.status !== 200 && jsonObject(res)?.error === 'invalid_client')
          t.skip('refused with invalid_client: the instance may allow the password grant only with client credentials');
        const body = expectTokenOk(t, res, 'password grant without client authentication', ['GRANT-PASSWORD-PARAMS']);
        // Token info's own field; a target without token info fails that once, elsewhere.
        if (!t.caps.tokenInfo) return;
        const info = jsonObject(await tokenInfo(t, body.access_token));
        const application = info?.application as { uid?: unknown } | undefined;
        // Such a token belongs to no application: uid "" or null (spec/openapi.yaml TokenInfo), never absent.
        t.expect(
          typeof application?.uid === 'string' || application?.uid === null,
          'token info of a password token issued without a client must carry application.uid, a string or null',
          broke(['INFO-RESPONSE-FIELDS'], { uid: application?.uid === undefined ? 'absent' : application.uid }),
        );
      };
      // The setting that demands client credentials is off by default; hold it off where it can be set.
      if (t.caps.settings) await withSetting(t, 'passwordGrantClientCredentialsOnly', false, attempt);
      else await attempt();
    },
  },
  {
    id: 'grants.password-hosted-client-auth',
    suite: 'grants',
    title: 'On the hosted offering a password grant without client authentication is refused with invalid_client',
    rules: ['GRANT-PASSWORD-HOSTED-CLIENT-AUTH'],
    needs: ['passwordGrant'],
    async run(t: CheckContext) {
      if (!t.inForce('GRANT-PASSWORD-HOSTED-CLIENT-AUTH'))
        t.skip(`applies to the hosted offering only (this run: ${t.offering} ${t.release})`);
      const res = await t.oauth.password({ auth: 'none' });
      expectOAuthError(
        t,
        res,
        { status: [400, 401], error: 'invalid_client' },
        'password grant without client authentication on the hosted offering',
      );
    },
  },
  {
    id: 'grants.password-client-credentials-setting',
    suite: 'grants',
    title:
      'While the instance allows the password grant only with client credentials, one without them is refused with invalid_client and one with HTTP Basic succeeds',
    rules: ['GRANT-PASSWORD-CLIENT-CREDENTIALS-SETTING', 'GRANT-PASSWORD-BASIC-AUTH'],
    needs: ['passwordGrant', 'control', 'settings'],
    async run(t: CheckContext) {
      if (!t.config.applications?.confidential?.clientSecret)
        t.skip('needs a confidential application for HTTP Basic client credentials');
      // HTTP Basic refused (start-up, AUTH-CLIENT-BASIC's): the credentials go in the body.
      const basic = t.caps.clientBasicRefused === undefined;
      await withSetting(t, 'passwordGrantClientCredentialsOnly', true, async () => {
        const without = await t.oauth.password({ auth: 'none' });
        expectOAuthError(
          t,
          without,
          { status: [400, 401], error: 'invalid_client', rules: ['GRANT-PASSWORD-CLIENT-CREDENTIALS-SETTING'] },
          'password grant without client credentials while the setting requires them',
        );
        expectTokenOk(
          t,
          await t.oauth.password({ auth: basic ? 'basic' : 'body' }),
          `password grant with ${basic ? 'HTTP Basic' : 'body'} client credentials while the setting requires them`,
          basic ? ['GRANT-PASSWORD-BASIC-AUTH'] : ['GRANT-PASSWORD-CLIENT-CREDENTIALS-SETTING'],
        );
      });
    },
  },
  {
    id: 'grants.password-git-setting-off',
    suite: 'grants',
    title: 'With password authentication for Git over HTTP(S) switched off, the password grant is refused',
    rules: ['GRANT-PASSWORD-GIT-SETTING'],
    needs: ['passwordGrant', 'control', 'settings'],
    async run(t: CheckContext) {
      const auth = t.config.applications?.confidential?.clientSecret ? passwordAuth(t) : 'none';
      await withSetting(t, 'gitPasswordAuth', false, async () => {
        const res = await t.oauth.password({ auth });
        expectOAuthError(
          t,
          res,
          { status: [400, 401], error: STANDARD_ERRORS },
          'password grant while password authentication for Git is off',
        );
      });
      // Switched back on, the same grant works again: the refusal was the setting's doing.
      expectTokenOk(
        t,
        await t.oauth.password({ auth }),
        'password grant after password authentication for Git is back on',
      );
    },
  },
  {
    id: 'grants.password-removed',
    suite: 'grants',
    title: 'From 19.0 grant_type=password is refused with unsupported_grant_type',
    rules: ['VER-PASSWORD-GRANT-REMOVED'],
    async run(t: CheckContext) {
      if (!t.inForce('VER-PASSWORD-GRANT-REMOVED'))
        t.skip(`the password grant is removed from 19.0 (this run: ${t.release})`);
      const user = t.config.user ?? { username: 'root', password: 'not-a-password' };
      const res = await t.http.post(TOKEN_PATH, {
        form: { grant_type: 'password', username: user.username, password: user.password },
        clientBasic: {
          user: t.oauth.app('confidential').clientId,
          password: t.oauth.app('confidential').clientSecret ?? '',
        },
      });
      trackBody(t, res);
      expectOAuthError(
        t,
        res,
        { status: 400, error: 'unsupported_grant_type' },
        'password grant at a release without it',
      );
    },
  },
];
