/** GET /oauth/authorize: redirect_uri registration, state round trip, scopes, response_type, consent. */
import fc from 'fast-check';
import type { RuleId } from '../../spec/index.js';
import type { AppRole, AuthorizeOutcome, Check, CheckContext, HttpResponse } from '../types.js';
import { SIGN_IN_DEFAULTS } from '../drivers/defaults.js';
import { granted, handsOverTo, redirectParams, redirectUrisOf, signInGoesOn } from '../drivers/hand-over.js';
import { onwardOf, parseForms, refreshOfAnswer } from '../drivers/html.js';
import { identifierField, signInElsewhere } from '../drivers/sign-in.js';
import { NoVerdict } from '../runner/errors.js';
import { namedState, stateArbitrary } from '../runner/state.js';
import {
  authorizeCode,
  authorizeRedirect,
  broke,
  exchangeCode,
  expectIssuerParam,
  expectTokenOk,
  heldScopes,
  REVOKE_PATH,
  TOKEN_PATH,
} from '../shared/oauth.js';
import { namedScopes } from './scopes.js';
import { mutationName, narrowApp, redirectMutations, word } from './variants.js';

/** The scopes a code's token holds (token info, else the response's `scope`, else those requested: RFC 6749 §5.1). */
async function grantedScopes(t: CheckContext, app: AppRole, code: string, requested: string[]): Promise<string[]> {
  const res = await exchangeCode(t, app, code);
  const tokens = expectTokenOk(t, res, 'code exchange after a narrowed authorization', ['GRANT-REDIRECT-WITH-CODE']);
  return heldScopes(t, tokens, requested);
}

/** Redirects followed from the authorization request to the sign-in page (a gateway's, a login application's). */
const SIGN_IN_HOPS = 5;

/** A code on the way to the sign-in page: issued with no user signed in, so none approved it (GRANT-CONSENT). */
function codeBeforeSignIn(t: CheckContext, at: URL, hop: number): void {
  t.expect(
    !at.searchParams.has('code'),
    'no code may be issued before the user signed in and approved',
    broke(['GRANT-CONSENT'], { hop, redirectedTo: `${at.origin}${at.pathname}` }),
  );
}

/**
 * A code riding an answer's refresh (its Refresh header or meta tag, at any status, after any
 * delay) is judged too, whether or not it is followed (onwardOf follows a 2xx's within
 * REFRESH_MAX_SECONDS): a browser follows every one, and before, a code on a 401 page's refresh,
 * an 11 s one or a header's escaped as a warning (review 14).
 */
function codeOnRefresh(t: CheckContext, answer: HttpResponse, at: URL, hop: number): void {
  const refresh = refreshOfAnswer(answer, Infinity)?.to;
  if (refresh !== undefined && URL.canParse(refresh, at)) codeBeforeSignIn(t, new URL(refresh, at), hop);
}

/** Did the provider send the user to `foreign` (and not merely back to the registered URI)? */
function landsOn(redirect: URL, foreign: string, registered: URL): boolean {
  const f = new URL(foreign);
  f.hash = '';
  return f.href !== registered.href && handsOverTo(redirect.href, f.href);
}

/**
 * What an authorize refusal is judged on. `refusal`: the rules a code breaks (the request was not
 * refused at all: the check's own rule, must where the source says so). `delivery`: the rules of
 * how it was refused, where only RFC 6749 §4.1.2.1 speaks (should): an error redirect when the
 * client and redirect URI are trusted, an error page (4xx) when they are not. For a redirect the
 * default is GRANT-AUTHORIZE-ERROR-REDIRECT; a check whose refusal has its own rule names it instead.
 */
interface Refusal {
  refusal: RuleId[];
  delivery?: RuleId[];
}

/**
 * A refusal proves a rule only where a consent is given: the same application, asked properly,
 * must get its code first. A target that refuses everything (404, 500) fails the code flow here,
 * and its refusal of the bad request is never counted as the rule holding.
 */
async function expectAuthorizeWorks(t: CheckContext): Promise<void> {
  await authorizeCode(t, 'confidential', {}, ['GRANT-CODE-FLOW']);
}

/**
 * The provider answered an untrusted authorize request (unknown client, no client_id or redirect_uri):
 * no code, no redirect, a 4xx page. An answer that decides nothing (NoVerdict) is returned, so the
 * check's next request still runs; a property throws it again to discard its case.
 */
