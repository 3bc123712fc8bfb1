/** GET /oauth/authorize: redirect_uri registration, state round trip, scopes, response_type, consent. */
import fc from 'fast-check';
import type { RuleId } from '../../spec/index.js';
import type { AppRole, Check, CheckContext } from '../types.js';
import { parseForms } from '../drivers/html.js';
import {
  authorizeCode,
  authorizeRedirect,
  broke,
  exchangeCode,
  expectTokenOk,
  jsonObject,
  tokenInfo,
} from '../shared/oauth.js';
import { namedScopes } from './scopes.js';
import { mutationName, narrowApp, redirectMutations, word } from './variants.js';

/** The scopes a code's token holds: the token response's `scope`, else token info. */
async function grantedScopes(t: CheckContext, app: AppRole, code: string): Promise<string[]> {
  const res = await exchangeCode(t, app, code);
  const tokens = expectTokenOk(t, res, 'code exchange after a narrowed authorization', ['GRANT-REDIRECT-WITH-CODE']);
  if (typeof tokens.scope === 'string') return tokens.scope.split(' ').filter(Boolean);
  const info = jsonObject(await tokenInfo(t, tokens.access_token));
  t.expect(Array.isArray(info?.scope), 'token info must list the scopes of the token', broke(['INFO-RESPONSE-FIELDS']));
  return info.scope as string[];
}

/** Did the provider send the user to `foreign` (and not merely back to the registered URI)? */
function landsOn(redirect: URL, foreign: string, registered: URL): boolean {
  const f = new URL(foreign);
  f.hash = '';
  if (f.href === registered.href) return false;
  const sameTarget = redirect.origin === f.origin && redirect.pathname === f.pathname;
  return sameTarget && [...f.searchParams].every(([k, v]) => redirect.searchParams.getAll(k).includes(v));
}

/** Which rules an authorize refusal breaks: `page` the form of the refusal (error page, error redirect), `refusal` issuing a code anyway (default `page`). */
interface RefusalRules {
  page?: RuleId[];
  refusal?: RuleId[];
}

/**
 * A refusal proves a rule only where a consent is given: the same application, asked properly,
 * must get its code first. A target that refuses everything (404, 500) fails the code flow here,
 * and its refusal of the bad request is never counted as the rule holding.
 */
async function expectAuthorizeWorks(t: CheckContext): Promise<void> {
  await authorizeCode(t, 'confidential', {}, ['GRANT-CODE-FLOW']);
}

/** The provider answered an authorize request with an error page: no redirect, a 4xx status. */
async function expectErrorPage(t: CheckContext, url: string, what: string, rules: RefusalRules = {}): Promise<void> {
  const { redirect, response } = await t.driver.authorize(url, 'approve');
  const page = rules.page ?? [];
  const details = { status: response.status, redirectedTo: redirect ? `${redirect.origin}${redirect.pathname}` : null };
  // A code is the worse failure (the request was not refused at all); judged first so it is blamed as such.
  t.expect(
    !redirect?.searchParams.has('code'),
    `${what}: a code was issued`,
    broke([...(rules.refusal ?? page), ...page], details),
  );
  t.expect(!redirect, `${what}: the provider must not redirect`, broke(page, details));
  t.expect(
    response.status >= 400 && response.status < 500,
    `${what}: the error page must answer 4xx`,
    broke(page, { status: response.status }),
  );
}

/** A redirect carrying `error` and the state, and no code. */
function expectErrorRedirect(
  t: CheckContext,
  redirect: URL,
  error: string,
  state: string,
  what: string,
  rules: RefusalRules = {},
): void {
  const got = { error: redirect.searchParams.get('error'), state: redirect.searchParams.get('state') };
  const page = rules.page ?? [];
  t.expect(
    !redirect.searchParams.has('code'),
    `${what}: a code was issued`,
    broke([...(rules.refusal ?? page), ...page], got),
  );
  t.expect(got.error === error, `${what}: the redirect must carry error=${error}`, broke(page, got));
  t.expect(got.state === state, `${what}: the error redirect must carry state unchanged`, broke(page, got));
}

