/**
 * A consent that is a page of one link: once signed in, the authorization answers a page naming
 * the application's scopes whose only link, "Continue", approves (the consent implicit in its
 * text, as some providers grant on a plain continue link). Asked to deny, a driver must never
 * follow it: following it is the approval, made on the configured user's real account. Before,
 * both drivers took the page for an interstitial, followed the link and the provider issued a
 * code (the check then erred, but the grant was made).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checksWith, explain, PAGE_DRIVERS, runWithDriver, startProvider, type Provider } from './provider.js';

let provider: Provider;
/** The password went out: from then on the authorization answers the page. */
let signedIn = false;
/** Codes the provider issued by its one link. */
let issued = 0;
/** The link's words: a step's, or (pressed by the browser driver's continue selector alone) a way back. */
let label = 'Continue';
/** How the page is written: naming the scopes, in a person's words, or as a consent of links. */
let page: 'scopes' | 'people' | 'links' = 'scopes';

beforeAll(async () => {
  provider = await startProvider((method, url) => {
    if (method === 'POST' && url.pathname === '/users/sign_in') signedIn = true;
    if (!signedIn || method !== 'GET' || url.pathname !== '/oauth/authorize') return undefined;
    const redirectUri = url.searchParams.get('redirect_uri');
    if (redirectUri && url.searchParams.has('go')) {
      issued++;
      const to = new URL(redirectUri);
      to.searchParams.set('code', `granted-by-the-link-${issued}`);
      to.searchParams.set('state', url.searchParams.get('state') ?? '');
      return () => ({ status: 302, headers: { location: to.href } });
    }
    const scopes = (url.searchParams.get('scope') ?? '').split(' ').map((s) => `<li>${s}</li>`);
    const onward = `${url.pathname}${url.search}&go=1`.replace(/&/g, '&amp;');
    const back = `${url.pathname}${url.search}&no=1`.replace(/&/g, '&amp;');
    const body = {
      scopes: `<p>By continuing, you let the application use your account with:</p><ul>${scopes.join('')}</ul><a href="${onward}">${label}</a>`,
      // As consents are written for people: the application by its display name, the scopes in words.
      people: `<h1>Sample App would like to access your account</h1><p>It will be able to see your name and e-mail address.</p><a href="${onward}">${label}</a>`,
      // A consent of links whose approving link says a step's word too, its other link no deny word.
      links: `<h1>Sample App</h1><a href="${onward}">Accept and continue</a> <a href="${back}">Not me</a>`,
    }[page];
    return () => ({
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: `<html><title>Authorize</title>${body}</html>`,
    });
  });
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

/** Each page driver with "Continue"; the browser driver with "Return to the application" too (its continue selector's words). */
const ROWS = [
  ...PAGE_DRIVERS.map((kind) => ({ kind, words: 'Continue' })),
  ...PAGE_DRIVERS.filter((kind) => kind === 'browser').map((kind) => ({ kind, words: 'Return to the application' })),
];

describe('a consent whose one link approves', () => {
  it.each(ROWS)(
    '$kind driver, "$words": a denial never follows it: no code issued, the check errs saying why, no sign-in refused',
    async ({ kind, words }) => {
      [issued, label, signedIn, page] = [0, words, false, 'scopes'];
      const run = await runWithDriver(provider, kind, ['grants.consent-denied']);
      const why = explain(run.report, run.stderr);
      expect(issued, why).toBe(0);
      expect(checksWith(run.report, 'errored'), why).toEqual(['grants.consent-denied']);
      expect(run.report.checks[0]?.message, why).toMatch(
        /asked to deny, the page of links only at \/oauth\/authorize names the scope .* its one link was not followed/,
      );
    },
    120_000,
  );
});

describe('a consent written for people, or of links whose approving link says "continue"', () => {
  it.each(PAGE_DRIVERS.flatMap((kind) => (['people', 'links'] as const).map((written) => ({ kind, written }))))(
    '$kind driver, $written: a denial never follows or presses the approval: no code issued, the check errs saying why',
    async ({ kind, written }) => {
      [issued, label, signedIn, page] = [0, 'Continue', false, written];
      const run = await runWithDriver(provider, kind, ['grants.consent-denied']);
      const why = explain(run.report, run.stderr);
      expect(issued, why).toBe(0);
      expect(checksWith(run.report, 'errored'), why).toEqual(['grants.consent-denied']);
      if (written === 'people')
        expect(run.report.checks[0]?.message, why).toMatch(
          /asks for consent \(“would like to access your”\).* was not followed/,
        );
    },
    120_000,
  );
});
