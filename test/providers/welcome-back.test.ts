/**
 * Once the configured user has signed in, every later authorization shows a "Welcome back" page of
 * links only ("Continue as another user", "Continue to app", a help link) before the consent: the
 * session lives on, so the page is an interstitial on every visit, not only on the one that typed
 * the password. Before, only that visit followed it: on later ones the form driver errored "no
 * approve control" and the browser driver pressed the first link its continue selector met (here
 * "Continue as another user").
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectAllPassed, PAGE_DRIVERS, runWithDriver, startProvider, type Provider } from './provider.js';

/** Three checks, each its own authorization: the first signs in, the later two meet the page with a session. */
const CHECKS = ['grants.consent-denied', 'grants.state-unchanged', 'oidc.id-token'];

let provider: Provider;
/** The password went out: from then on the provider greets the user back. */
let signedIn = false;
/** The provider's last request, `METHOD /path`: the consent's own POST goes on to its page. */
let last = '';

beforeAll(async () => {
  provider = await startProvider((method, url) => {
    const before = last;
    last = `${method} ${url.pathname}`;
    if (method === 'POST' && url.pathname === '/users/sign_in') signedIn = true;
    if (!signedIn || method !== 'GET' || url.pathname !== '/oauth/authorize') return undefined;
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
      expectAllPassed(await runWithDriver(provider, kind, CHECKS));
    },
    120_000,
  );
});