export const authorizeChecks: Check[] = [
  {
    id: 'grants.state-unchanged',
    suite: 'grants',
    title: 'Any state string comes back unchanged in the redirect next to the code; none is added when none was sent',
    rules: ['GRANT-STATE-ECHO', 'GRANT-REDIRECT-WITH-CODE', 'GRANT-AUTHORIZE-PARAMS', 'GRANT-CONSENT'],
    async run(t: CheckContext) {
      await t.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), async (state) => {
        // A state that makes the provider refuse, or not redirect, breaks the authorize parameters (state is one).
        const redirect = await authorizeRedirect(t, 'confidential', { state }, 'approve', [
          'GRANT-AUTHORIZE-PARAMS',
          'GRANT-CONSENT',
        ]);
        const back = redirect.searchParams.get('state');
        t.expect(
          back === state,
          'the redirect must carry state exactly as sent',
          broke(['GRANT-STATE-ECHO'], { sent: state, returned: back }),
        );
        t.expect(
          redirect.searchParams.get('code'),
          'the redirect must carry a code next to state',
          broke(['GRANT-REDIRECT-WITH-CODE', 'GRANT-AUTHORIZE-PARAMS'], { error: redirect.searchParams.get('error') }),
        );
      });
      const bare = await authorizeRedirect(t, 'confidential', { state: undefined }, 'approve', ['GRANT-CONSENT']);
      t.expect(
        !bare.searchParams.has('state'),
        'a redirect for a request without state must carry no state',
        broke(['GRANT-STATE-ECHO'], { state: bare.searchParams.get('state') }),
      );
    },
  },
  {
    id: 'grants.authorize-unregistered-redirect',
    suite: 'grants',
    title: 'Authorization with a redirect_uri that is not registered never redirects to it and issues no code',
    rules: ['GRANT-REDIRECT-URI-REGISTERED'],
    async run(t: CheckContext) {
      const registered = new URL(t.oauth.app('confidential').redirectUri);
      await expectAuthorizeWorks(t);
      await t.property(mutationName, word, async (mutation, w) => {
        const foreign = redirectMutations[mutation](registered, w);
        if (foreign === registered.href) return;
        const { redirect, response } = await t.driver.authorize(
          t.oauth.authorizeUrl('confidential', { redirect_uri: foreign }),
          'approve',
        );
        const details = { status: response.status, mutation };
        t.expect(
          !redirect?.searchParams.has('code'),
          `a code was issued for an unregistered redirect_uri (${mutation})`,
          details,
        );
        t.expect(
          !(redirect && landsOn(redirect, foreign, registered)),
          `authorize redirected to an unregistered redirect_uri (${mutation})`,
          details,
        );
        // The error page must be one: a crash is no page shown to the user.
        t.expect(
          redirect || response.status < 500,
          `authorize with an unregistered redirect_uri (${mutation}) answered ${response.status} instead of an error page`,
          details,
        );
      });
    },
  },
  {
    id: 'grants.scope-outside-application',
    suite: 'grants',
    title:
      'A scope the application was not registered with is never granted (must); the refusal is an invalid_scope redirect (should)',
    rules: ['GRANT-SCOPE-ALLOWED', 'GRANT-SCOPE-INVALID-SCOPE'],
    async run(t: CheckContext) {
      const app = narrowApp(t);
      const own = t.oauth.app(app).scopes;
      const foreign = namedScopes().filter((s) => !own.includes(s));
      if (foreign.length === 0) t.skip(`the ${app} application holds every scope the spec names`);
      await t.property(fc.subarray(own), fc.constantFrom(...foreign), fc.nat(), async (mine, outside, at) => {
        const scopes = [...mine];
        scopes.splice(at % (scopes.length + 1), 0, outside);
        const state = `scope-${at}`;
        const what = `authorize for scope "${scopes.join(' ')}" beyond the application's`;
        const { redirect, response } = await t.driver.authorize(
          t.oauth.authorizeUrl(app, { scope: scopes.join(' '), state }),
          'approve',
        );
        const code = redirect?.searchParams.get('code');
        if (code) {
          // RFC 6749 §3.3 lets the provider narrow the scope: a code is fine if its token lacks the scope.
          const granted = await grantedScopes(t, app, code);
          t.expect(
            !granted.includes(outside),
            `${what}: the token was granted ${outside}, which registration does not allow`,
            broke(['GRANT-SCOPE-ALLOWED'], { granted }),
          );
          return;
        }
        const got = { status: response.status, error: redirect?.searchParams.get('error') ?? null };
        t.expect(
          redirect,
          `${what}: refused on a page, not with an invalid_scope redirect`,
          broke(['GRANT-SCOPE-INVALID-SCOPE'], got),
        );
        expectErrorRedirect(t, redirect, 'invalid_scope', state, what, { page: ['GRANT-SCOPE-INVALID-SCOPE'] });
      });
    },
  },
  {
    id: 'grants.scope-unknown',
    suite: 'grants',
    title: 'Requesting a scope the provider does not know is refused with invalid_scope',
    rules: ['SCOPE-UNKNOWN-REFUSED'],
    async run(t: CheckContext) {
      const known = namedScopes();
      await t.property(
        word.filter((w) => !known.includes(w)),
        async (unknown) => {
          const state = 'scope-unknown';
          const redirect = await authorizeRedirect(t, 'confidential', { scope: unknown, state });
          expectErrorRedirect(t, redirect, 'invalid_scope', state, `authorize for the unknown scope "${unknown}"`);
        },
      );
    },
  },
  {
    id: 'grants.response-type-code-only',
    suite: 'grants',
    title: 'A response_type other than code is answered with unsupported_response_type',
    rules: ['GRANT-RESPONSE-TYPE-CODE'],
    async run(t: CheckContext) {
      await t.property(
        fc.oneof(
          fc.constantFrom('token', 'id_token', 'code token', 'CODE'),
          word.filter((w) => w !== 'code'),
        ),
        async (responseType) => {
          const state = 'response-type';
          const redirect = await authorizeRedirect(t, 'confidential', { response_type: responseType, state });
          expectErrorRedirect(
            t,
            redirect,
            'unsupported_response_type',
            state,
            `authorize with response_type "${responseType}"`,
          );
        },
      );
    },
  },
  {
    id: 'grants.authorize-unknown-client',
    suite: 'grants',
    title: 'An authorize request from an unknown client_id gets an error page and no redirect',
    rules: ['GRANT-UNKNOWN-CLIENT', 'GRANT-APP-REGISTRATION'],
    async run(t: CheckContext) {
      await expectAuthorizeWorks(t);
      await t.property(fc.stringMatching(/^[0-9a-f]{8,64}$/), async (clientId) => {
        if (Object.values(t.config.applications ?? {}).some((a) => a?.clientId === clientId)) return;
        await expectErrorPage(
          t,
          t.oauth.authorizeUrl('confidential', { client_id: clientId }),
          'authorize with an unknown client_id',
          {
            page: ['GRANT-UNKNOWN-CLIENT'],
            refusal: ['GRANT-APP-REGISTRATION'],
          },
        );
      });
    },
  },
  {
    id: 'grants.authorize-missing-parameters',
    suite: 'grants',
    title:
      'Without client_id or redirect_uri no redirect happens; without response_type the redirect carries invalid_request',
    rules: ['GRANT-AUTHORIZE-MISSING-PARAMS'],
    async run(t: CheckContext) {
      await expectErrorPage(
        t,
        t.oauth.authorizeUrl('confidential', { client_id: undefined }),
        'authorize without client_id',
      );
      await expectErrorPage(
        t,
        t.oauth.authorizeUrl('confidential', { redirect_uri: undefined }),
        'authorize without redirect_uri',
      );
      const state = 'missing-response-type';
      const redirect = await authorizeRedirect(t, 'confidential', { response_type: undefined, state });
      expectErrorRedirect(t, redirect, 'invalid_request', state, 'authorize without response_type');
    },
  },
  {
    id: 'grants.consent-denied',
    suite: 'grants',
    title: 'Denying consent redirects with access_denied, the unchanged state and no code',
    rules: ['GRANT-CONSENT-DENIED', 'GRANT-CONSENT'],
    async run(t: CheckContext) {
      const state = 'consent-denied';
      const redirect = await authorizeRedirect(t, 'confidential', { state }, 'deny');
      // A code after a denial was issued without the user's approval.
      expectErrorRedirect(t, redirect, 'access_denied', state, 'authorize denied by the user', {
        page: ['GRANT-CONSENT-DENIED'],
        refusal: ['GRANT-CONSENT'],
      });
    },
  },
  {
    id: 'grants.sign-in-required',
    suite: 'grants',
    title: 'An authorize request without a session is sent to the sign-in page of the provider',
    rules: ['GRANT-SIGN-IN-REQUIRED'],
    async run(t: CheckContext) {
      const url = t.oauth.authorizeUrl('confidential', { state: 'anonymous' });
      const first = await t.http.follow(url, { headers: { accept: 'text/html' } });
      const location = first.headers.get('location');
      t.expect(
        first.status >= 300 && first.status < 400 && location,
        'an anonymous authorize request must redirect to sign in',
        { status: first.status },
      );
      const next = new URL(location, url);
      t.expect(next.origin === new URL(url).origin, 'the sign-in redirect must stay on the provider', {
        redirectedTo: `${next.origin}${next.pathname}`,
      });
      t.expect(!next.searchParams.has('code'), 'no code may be issued before the user signed in');
      const page = await t.http.follow(next.href, { headers: { accept: 'text/html' } });
      const signIn = parseForms(page.text).some((f) => f.fields.some((x) => x.type === 'password'));
      t.expect(page.status === 200 && signIn, 'the redirect must lead to a sign-in form', {
        status: page.status,
        path: next.pathname,
      });
    },
  },
];
