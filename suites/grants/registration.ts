/**
 * Application registration through the user-settings page, and the instance setting that gates the
 * password grant. Registration changes the target, so it runs only where the harness may write.
 */
import type { RuleId } from '../../spec/index.js';
import type { Check, CheckContext } from '../types.js';
import { createBrowser } from '../drivers/form.js';
import type { HtmlForm } from '../drivers/html.js';
import { namedState } from '../runner/state.js';
import { clientCredentials } from '../runner/oauth.js';
import { decodeEntities } from '../drivers/html.js';
import { withSetting } from './settings.js';
import {
  broke,
  expectAccessAlive,
  expectOAuthError,
  exchangeRefusalRules,
  expectTokenOk,
  jsonObject,
  REVOKE_PATH,
  shownScopes,
  TOKEN_PATH,
} from '../shared/oauth.js';

const APPLICATIONS_PATH = '/user_settings/applications';
/** The registration form's submit button, as the real service and the simulator label it. */
const SAVE_BUTTON = 'Save application';
const SETTINGS_PATH = '/api/v4/application/settings';

/** The value a result page shows next to a label (`<dt>Label</dt><dd><code>value</code>`, or an input). */
function shown(html: string, label: RegExp): string | undefined {
  const m = new RegExp(
    `${label.source}[\\s\\S]{0,200}?<(?:code|input)[^>]*?(?:value="([^"]+)"[^>]*)?>([^<]*)`,
    'i',
  ).exec(html);
  const value = m?.[1] ?? m?.[2];
  return value ? decodeEntities(value.trim()) : undefined;
}

/** Fill and submit the registration form of /user_settings/applications as the configured user. */
async function submitRegistration(t: CheckContext, name: string, redirectUri: string, scope: string) {
  let form: HtmlForm | undefined;
  // The browser picks consent buttons by their words; here the button to press is the form's save button.
  const browser = createBrowser(t.http, {
    ...t.config,
    driver: { kind: 'form', ...t.config.driver, approveSelector: SAVE_BUTTON },
  });
  const result = await browser.browse(`${t.http.baseUrl}${APPLICATIONS_PATH}`, 'approve', (f) => {
    form = f;
    const redirectField = f.fields.find((x) => /redirect_uri/i.test(x.name))?.name ?? 'application[redirect_uri]';
    const prefix = redirectField.replace(/\[redirect_uri\]$/i, '');
    return { [`${prefix}[name]`]: name, [redirectField]: redirectUri, [`${prefix}[scopes][]`]: scope };
  });
  // The page shows the new application's secret: it must never reach a report.
  t.oauth.conceal(shown(result.response.text, /Secret/));
  return { form, result };
}

