/**
 * The password answered by a page of links only whose one link goes back to the sign-in: a
 * refusal's "OK" ("Invalid login or password.", then the sign-in form again), or its "Continue"
 * by way of another path. Neither is an interstitial to follow: the refusal is said once and the
 * password sent once. Before, both drivers followed the link as an interstitial's and met the
 * sign-in form signed in, so no refusal was said and the wrong password went out again on every
 * check (a real provider locks the account).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOneRefusal, explain, PAGE_DRIVERS, runWithDriver, startProvider, type Provider } from './provider.js';

/** Two that need the configured user's sign-in, and a third: the refusal said once, the rest skipped. */
const CHECKS = ['grants.consent-denied', 'grants.state-unchanged', 'oidc.id-token'];

/** The refusal page's one link: back to the sign-in itself, or to a page that sends there. */
const BACK = { 'sign-in': '/users/sign_in', 'another path': '/try-again' } as const;
let back: keyof typeof BACK = 'sign-in';
/**
 * Links a refusal page carries beside it, whose words a consent's links also use: a skip link
 * (postpone's words), a Cancel (deny's), a sign-up offer (no's). None decides the application.
 */
const BESIDE = {
  none: '',
  'a skip link': '<a href="#main">Skip to main content</a>',
  'a Cancel': '<a href="/">Cancel</a>',
  'a sign-up offer': '<a href="/users/sign_up">No account? Sign up</a>',
} as const;
let beside: keyof typeof BESIDE = 'none';

let provider: Provider;

beforeAll(async () => {
  provider = await startProvider((method, url) => {
    if (method === 'POST' && url.pathname === '/users/sign_in')
      return () => ({
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: `<html><title>Sign in</title>${BESIDE[beside]}<p>Invalid login or password.</p><a href="${BACK[back]}">${back === 'sign-in' ? 'OK' : 'Continue'}</a></html>`,
      });
    if (method === 'GET' && url.pathname === '/try-again')
      return () => ({ status: 302, headers: { location: '/users/sign_in' } });
    return undefined;
  });
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

/** One run over the provider as it stands: the refusal said once, the password sent once. */
async function refusedOnce(kind: 'form' | 'browser'): Promise<void> {
  provider.answered.length = 0;
  const run = await runWithDriver(provider, kind, CHECKS);
  const why = explain(run.report, run.stderr);
  expectOneRefusal(run.report, why);
  expect(
    provider.answered.filter((r) => r === 'POST /users/sign_in'),
    why,
  ).toHaveLength(1);
}

describe('a refusal page whose one link goes back to the sign-in', () => {
  for (const link of Object.keys(BACK) as (keyof typeof BACK)[])
    it.each(PAGE_DRIVERS)(
      `%s driver, the link to ${link}: the refusal said once, the password sent once`,
      async (kind) => {
        back = link;
        await refusedOnce(kind);
      },
      120_000,
    );
});

describe('a refusal page with links whose words a consent also uses', () => {
  // Before, a page with any link saying approve, deny, postpone, yes or no words read as a consent
  // of links: no refusal said, the wrong password sent again on every check, and the visit counted
  // as signed in.
  for (const link of Object.keys(BESIDE).filter((k) => k !== 'none') as (keyof typeof BESIDE)[])
    it.each(PAGE_DRIVERS)(
      `%s driver, ${link}: the refusal said once, the password sent once`,
      async (kind) => {
        [back, beside] = ['sign-in', link];
        try {
          await refusedOnce(kind);
        } finally {
          beside = 'none';
        }
      },
      120_000,
    );
});
