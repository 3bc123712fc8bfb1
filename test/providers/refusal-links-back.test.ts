/**
 * The password answered by a page of links only whose one link goes back to the sign-in: a
 * refusal's "OK" ("Invalid login or password.", then the sign-in form again), or its "Continue"
 * by way of another path. Neither is an interstitial to follow: the refusal is said once and the
 * password sent once. Before, both drivers followed the link as an interstitial's and met the
 * sign-in form signed in, so no refusal was said and the wrong password went out again on every
 * check (a real provider locks the account).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checksWith,
  expectOneRefusal,
  explain,
  PAGE_DRIVERS,
  runWithDriver,
  startProvider,
  type Provider,
} from './provider.js';

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

/** A sign-in form of the provider's own that posts the password elsewhere than the sign-in path, with a query. */
const SIGN_IN_FORM =
  '<html><title>Sign in</title><form method="post" action="/session?step=password"><input name="user[login]"><input type="password" name="user[password]"><button type="submit">Sign in</button></form></html>';

/**
 * The links of the page answering the password (at /session?step=password) and how that page is
 * said: a refusal (`refused`), or a page of links only whose reading the driver cannot tell
 * (`links`: a consent of links, or a link followed from it that led to no decision). Either way
 * once, the password sent once. The `refused` rows fail if decidedByLinks forgets where a link
 * leads (back to the sign-in in another case or encoding, to `#`, to the page itself, to a login
 * application's sign-in), the consent rows if it judges the page by its path alone or blames the
 * config for a consent whose links leave the target's origins (before, a refusal: check credentials).
 */
const ANSWERS = {
  'a cookie banner\'s "Accept all"': ['refused', '<a href="/-/cmp?all=1">Accept all</a>'],
  '"Accept and sign in again" at the login application (another origin)': [
    'refused',
    '<a href="http://login.invalid/users/sign_in">Accept and sign in again</a>',
  ],
  '"Accept" back to the sign-in, in another case and encoding': ['refused', '<a href="/Users/Sign%5Fin">Accept</a>'],
  '"Accept" to #': ['refused', '<a href="#">Accept</a>'],
  '"Accept" to the page itself': ['refused', '<a href="/session?step=password">Accept</a>'],
  '"Confirm your email"': ['links', '<a href="/users/confirmation/new">Confirm your email</a>'],
  'a consent of links, "Accept" at the same path with another query': [
    'links',
    '<a href="/session?step=consent">Accept</a>',
  ],
  '"OK" to the home page (followed, no decision after it)': ['links', '<a href="/">OK</a>'],
  'a consent of links on another origin of the provider, not in the config (nothing followed)': [
    'links',
    '<a href="http://consent.invalid/allow?t=1">Allow</a> <a href="http://consent.invalid/deny?t=1">Deny</a>',
  ],
} as const;

const LINKS_ONLY = {
  first:
    /^the harness could not complete this check: the provider answered the configured user's password \(status 200\) with a page of links only, the page “Sign in” at \/session \(/,
  later:
    /^the provider answered the configured user's password with a page of links only earlier in this run; the password is not sent again$/,
};

/** The links beside "Invalid login or password." on the page answering the password at /session. */
let answerLinks = '';
/** The provider of the describes below: its own sign-in form, posting to /session. */
let own: Provider;
beforeAll(async () => {
  own = await startProvider((method, url) => {
    // The unknown scope is refused once signed in (the simulator refuses it before the sign-in).
    if (url.pathname === '/oauth/authorize' && url.searchParams.get('state') === 'scope-unknown')
      return () => ({ status: 302, headers: { location: '/users/sign_in' } });
    if (method === 'GET' && url.pathname === '/users/sign_in')
      return () => ({ status: 200, headers: { 'content-type': 'text/html' }, body: SIGN_IN_FORM });
    if (method === 'POST' && url.pathname === '/session')
      return () => ({
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: `<html><title>Sign in</title><p>Invalid login or password.</p>${answerLinks}</html>`,
      });
    if (method === 'GET' && url.pathname === '/home')
      return () => ({ status: 404, headers: { 'content-type': 'text/html' }, body: '<p>Nothing here.</p>' });
    return undefined;
  });
}, 60_000);
afterAll(async () => {
  await own?.close();
});

describe('a page of links only answering the password, some saying approving words', () => {
  for (const row of Object.keys(ANSWERS) as (keyof typeof ANSWERS)[])
    it.each(PAGE_DRIVERS)(
      `%s driver, ${row}: said once as ${ANSWERS[row][0] === 'refused' ? 'a refusal' : 'a page of links only'}, the password sent once`,
      async (kind) => {
        answerLinks = ANSWERS[row][1];
        own.answered.length = 0;
        const run = await runWithDriver(own, kind, CHECKS.slice(0, 2));
        const why = explain(run.report, run.stderr);
        expectOneRefusal(run.report, why, ANSWERS[row][0] === 'refused' ? undefined : LINKS_ONLY);
        expect(
          own.answered.filter((r) => r === 'POST /session'),
          why,
        ).toHaveLength(1);
      },
      120_000,
    );
});

describe('a refusal\'s "OK" followed in a visit whose request the provider may refuse', () => {
  // The unknown scope's visit types the wrong password first: the page its "OK" leads to (a 404) is
  // that check's to judge (an answer with no redirect), neither the sign-in's refusal nor a sign-in.
  // The next visit meets the sign-in form again: the page of links only said once, the password not
  // sent again. Before, the visit's end counted the wrong password as signed in (an error status),
  // and the page of links only was said without a word of the sign-in form met again.
  it.each(PAGE_DRIVERS)(
    '%s driver: the next visit meets the sign-in form, the page said once there, the password sent once',
    async (kind) => {
      answerLinks = '<a href="/home">OK</a>';
      own.answered.length = 0;
      // The unknown scope's authorization comes first (welcome-back.test.ts relies on it too).
      const run = await runWithDriver(own, kind, ['grants.scope-unknown', 'grants.consent-denied', 'oidc.id-token']);
      const why = explain(run.report, run.stderr);
      expect(checksWith(run.report, 'failed'), why).toEqual([]);
      expect(checksWith(run.report, 'errored'), why).toEqual(['grants.consent-denied']);
      expect(run.report.checks.find((c) => c.id === 'grants.consent-denied')?.message, why).toMatch(
        /^the harness could not complete this check: the provider answered the configured user's password \(status 200\) with a page of links only, the page “Sign in” at \/session \(OK\), and the link “OK” followed from it led to neither a decision nor the application, and a later visit met the sign-in form again: /,
      );
      expect(checksWith(run.report, 'skipped'), why).toEqual(['oidc.id-token']);
      expect(
        own.answered.filter((r) => r === 'POST /session'),
        why,
      ).toHaveLength(1);
    },
    120_000,
  );
});
