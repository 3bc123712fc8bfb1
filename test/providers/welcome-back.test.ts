/**
 * Once the configured user has signed in, every later authorization shows a "Welcome back" page of
 * links only ("Continue as another user", "Continue to app", a help link) before the consent: the
 * session lives on, so the page is an interstitial on every visit, not only on the one that typed
 * the password. Before, only that visit followed it: on later ones the form driver errored "no
 * approve control" and the browser driver pressed the first link its continue selector met (here
 * "Continue as another user").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checksWith,
  expectAllPassed,
  explain,
  PAGE_DRIVERS,
  rulesWith,
  runWithDriver,
  startProvider,
  type Provider,
} from './provider.js';

/** Three checks, each its own authorization: the first signs in, the later two meet the page with a session. */
const CHECKS = ['grants.consent-denied', 'grants.state-unchanged', 'oidc.id-token'];

let provider: Provider;
/** The password went out: from then on the provider greets the user back. */
let signedIn = false;
/** The provider's last request, `METHOD /path`: the consent's own POST goes on to its page. */
let last = '';
/** An unknown scope is refused after the sign-in, past the page, with a 400 error page (lawful). */
let scopeErrorPage = false;
/**
 * The page's link hands a code over at once, whatever the visit came to decide: in the query, or
 * in the fragment (response_mode=fragment, a hybrid answer).
 */
let linkGrants: 'query' | 'fragment' | undefined;

beforeAll(async () => {
  provider = await startProvider((method, url) => {
    const before = last;
    last = `${method} ${url.pathname}`;
    if (method === 'POST' && url.pathname === '/users/sign_in') signedIn = true;
    const unknownScope = scopeErrorPage && url.searchParams.get('state') === 'scope-unknown';
    if (unknownScope && !signedIn && url.pathname === '/oauth/authorize')
      return () => ({
        status: 302,
        headers: { location: `/users/sign_in?redirect_to=${encodeURIComponent(url.pathname + url.search)}` },
      });
    if (!signedIn || method !== 'GET' || url.pathname !== '/oauth/authorize') return undefined;
    const redirectUri = url.searchParams.get('redirect_uri');
    if (linkGrants && redirectUri && url.searchParams.has('seen')) {
      const to = new URL(redirectUri);
      const answer = new URLSearchParams({ code: 'granted-by-the-link', state: url.searchParams.get('state') ?? '' });
      if (linkGrants === 'fragment') to.hash = answer.toString();
      else for (const [name, value] of answer) to.searchParams.set(name, value);
      return () => ({ status: 302, headers: { location: to.href } });
    }
    if (unknownScope && url.searchParams.has('seen'))
      return () => ({
        status: 400,
        headers: { 'content-type': 'text/html' },
        body: '<html><title>Error</title><p>The requested scope is invalid.</p></html>',
      });
    if (url.searchParams.has('seen') || before === 'POST /oauth/authorize') return undefined;
    const onward = `${url.pathname}${url.search}&seen=1`.replace(/&/g, '&amp;');
    return () => ({
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: `<html><title>Welcome back</title><p>Welcome back, root.</p><a href="/help">Help</a> <a href="/users/switch">Continue as another user</a> <a href="${onward}">Continue to app</a></html>`,
    });
  });
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

describe('a "Welcome back" page on every authorization once signed in', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: its one continuation followed on every visit, every check passes',
    async (kind) => {
      signedIn = false;
      scopeErrorPage = false;
      expectAllPassed(await runWithDriver(provider, kind, CHECKS));
    },
    120_000,
  );
});

const LATER = ['grants.consent-denied', 'oidc.id-token'];

describe('a "Welcome back" page after the password whose link leads to a lawful 400 error page', () => {
  // The unknown scope is refused after the sign-in with an error page (the error redirect is a
  // should): that 400 answers the link, not the password. Before, the form driver read it as the
  // sign-in refused, said for the run, and every later check was skipped.
  it.each(PAGE_DRIVERS)(
    '%s driver: the check warns on the error page, the sign-in went through, the rest pass',
    async (kind) => {
      signedIn = false;
      scopeErrorPage = true;
      // The unknown scope's authorization comes first: its visit types the password.
      const run = await runWithDriver(provider, kind, ['grants.scope-unknown', ...LATER]);
      const why = explain(run.report, run.stderr);
      expect(checksWith(run.report, 'errored', 'skipped', 'failed'), why).toEqual([]);
      expect(rulesWith(run.report, 'warned'), why).toEqual(['GRANT-AUTHORIZE-ERROR-REDIRECT']);
      expect(checksWith(run.report, 'passed'), why).toEqual(LATER);
    },
    120_000,
  );
});

describe('a "Welcome back" page whose one link, in effect the approval, hands a code over', () => {
  // Asked to deny, the driver followed the link, and nothing it decided approved: the harness's own
  // trouble (the denial was not made), never GRANT-CONSENT-DENIED failed on the provider. A code in
  // the fragment is one too (before, only the query was read: "redirected without the driver
  // pressing deny" instead).
  it.each(PAGE_DRIVERS.flatMap((kind) => (['query', 'fragment'] as const).map((where) => [kind, where] as const)))(
    '%s driver, the code in the %s: the denial errs saying the link approved, nothing is blamed',
    async (kind, where) => {
      signedIn = false;
      scopeErrorPage = false;
      linkGrants = where;
      try {
        const run = await runWithDriver(provider, kind, ['grants.consent-denied']);
        const why = explain(run.report, run.stderr);
        expect(checksWith(run.report, 'errored'), why).toEqual(['grants.consent-denied']);
        expect(run.report.checks[0]?.message, why).toMatch(
          /followed the one link .* that link approved, .* the application may hold a grant on the configured user.s account/,
        );
      } finally {
        linkGrants = undefined;
      }
    },
    120_000,
  );
});