export const registrationChecks: Check[] = [
  {
    id: 'grants.redirect-uri-https',
    suite: 'grants',
    title:
      'Outside development mode a plain-HTTP redirect URI cannot be registered and an HTTPS one can; in development mode plain HTTP (loopback included) is accepted',
    rules: ['GRANT-REDIRECT-URI-HTTPS'],
    needs: ['writable', 'settings'],
    async run(t: CheckContext) {
      const unique = `${t.seed >>> 0}${Date.now().toString(36)}`;
      const register = async (mode: string, uri: string) => {
        const { form, result } = await submitRegistration(t, `conformance ${mode} ${unique}`, uri, 'read_user');
        t.expect(form && result.decided, `${APPLICATIONS_PATH} must offer a registration form`, {
          status: result.response.status,
          rules: ['GRANT-APP-REGISTRATION'],
        });
        return result.response.status < 300 && /Application ID/.test(result.response.text);
      };
      await withSetting(t, 'developmentMode', false, async () => {
        const http = `http://registered-${unique}.test/callback`;
        t.expect(
          !(await register('production', http)),
          `in production the plain-HTTP redirect URI ${http} was registered`,
        );
        const https = `https://registered-${unique}.test/callback`;
        t.expect(await register('production', https), `in production the HTTPS redirect URI ${https} was refused`);
      });
      await withSetting(t, 'developmentMode', true, async () => {
        for (const uri of [`http://registered-${unique}.test/callback`, 'http://127.0.0.1:8123/callback']) {
          t.expect(
            await register('development', uri),
            `in development mode the plain-HTTP redirect URI ${uri} was refused`,
          );
        }
      });
    },
  },
  {
    id: 'grants.application-registration',
    suite: 'grants',
    title:
      'Registering an application on /user_settings/applications yields an Application ID and Client Secret that work with its redirect URI and scopes',
    rules: ['GRANT-APP-REGISTRATION-FIELDS', 'GRANT-APP-REGISTRATION', 'GRANT-CODE-FLOW'],
    needs: ['writable'],
    async run(t: CheckContext) {
      const unique = `${t.seed >>> 0}${Date.now().toString(36)}`;
      const redirectUri = `https://registered-${unique}.test/callback`;
      const scope = 'read_user';
      const { form, result } = await submitRegistration(t, `conformance ${unique}`, redirectUri, scope);
      const registering: RuleId[] = ['GRANT-APP-REGISTRATION', 'GRANT-APP-REGISTRATION-FIELDS'];
      t.expect(
        form && result.decided,
        `${APPLICATIONS_PATH} must offer a registration form`,
        broke(registering, { status: result.response.status }),
      );
      t.expect(
        result.response.status < 300,
        'registering an application must succeed',
        broke(registering, { status: result.response.status }),
      );
      const clientId = shown(result.response.text, /Application ID/);
      const clientSecret = shown(result.response.text, /Secret/);
      t.expect(
        clientId && clientSecret,
        'the registration result must show the Application ID and the Client Secret',
        broke(['GRANT-APP-REGISTRATION-FIELDS'], { id: Boolean(clientId), secret: Boolean(clientSecret) }),
      );
      // From here the registered credentials, redirect URI and scope must work in the plain code flow.
      const working: RuleId[] = ['GRANT-APP-REGISTRATION-FIELDS', 'GRANT-CODE-FLOW'];
      // The new credentials must work: the code flow with the registered redirect URI and scope.
      const url = t.oauth.authorizeUrl('confidential', {
        client_id: clientId,
        redirect_uri: redirectUri,
        scope,
        state: namedState(`reg-${unique}`),
      });
      const { redirect, response } = await t.driver.authorize(url, 'approve');
      const code = redirect?.searchParams.get('code');
      t.expect(
        code && redirect?.href.startsWith(redirectUri),
        'the registered application must obtain a code at its redirect URI',
        broke(working, { status: response.status, error: redirect?.searchParams.get('error') ?? null }),
      );
      // The way the provider takes secrets: by HTTP Basic where the start-up found the configured
      // application's refused in the body (AUTH-CLIENT-BODY's, judged once elsewhere).
      const basic = Object.keys(t.caps.clientBodyRefused ?? {}).length > 0;
      const post = (path: string, form: Record<string, string | undefined>, secret: string) => {
        const { fields, clientBasic } = clientCredentials({ clientId, clientSecret: secret }, basic ? 'basic' : 'body');
        return t.http.post(path, { form: { ...form, ...fields }, clientBasic });
      };
      const exchange = (form: Record<string, string | undefined>, secret: string) => post(TOKEN_PATH, form, secret);
      const res = await exchange({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }, clientSecret);
      // invalid_client to the credentials just shown in the body: how the client authenticates is to blame.
      const body = expectTokenOk(
        t,
        res,
        'code exchange with the registered credentials',
        basic ? working : exchangeRefusalRules(res, true, working),
      );
      try {
        const held = await shownScopes(t, body);
        // Shown by token info, introspection or the response; where none shows it, not judged.
        if (held)
          t.soft(
            JSON.stringify(held) === JSON.stringify([scope]),
            'the token must carry the registered scope',
            broke(['GRANT-APP-REGISTRATION-FIELDS'], { scope: held }),
          );
        await expectAccessAlive(t, body.access_token, 'the token of the registered application', ['GRANT-CODE-FLOW']);
        const wrong = await exchange(
          { grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: redirectUri },
          `${clientSecret}x`,
        );
        // The plain code flow authenticates with the client secret: a wrong one must not pass. A server
        // that looks at the code first refuses the bogus code with invalid_grant (RFC 6749 fixes no order).
        expectOAuthError(
          t,
          wrong,
          { status: [400, 401], error: ['invalid_client', 'invalid_grant'], rules: ['GRANT-CODE-FLOW'] },
          'a wrong secret for the registered application',
        );
      } finally {
        // Revoked with the new application's own credentials (the run's cleanup knows only the configured ones).
        for (const token of [body.access_token, body.refresh_token]) {
          if (token) await post(REVOKE_PATH, { token }, clientSecret);
        }
      }
    },
  },
  {
    id: 'grants.password-git-setting',
    suite: 'grants',
    title:
      'The password grant is refused while password authentication for Git over HTTP(S) is off, and works while it is on',
    rules: ['GRANT-PASSWORD-GIT-SETTING'],
    needs: ['pat'],
    async run(t: CheckContext) {
      if (!t.config.user) t.skip('the target config names no user for the password grant');
      const settings = await t.http.get(SETTINGS_PATH, { headers: { 'PRIVATE-TOKEN': t.config.personalAccessToken! } });
      const allowed = jsonObject(settings)?.password_authentication_enabled_for_git;
      if (settings.status !== 200 || typeof allowed !== 'boolean')
        t.skip(
          `${SETTINGS_PATH} does not tell the setting (status ${settings.status}; an administrator's token is needed)`,
        );
      const res = await t.oauth.password();
      // The rule says when the grant must be refused (the setting off), not that it must work while
      // on: the configured user may have two-factor authentication (source L245), or the config a
      // wrong password. A refusal then shows nothing about the rule: the premise is missing.
      // invalid_client refuses the client's authentication, not the user's password: said as such.
      if (allowed && res.status >= 400 && res.status < 500)
        t.skip(
          jsonObject(res)?.error === 'invalid_client'
            ? `the password grant of the configured user was refused with invalid_client (status ${res.status}) while the setting allows it: the client's authentication was refused, not the user`
            : `the password grant of the configured user was refused (status ${res.status}) while the setting allows it: a wrong password in the config, or a user with two-factor authentication`,
        );
      if (allowed) {
        t.expect(
          res.status === 200,
          `the password grant answered ${res.status} while password authentication for Git is allowed`,
          { status: res.status, rules: ['GRANT-PASSWORD-GIT-SETTING'] },
        );
        expectTokenOk(t, res, 'password grant while password authentication for Git is allowed');
      } else
        t.expect(
          res.status >= 400 && res.status < 500,
          'the password grant must be refused while password authentication for Git is off',
          { status: res.status, rules: ['GRANT-PASSWORD-GIT-SETTING'] },
        );
    },
  },
];