async function expectErrorPage(
  t: CheckContext,
  url: string,
  what: string,
  rules: Refusal,
): Promise<NoVerdict | undefined> {
  let outcome: AuthorizeOutcome;
  try {
    outcome = await t.driver.authorize(url, 'approve', { malformed: true });
  } catch (error) {
    if (error instanceof NoVerdict) return error;
    throw error;
  }
  const { redirect, response } = outcome;
  const page = rules.delivery ?? [];
  const details = { status: response.status, redirectedTo: redirect ? `${redirect.origin}${redirect.pathname}` : null };
  t.soft(!granted(redirect), `${what}: a code was issued`, broke(rules.refusal, details));
  t.soft(!redirect, `${what}: the provider must not redirect`, broke(page, details));
  if (!redirect)
    t.soft(
      response.status >= 400 && response.status < 500,
      `${what}: the error page should answer 4xx`,
      broke(['GRANT-AUTHORIZE-ERROR-PAGE-STATUS'], { status: response.status }),
    );
}

/**
 * A refused authorize request of a trusted client and redirect URI: no code (the rule's must),
 * and, how it is refused (should): a redirect carrying one of `errors`. An error page instead of
 * the redirect breaks only the delivery rules; a redirect without an error, or without the state
 * unchanged, breaks GRANT-AUTHORIZE-ERROR-PARAMS (RFC 6749 §4.1.2.1's REQUIRED members).
 */
function expectRefused(
  t: CheckContext,
  outcome: AuthorizeOutcome,
  errors: string[],
  state: string,
  what: string,
  rules: Refusal,
): void {
  const { redirect, response } = outcome;
  const delivery: RuleId[] = rules.delivery ?? ['GRANT-AUTHORIZE-ERROR-REDIRECT'];
  const params = redirect ? redirectParams(redirect) : undefined;
  const got = { error: params?.get('error') ?? null, state: params?.get('state') ?? null, status: response.status };
  t.soft(!granted(redirect), `${what}: a code was issued`, broke(rules.refusal, got));
  if (!t.soft(redirect, `${what}: the refusal should redirect to the application with an error`, broke(delivery, got)))
    return;
  if (t.soft(got.error !== null, `${what}: the error redirect must carry an error`, broke(MEMBERS, got)))
    t.soft(
      errors.includes(got.error ?? ''),
      `${what}: the error redirect should carry error=${errors.join(' or ')}`,
      broke(delivery, got),
    );
  t.soft(got.state === state, `${what}: the error redirect must carry state unchanged`, broke(MEMBERS, got));
}

/** RFC 6749 §4.1.2.1: the members every error redirect carries (error; state, when it was sent). */
const MEMBERS: RuleId[] = ['GRANT-AUTHORIZE-ERROR-PARAMS'];

/** An http loopback IP literal (RFC 8252 §7.3), where a native app listens on a port of its own. */
const isLoopbackIp = (uri: string) =>
  URL.canParse(uri) && /^http:\/\/(127(\.\d{1,3}){3}|\[::1\])(:\d+)?\//.test(new URL(uri).href);

/** A parameter no specification defines, that an authorization request carries (RFC 6749 §3.1: ignored). */
const UNKNOWN_PARAMETER = 'conformance_probe';

/**
 * A native application (public, PKCE, RFC 8252) with a loopback redirect URI: the config's public
 * one when its URI is loopback, else one made through the simulator control API.
 */
async function loopbackApp(t: CheckContext): Promise<{ clientId: string; redirectUri: string; scope: string }> {
  const own = t.config.applications?.public;
  if (own && isLoopbackIp(own.redirectUri)) return { ...own, scope: own.scopes[0] ?? 'api' };
  if (!t.caps.control || !t.caps.writable)
    t.skip('the public application has no loopback redirect URI, and the harness cannot register one');
  const redirectUri = 'http://127.0.0.1/conformance-loopback/callback';
  const res = await t.http.post('/-/simulator/applications', {
    json: { name: 'conformance loopback', redirectUri, scopes: ['read_user'], confidential: false },
  });
  if (res.status >= 300) t.harness(`the control API did not create a loopback application (status ${res.status})`);
  return { clientId: res.json<{ clientId: string }>().clientId, redirectUri, scope: 'read_user' };
}

export const authorizeChecks: Check[] = [
  {
    id: 'grants.state-unchanged',
    suite: 'grants',
    title: 'Any state string comes back unchanged in the redirect next to the code; none is added when none was sent',
    rules: ['GRANT-STATE-ECHO', 'GRANT-REDIRECT-WITH-CODE', 'GRANT-AUTHORIZE-PARAMS', 'GRANT-CONSENT'],
    async run(t: CheckContext) {
      // At least 8 characters: the source's state is non-predictable (L17, RFC 6749 §10.12), and a
      // provider may refuse a shorter one as too weak (Ory Hydra's invalid_state).
      await t.property(stateArbitrary(), async (state) => {
        // A state that makes the provider refuse, or not redirect, breaks the authorize parameters (state is one).
        const redirect = await authorizeRedirect(t, 'confidential', { state }, 'approve', [
          'GRANT-AUTHORIZE-PARAMS',
          'GRANT-CONSENT',
        ]);
        // An error in place of the code refuses the state (GRANT-AUTHORIZE-PARAMS); no code and no error, the
        // redirect's own rule. Judged first: the state an error redirect carries back is GRANT-AUTHORIZE-ERROR-PARAMS's.
        const error = redirect.searchParams.get('error');
        t.expect(
          redirect.searchParams.get('code'),
          'the redirect must carry a code next to state',
          broke([error ? 'GRANT-AUTHORIZE-PARAMS' : 'GRANT-REDIRECT-WITH-CODE'], { error }),
        );
        const back = redirect.searchParams.get('state');
        t.expect(
          back === state,
          'the redirect must carry state exactly as sent',
          broke(['GRANT-STATE-ECHO'], { sent: state, returned: back }),
        );
      });
      const bare = await authorizeRedirect(t, 'confidential', { state: undefined }, 'approve', ['GRANT-CONSENT']);
      // state is recommended, not required (L125): a request without one refused breaks the parameters.
      t.soft(
        !bare.searchParams.has('error'),
        'an approved request without state must not be refused (state is recommended, not required)',
        broke(['GRANT-AUTHORIZE-PARAMS'], { error: bare.searchParams.get('error') }),
      );
      t.expect(
        !bare.searchParams.has('state'),
        'a redirect for a request without state must carry no state',
        broke(['GRANT-STATE-ECHO'], { state: bare.searchParams.get('state') }),
      );
    },
  },
  {
    id: 'grants.authorize-unknown-parameter',
    suite: 'grants',
    title: 'A parameter the provider does not recognize is ignored: the request is approved as it is without it',
    rules: ['GRANT-AUTHORIZE-UNKNOWN-PARAMS'],
    async run(t: CheckContext) {
      // The premise: the same request without it gets its code (a refusal there is blamed as in every flow).
      await authorizeCode(t, 'confidential', {});
      const { redirect, response, decided } = await t.driver.authorize(
        t.oauth.authorizeUrl('confidential', { [UNKNOWN_PARAMETER]: '1' }),
        'approve',
      );
      // Refused by an error redirect or by a page of its own (Google's "Parameter not allowed"), the same sentence.
      const error = redirect?.searchParams.get('error') ?? null;
      t.expect(
        redirect?.searchParams.has('code') === true,
        `an authorization request with ${UNKNOWN_PARAMETER}=1, a parameter no specification defines, must be served as without it (RFC 6749 §3.1: ignored)`,
        broke(['GRANT-AUTHORIZE-UNKNOWN-PARAMS'], { error, status: response.status, decided: decided ?? null }),
      );
    },
  },
  {
    id: 'grants.loopback-redirect-any-port',
    suite: 'grants',
    title: "A native app's loopback redirect URI is accepted with any port, and the code is redeemed at that URI",
    rules: ['GRANT-REDIRECT-LOOPBACK-PORT'],
    async run(t: CheckContext) {
      const app = await loopbackApp(t);
      const providerPort = new URL(t.http.baseUrl).port;
      const ports = fc.integer({ min: 1024, max: 65535 }).filter((p) => String(p) !== providerPort);
      await t.property(ports, async (port) => {
        const asked = new URL(app.redirectUri);
        if (String(port) === asked.port) return;
        asked.port = String(port);
        const redirectUri = asked.href;
        const { verifier, challenge } = t.oauth.pkce();
        const { redirect, response } = await t.driver.authorize(
          t.oauth.authorizeUrl('public', {
            client_id: app.clientId,
            redirect_uri: redirectUri,
            scope: app.scope,
            state: namedState('loopback'),
            code_challenge: challenge,
            code_challenge_method: 'S256',
          }),
          'approve',
        );
        const code = redirect?.searchParams.get('code');
        t.expect(
          code && handsOverTo(redirect!.href, redirectUri),
          `the loopback redirect URI with port ${port} was refused (RFC 8252 §7.3: any port)`,
          { port, status: response.status, error: redirect?.searchParams.get('error') ?? null },
        );
        const res = await t.http.post(TOKEN_PATH, {
          form: {
            grant_type: 'authorization_code',
            code,
            redirect_uri: redirectUri,
            client_id: app.clientId,
            code_verifier: verifier,
          },
        });
        const body = expectTokenOk(t, res, `code exchange at the loopback redirect URI with port ${port}`);
        for (const token of [body.access_token, body.refresh_token])
          if (token) await t.http.post(REVOKE_PATH, { form: { token, client_id: app.clientId } });
      });
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
          { malformed: true },
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
    rules: ['GRANT-SCOPE-ALLOWED', 'GRANT-SCOPE-INVALID-SCOPE', 'GRANT-AUTHORIZE-ERROR-PARAMS'],
    async run(t: CheckContext) {
      const app = narrowApp(t);
      const own = t.oauth.app(app).scopes;
      const foreign = namedScopes().filter((s) => !own.includes(s));
      if (foreign.length === 0) t.skip(`the ${app} application holds every scope the spec names`);
      await t.property(fc.subarray(own), fc.constantFrom(...foreign), fc.nat(), async (mine, outside, at) => {
        const scopes = [...mine];
        scopes.splice(at % (scopes.length + 1), 0, outside);
        const state = namedState(`scope-${at}`);
        const what = `authorize for scope "${scopes.join(' ')}" beyond the application's`;
        const outcome = await t.driver.authorize(
          t.oauth.authorizeUrl(app, { scope: scopes.join(' '), state }),
          'approve',
          { refusable: true },
        );
        const code = outcome.redirect?.searchParams.get('code');
        if (code) {
          // RFC 6749 §3.3 lets the provider narrow the scope: a code is fine if its token lacks the scope.
          const held = await grantedScopes(t, app, code, scopes);
          t.expect(
            !held.includes(outside),
            `${what}: the token was granted ${outside}, which registration does not allow`,
            broke(['GRANT-SCOPE-ALLOWED'], { granted: held }),
          );
          return;
        }
        expectRefused(t, outcome, ['invalid_scope'], state, what, {
          refusal: ['GRANT-SCOPE-ALLOWED'],
          delivery: ['GRANT-SCOPE-INVALID-SCOPE'],
        });
      });
    },
  },
  {
    id: 'grants.scope-unknown',
    suite: 'grants',
    title: 'Requesting a scope the provider does not know is refused with invalid_scope',
    rules: ['SCOPE-UNKNOWN-REFUSED', 'GRANT-AUTHORIZE-ERROR-REDIRECT', 'GRANT-AUTHORIZE-ERROR-PARAMS'],
    async run(t: CheckContext) {
      const known = namedScopes();
      await t.property(
        word.filter((w) => !known.includes(w)),
        async (unknown) => {
          const state = namedState('scope-unknown');
          const outcome = await t.driver.authorize(
            t.oauth.authorizeUrl('confidential', { scope: unknown, state }),
            'approve',
            { refusable: true },
          );
          expectRefused(t, outcome, ['invalid_scope'], state, `authorize for the unknown scope "${unknown}"`, {
            refusal: ['SCOPE-UNKNOWN-REFUSED'],
          });
        },
      );
    },
  },
  {
    id: 'grants.response-type-code-only',
    suite: 'grants',
    title: 'A response_type other than code issues no code; the refusal redirects with unsupported_response_type',
    rules: ['GRANT-RESPONSE-TYPE-CODE', 'GRANT-AUTHORIZE-ERROR-REDIRECT', 'GRANT-AUTHORIZE-ERROR-PARAMS'],
    async run(t: CheckContext) {
      await t.property(
        fc.oneof(
          fc.constantFrom('token', 'id_token', 'code token', 'CODE'),
          word.filter((w) => w !== 'code'),
        ),
        async (responseType) => {
          const state = namedState('response-type');
          const outcome = await t.driver.authorize(
            t.oauth.authorizeUrl('confidential', { response_type: responseType, state }),
            'approve',
            { refusable: true },
          );
          expectRefused(
            t,
            outcome,
            ['unsupported_response_type'],
            state,
            `authorize with response_type "${responseType}"`,
            { refusal: ['GRANT-RESPONSE-TYPE-CODE'] },
          );
        },
      );
    },
  },
  {
    id: 'grants.authorize-unknown-client',
    suite: 'grants',
    title: 'An authorize request from an unknown client_id gets an error page and no redirect',
    rules: ['GRANT-UNKNOWN-CLIENT', 'GRANT-APP-REGISTRATION', 'GRANT-AUTHORIZE-ERROR-PAGE-STATUS'],
    async run(t: CheckContext) {
      await expectAuthorizeWorks(t);
      await t.property(fc.stringMatching(/^[0-9a-f]{8,64}$/), async (clientId) => {
        if (Object.values(t.config.applications ?? {}).some((a) => a?.clientId === clientId)) return;
        const undecided = await expectErrorPage(
          t,
          t.oauth.authorizeUrl('confidential', { client_id: clientId }),
          'authorize with an unknown client_id',
          {
            delivery: ['GRANT-UNKNOWN-CLIENT'],
            refusal: ['GRANT-APP-REGISTRATION', 'GRANT-UNKNOWN-CLIENT'],
          },
        );
        if (undecided) throw undecided;
      });
    },
  },
  {
    id: 'grants.authorize-missing-parameters',
    suite: 'grants',
    title:
      'Without client_id or redirect_uri no redirect happens; without response_type the redirect carries invalid_request',
    rules: [
      'GRANT-AUTHORIZE-MISSING-PARAMS',
      'GRANT-AUTHORIZE-ERROR-REDIRECT',
      'GRANT-AUTHORIZE-ERROR-PARAMS',
      'GRANT-AUTHORIZE-ERROR-PAGE-STATUS',
    ],
    async run(t: CheckContext) {
      for (const missing of ['client_id', 'redirect_uri']) {
        const what = `authorize without ${missing}`;
        const undecided = await expectErrorPage(
          t,
          t.oauth.authorizeUrl('confidential', { [missing]: undefined }),
          what,
          {
            refusal: ['GRANT-AUTHORIZE-MISSING-PARAMS'],
            delivery: ['GRANT-AUTHORIZE-MISSING-PARAMS'],
          },
        );
        // The later requests decide the check; this one is said, never dropped without a word.
        if (undecided) t.note(`decided nothing: ${what} (${undecided.message})`);
      }
      const state = namedState('missing-response-type');
      const outcome = await t.driver.authorize(
        t.oauth.authorizeUrl('confidential', { response_type: undefined, state }),
        'approve',
        { refusable: true },
      );
      // RFC 6749 §4.1.2.1: invalid_request for a missing parameter; unsupported_response_type is also read that way.
      expectRefused(
        t,
        outcome,
        ['invalid_request', 'unsupported_response_type'],
        state,
        'authorize without response_type',
        {
          refusal: ['GRANT-AUTHORIZE-MISSING-PARAMS'],
          delivery: ['GRANT-AUTHORIZE-MISSING-PARAMS', 'GRANT-AUTHORIZE-ERROR-REDIRECT'],
        },
      );
    },
  },
  {
    id: 'grants.consent-denied',
    suite: 'grants',
    title: 'Denying consent redirects with access_denied, the unchanged state and no code',
    rules: ['GRANT-CONSENT-DENIED', 'GRANT-CONSENT', 'GRANT-AUTHORIZE-ERROR-REDIRECT', 'GRANT-AUTHORIZE-ERROR-PARAMS'],
    async run(t: CheckContext) {
      const state = namedState('consent-denied');
      // A provider that remembers an earlier approval (Keycloak, Okta, Hydra) asks again only when
      // told to (OIDC Core §3.1.2.1); one that knows no prompt ignores it (RFC 6749 §3.1).
      const url = t.oauth.authorizeUrl('confidential', { state, prompt: 'consent' });
      const outcome = await t.driver.authorize(url, 'deny');
      await expectIssuerParam(t, outcome.redirect);
      // Nobody denied: the provider asked nothing (a consent it remembered) or offered no deny control.
      // Whatever it answered then says nothing about denial. A code handed over with nothing pressed
      // past the sign-in, by a provider that showed a consent earlier in the run, is a missing premise
      // (a consent it remembered, none to deny). A step the driver took may have been the approval,
      // and a run that never met a consent cannot tell a remembered one from none at all: the
      // harness's trouble, said with the grant it may have made.
      if (outcome.decided === false && granted(outcome.redirect)) {
        const grant =
          "the code it handed over is a grant on the configured user's account (nothing was exchanged): revoke it in the provider";
        if (!outcome.stepped && outcome.consentSeen)
          t.skip(
            `the provider granted the authorization without showing a consent to deny (one it remembered; prompt=consent, which this check sends, was not honoured): nothing was denied; ${grant}`,
          );
        t.harness(
          outcome.stepped
            ? `asked to deny, the driver pressed or followed a step past the sign-in and the provider handed over a code: that step may have been the approval, so nothing was denied; ${grant}`
            : `the provider handed over a code without showing a consent (prompt=consent sent), and no consent was met earlier in this run: the driver had nothing to deny; ${grant}`,
        );
      }
      if (outcome.decided === false)
        t.harness(
          outcome.redirect
            ? 'the provider redirected without the driver pressing deny (no consent form was shown, or it had no deny control): nothing was denied'
            : `the driver found no deny control on the consent page (status ${outcome.response.status})`,
        );
      // A code after a denial was issued without the user's approval.
      expectRefused(t, outcome, ['access_denied'], state, 'authorize denied by the user', {
        refusal: ['GRANT-CONSENT'],
        delivery: ['GRANT-CONSENT-DENIED', 'GRANT-AUTHORIZE-ERROR-REDIRECT'],
      });
    },
  },
  {
    id: 'grants.sign-in-required',
    suite: 'grants',
    title: 'An authorize request without a session is sent to the sign-in page of the provider',
    rules: ['GRANT-SIGN-IN-REQUIRED'],
    async run(t: CheckContext) {
      const url = t.oauth.authorizeUrl('confidential', { state: namedState('anonymous') });
      const first = await t.http.follow(url, { headers: { accept: 'text/html' } });
      // A redirect, or a page that refreshes there (RFC 6749 §1.7: any way the user-agent has).
      const location = onwardOf(first)?.to;
      codeOnRefresh(t, first, new URL(url), 1);
      // The one check that reports an absent authorization endpoint (the run skips what needs it).
      t.expect(
        first.status !== 404,
        'GET /oauth/authorize answered 404: the provider has no authorization endpoint',
        broke(['GRANT-CODE-FLOW'], { status: first.status }),
      );
      t.expect(location !== undefined, 'an anonymous authorize request must redirect to sign in', {
        status: first.status,
      });
      t.expect(URL.canParse(location, url), `the sign-in redirect's Location is not a URL: ${location.slice(0, 200)}`, {
        status: first.status,
      });
      let next = new URL(location, url);
      // The cookies the provider sets on the way (its interaction session), as a browser sends them back.
      const cookies = new Map<string, string>();
      const keep = (answer: typeof first) => {
        for (const c of answer.headers.getSetCookie()) {
          const [pair] = c.split(';');
          cookies.set(pair.split('=')[0].trim(), pair);
        }
      };
      keep(first);
      let page = first;
      // The sign-in page may be a few redirects away (a gateway's, a login application's own).
      for (let hop = 0; ; hop++) {
        // At whichever hop a code comes, that is the sentence broken (not leaving the provider): a
        // code before any sign-in is a code no user approved (L130, RFC 6749 §3.1). The URL past
        // the last hop followed is judged for that alone.
        codeBeforeSignIn(t, next, hop);
        if (hop === SIGN_IN_HOPS) break;
        // The provider's origins: the target's, and those the config trusts (a separate sign-in host).
        const away = t.http.leaves(next.href);
        // A login application elsewhere the config does not trust: its premise, said once (sign-in.ts).
        if (away && signInGoesOn(next.href, redirectUrisOf(t.config), t.oauth.app('confidential').redirectUri))
          signInElsewhere(t.http, next, away);
        t.expect(!away, `the sign-in redirect must stay on the provider: it ${away}`, {
          redirectedTo: `${next.origin}${next.pathname}`,
        });
        const cookie = [...cookies.values()].join('; ');
        page = await t.http.follow(next.href, { headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } });
        keep(page);
        codeOnRefresh(t, page, next, hop + 1);
        const further = onwardOf(page)?.to;
        if (further === undefined || !URL.canParse(further, next)) break;
        next = new URL(further, next);
      }
      // A form asking for the password, or for the username alone (the password on the next page).
      const loginField = t.config.driver?.loginField ?? SIGN_IN_DEFAULTS.loginField;
      const signIn = parseForms(page.text).some(
        (f) => f.fields.some((x) => x.type === 'password') || identifierField(f, loginField),
      );
      t.expect(page.status === 200 && signIn, 'the redirect must lead to a sign-in form', {
        status: page.status,
        path: next.pathname,
      });
    },
  },
];
