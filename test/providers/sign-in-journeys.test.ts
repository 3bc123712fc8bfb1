/**
 * Sign-in journeys of real providers the simulator does not draw (sign-in-journey.ts): what a
 * person completes, the drivers complete; what needs a person (a one-time code, a CAPTCHA, a link
 * sent by e-mail) or is refused (a 200 page saying the password is wrong) is said once, and what
 * needs a signed-in user is untested while the other checks still run.
 *
 * Before: the form driver stopped at "Stay signed in?", a terms page, a "Skip for now" prompt, an
 * account picker and a consent in French or German (the check errored, "no approve control");
 * pressed a terms page's "Decline" as the denial; pressed "Verify" on a one-time-code page with
 * the field empty; sent the password past a CAPTCHA; and each later check met the same page again.
 * A CSRF token a script copies into the form was a refusal that blamed the password. The browser
 * driver stopped at the same pages, and at consent controls in a shadow DOM or a `<div
 * role=button>`, and waited 30 s on a form Chromium would not submit (a username in a type=email
 * field) before calling it "its sign-in form again".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeRun } from '../../cli/run.js';
import { targetConfig } from '../../simulator/control/config.js';
import { allChecks } from '../../suites/index.js';
import { createBrowserDriver } from '../../suites/drivers/browser.js';
import { createFormDriver } from '../../suites/drivers/form.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { createHttpTarget } from '../../suites/target/http.js';
import type { Report } from '../../suites/report/model.js';
import type { TargetConfig } from '../../suites/types.js';
import { expectOneRefusal, PAGE_DRIVERS, HAS_CHROMIUM } from './provider.js';
import {
  CONNECTOR_PATH,
  journeyProvider,
  page,
  type Journey,
  type JourneyProvider,
  type JourneyStep,
} from './sign-in-journey.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-journeys-'));
const servers: JourneyProvider[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(journey: Journey) {
  const provider = await journeyProvider(journey);
  servers.push(provider);
  return { provider, config: targetConfig(provider.sim, provider.url) };
}

// The pages a right password may lead to, as the providers named draw them.
/** Microsoft Entra's "Stay signed in?": either answer leads on. */
const staySignedIn = (no: string): JourneyStep => ({
  page: (form) =>
    page(
      'Stay signed in?',
      form(`<p>Do this to reduce the number of times you are asked to sign in.</p>
<label><input type="checkbox" name="DontShowAgain"> Don't show this again</label>
${no}<input type="submit" id="idSIButton9" name="kmsi" value="Yes">`),
    ),
  passes: (posted) => ['Yes', 'No'].includes(posted.get('kmsi') ?? ''),
});
/** Terms of use: passed only with the box ticked and "Accept". */
const terms: JourneyStep = {
  page: (form) =>
    page(
      'Terms of use',
      form(`<p>Please read and accept the terms of use to continue.</p>
<label><input type="checkbox" name="accept_terms" value="1" required> I have read and agree to the terms of use</label>
<button type="submit" name="action" value="accept">Accept</button>
<button type="submit" name="action" value="decline">Decline</button>`),
    ),
  passes: (posted) => posted.get('accept_terms') === '1' && posted.get('action') === 'accept',
};
/** A second factor to set up, which can wait: passed only by putting it off. */
const setUpLater: JourneyStep = {
  page: (form) =>
    page(
      'Protect your account',
      form(`<p>Your organisation recommends a second factor.</p>
<button type="submit" name="action" value="setup">Set up now</button>
<button type="submit" name="action" value="later">Skip for now</button>`),
    ),
  passes: (posted) => posted.get('action') === 'later',
};
/** "Your password expires in 3 days": continue, or change it (a link). */
const passwordExpires: JourneyStep = {
  page: (form) =>
    page(
      'Your password expires soon',
      form(`<p>Your password expires in 3 days.</p><a href="/users/password/edit">Change password</a>
<button type="submit" name="action" value="continue">Continue</button>`),
    ),
  passes: (posted) => posted.get('action') === 'continue',
};
/**
 * A page that posts itself on (Entra ID's and Auth0's "hiddenform" after the password, a
 * form_post): hidden fields, a script that submits, a "Continue" button only without script.
 */
const postsItselfOn: JourneyStep = {
  page: (form) =>
    page(
      'Working...',
      `${form(`<input type="hidden" name="wresult" value="signed-in"><noscript><p>Script is disabled. Press Continue.</p><input type="submit" value="Continue"></noscript>`).replace('<form ', '<form name="hiddenform" ')}
<script>document.forms.hiddenform.submit()</script>`,
    ),
  passes: (posted) => posted.get('wresult') === 'signed-in',
};

/** An account picker: the configured user's tile, or another account. */
const pickAccount = (username: string): JourneyStep => ({
  page: (form) =>
    page(
      'Choose an account',
      form(`<button type="submit" name="account" value="7"><strong>${username}</strong> <small>Signed in</small></button>
<button type="submit" name="account" value="other">Use another account</button>`),
    ),
  passes: (posted) => posted.get('account') === '7',
});

/** An account picker drawn as tiles a script makes links of (Google's, Entra's). */
const pickAccountTile = (username: string): JourneyStep => ({
  page: (form) =>
    page(
      'Choose an account',
      form(`<input type="hidden" name="account" id="account">
<div role="link" tabindex="0" data-id="7"><div>${username}</div><div>Signed in</div></div>
<div role="link" tabindex="0" data-id="other">Use another account</div>
<script>
for (const tile of document.querySelectorAll('[role=link]'))
  tile.addEventListener('click', () => { document.getElementById('account').value = tile.dataset.id; tile.closest('form').submit(); });
</script>`),
    ),
  passes: pickAccount(username).passes,
});

/**
 * The sign-in page with an Email field of its own name, a "Remember me" box, and its CSRF token in a
 * meta tag, copied into the form by a script as it is submitted (as Laravel and Django pages do).
 */
const emailAndMetaToken = (type: 'text' | 'email'): Pick<Journey, 'signInPage' | 'fields' | 'requires'> => ({
  signInPage: (html) => {
    const token = /name="authenticity_token" value="([^"]*)"/.exec(html)?.[1] ?? '';
    return html
      .replace(`name="authenticity_token" value="${token}"`, 'name="authenticity_token" value=""')
      .replace('<head>', `<head><meta name="csrf-token" content="${token}">`)
      .replace(
        /<label>Username or email <input[^>]*><\/label>/,
        `<label>Email <input type="${type}" name="email" autocomplete="username" required></label><label><input type="checkbox" name="remember_me"> Remember me</label>`,
      )
      .replace(
        '</form>',
        `</form><script>document.getElementById('sign-in').addEventListener('submit', (e) => { e.target.elements.authenticity_token.value = document.querySelector('meta[name=csrf-token]').content; });</script>`,
      );
  },
  fields: { email: 'user[login]' },
});

/** A box to tick as you sign in ("I accept the terms"), required by the form and by the provider. */
const termsOnSignIn = (journey: Pick<Journey, 'signInPage' | 'fields'>): Journey => ({
  ...journey,
  signInPage: (html) =>
    (journey.signInPage ?? ((h: string) => h))(html).replace(
      '<button type="submit" name="commit"',
      '<label><input type="checkbox" name="tos" value="1" required> I accept the terms of use</label><button type="submit" name="commit"',
    ),
  requires: 'tos',
});

/** The simulator's seeded user, which every journey's config names. */
const USERNAME = (await start({})).config.user!.username;

/** A driver of `kind` for the provider: denies, then (signed in by then) approves; the two redirects. */
async function denyThenApprove(
  config: TargetConfig,
  kind: 'form' | 'browser',
  settings: Omit<NonNullable<TargetConfig['driver']>, 'kind'> = {},
) {
  const full = { ...config, driver: { ...settings, kind } };
  const http = createHttp(createHttpTarget(full), createRecorder(5), createRedactor());
  const driver = kind === 'form' ? createFormDriver(http, full) : await createBrowserDriver(http, full);
  const app = full.applications!.confidential!;
  const url = (state: string) =>
    `${full.baseUrl}/oauth/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: app.redirectUri, response_type: 'code', scope: app.scopes.join(' '), state })}`;
  try {
    const denied = (await driver.authorize(url('s-deny'), 'deny')).redirect;
    const approved = (await driver.authorize(url('s-approve'), 'approve')).redirect;
    return { denied: denied?.searchParams.get('error'), code: approved?.searchParams.get('code') };
  } finally {
    await (driver as { close?: () => Promise<void> }).close?.();
  }
}

const DECIDED = { denied: 'access_denied', code: expect.any(String) };

describe('sign-in journeys a person completes, the form driver completes (deny, then approve)', () => {
  it.each([
    { what: '"Stay signed in?" (Yes / No)', after: [staySignedIn('<input type="submit" name="kmsi" value="No">')] },
    { what: 'terms of use with a box to tick, then Accept', after: [terms] },
    { what: 'a second factor to set up now or skip for now', after: [setUpLater] },
    { what: 'an account picker naming the user', after: [pickAccount(USERNAME)] },
    { what: 'a page that posts itself on (a hidden form)', after: [postsItselfOn] },
    { what: 'all of them, after "your password expires soon"', after: [passwordExpires, setUpLater, terms] },
  ])('$what', async ({ after }) => {
    const { provider, config } = await start({ after });
    expect(await denyThenApprove(config, 'form')).toEqual(DECIDED);
    expect(provider.posted.passwords).toBe(1);
  });

  it.each(SIGN_IN_ALL_THE_SAME)('$what', async ({ journey }) => {
    const { provider, config } = await start(journey);
    expect(await denyThenApprove(config, 'form')).toEqual(DECIDED);
    expect(provider.posted.passwords).toBe(1);
  });

  it('a sign-in form with a box to tick (terms accepted as you sign in)', async () => {
    const { provider, config } = await start(termsOnSignIn({}));
    expect(await denyThenApprove(config, 'form')).toEqual(DECIDED);
    expect(provider.posted.passwords).toBe(1);
  });

  it('a sign-in form with an optional one-time code beside the password (left empty, not a page for a person)', async () => {
    const { provider, config } = await start({
      signInPage: (html) =>
        html.replace(
          '<button type="submit" name="commit"',
          '<label>OTP (if enabled) <input type="text" name="otp"></label><button type="submit" name="commit"',
        ),
    });
    expect(await denyThenApprove(config, 'form')).toEqual(DECIDED);
    expect(provider.posted.passwords).toBe(1);
  });

  it.each([
    {
      what: 'in German, buttons',
      decisions: `<button type="submit" name="choice" value="1">Zulassen</button><button type="submit" name="choice" value="0">Ablehnen</button>`,
    },
    {
      what: 'in French, <input type=submit>',
      decisions: `<input type="submit" name="choice" value="Refuser"><input type="submit" name="choice" value="Autoriser">`,
    },
  ])('a consent $what, under a cookie banner', async ({ decisions }) => {
    const banner = `<form method="post" action="/cookies"><button type="submit" name="cookies" value="all">Accept all cookies</button></form>`;
    const { config } = await start({ decisions, banner });
    expect(await denyThenApprove(config, 'form')).toEqual(DECIDED);
  });
});

describe('a consent whose approval offers the scopes all at once ("Allow all", "Accept all")', () => {
  // Granular consents list the scopes and approve them all with such a button. A banner's words
  // without "cookies" are set aside on links only (a page of links only is no consent form); a
  // button's are the decision's. Before, neither driver pressed them: the approval was never made.
  const rows = [
    {
      what: '"Allow all" / "Deny"',
      decisions: `<button type="submit" name="choice" value="1">Allow all</button><button type="submit" name="choice" value="0">Deny</button>`,
    },
    {
      what: '"Accept all" / "Cancel", under a cookie banner',
      decisions: `<button type="submit" name="choice" value="0">Cancel</button><button type="submit" name="choice" value="1">Accept all</button>`,
      banner: `<form method="post" action="/cookies"><button type="submit" name="cookies" value="all">Accept all cookies</button></form>`,
    },
  ];
  it.each(PAGE_DRIVERS.flatMap((kind) => rows.map((row) => [kind, row.what, row] as const)))(
    '%s driver, %s: denies, then approves',
    async (kind, _what, { decisions, banner }) => {
      const { config } = await start({ decisions, ...(banner ? { banner } : {}) });
      expect(await denyThenApprove(config, kind)).toEqual(DECIDED);
    },
    60_000,
  );
});

describe('a consent page offering to sign in with another account', () => {
  // The browser keeps its session across drives: the second lands on the consent page signed in,
  // where a link to sign in another way is no choice to make before the decision.
  it.each(PAGE_DRIVERS)(
    '%s driver: decides, never follows the link',
    async (kind) => {
      const banner = `<p><a href="/users/sign_in?switch=1">Sign in with another account</a></p>`;
      const { config } = await start({ banner });
      expect(await denyThenApprove(config, kind)).toEqual(DECIDED);
    },
    60_000,
  );
});

/** Checks that need an authorization, and one that does not (it must still pass). */
const NEEDS_SIGN_IN = ['grants.state-unchanged', 'grants.consent-denied', 'grants.code-single-use'];
const NO_SIGN_IN = 'grants.unsupported-grant-type';

async function run(name: string, journey: Journey, kind: 'form' | 'browser', user: Partial<TargetConfig['user']> = {}) {
  const { provider, config } = await start(journey);
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ ...config, user: { ...config.user!, ...user }, driver: { kind } }));
  const report = join(dir, `${name}-report.json`);
  const chosen = allChecks().filter((c) => [...NEEDS_SIGN_IN, NO_SIGN_IN].includes(c.id));
  let err = '';
  const code = await executeRun(
    { config: file, report: `json=${report}`, runs: '1', seed: '5' },
    { out: () => undefined, err: (t) => void (err += t), checks: () => chosen },
  );
  const json = JSON.parse(readFileSync(report, 'utf8')) as Report;
  const why = `${err}\n${json.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`).join('\n')}`;
  expect(json.checks.find((c) => c.id === NO_SIGN_IN)?.status, why).toBe('passed');
  return { code, json, why, posted: provider.posted };
}

const NEEDS_PERSON = {
  first:
    /^the harness could not complete this check: the provider's sign-in asks for (.+), which needs a person: sign in yourself with driver: manual; what needs a signed-in user is not tested$/,
  later: /^the provider's sign-in needs a person \(.+\), found earlier in this run; it is not tried again$/,
};

const oneTimeCode: JourneyStep = {
  page: (form) =>
    page(
      'Two-factor authentication',
      form(`<label>Enter the code from your authenticator app
<input type="text" name="user[otp_attempt]" inputmode="numeric" autocomplete="one-time-code"></label>
<button type="submit">Verify code</button>`),
    ),
  passes: () => false,
};

/** Keycloak's "Update password" after the sign-in (a required action): a new password, typed twice. */
const updatePassword: JourneyStep = {
  page: (form) =>
    page(
      'Update password',
      form(`<p>You need to change your password to activate your account.</p>
<label>New Password <input type="password" id="password-new" name="password-new" autocomplete="new-password"></label>
<label>Confirm password <input type="password" id="password-confirm" name="password-confirm" autocomplete="new-password"></label>
<input type="submit" value="Submit">`),
    ),
  passes: () => false,
};

/**
 * Entra ID's "Update your password" (the first sign-in, or an expired password; Okta's and AD FS's
 * alike): the current password, then the new one twice, in one form whose button says "Sign in".
 * `marked`: the fields say current-password and new-password; else only their names tell.
 */
const updateExpiredPassword = (marked: boolean): JourneyStep => {
  const field = (name: string, autocomplete: string) =>
    `<input type="password" name="${name}" id="${name}"${marked ? ` autocomplete="${autocomplete}"` : ''}>`;
  return {
    page: (form) =>
      page(
        'Update your password',
        form(`<p>You need to update your password because this is the first time you are signing in, or because your password has expired.</p>
<label>Current password ${field('oldPassword', 'current-password')}</label>
<label>New password ${field('newPassword', 'new-password')}</label>
<label>Confirm password ${field('confirmNewPassword', 'new-password')}</label>
<input type="submit" value="Sign in">`),
      ),
    passes: () => false,
  };
};

/**
 * Sign-in pages with new-password fields that are still sign-in pages: the one password field
 * marked new-password, as sites mark it against autofill; a sign-up form beside the sign-in form
 * (a new password and its confirmation, by autocomplete and by name).
 */
const SIGN_IN_ALL_THE_SAME = [
  {
    what: 'a sign-in form whose only password field is marked new-password (against autofill)',
    journey: {
      signInPage: (html: string) => html.replace('autocomplete="current-password"', 'autocomplete="new-password"'),
    },
  },
  {
    what: 'a sign-in form with a sign-up form beside it (a new password and its confirmation)',
    journey: {
      signInPage: (html: string) =>
        html.replace(
          '</body>',
          `<h2>New here?</h2><form method="post" action="/users/sign_up">
<label>E-mail <input type="email" name="email"></label>
<label>Password <input type="password" name="new_user[password]" autocomplete="new-password"></label>
<label>Repeat it <input type="password" name="new_user[password_confirmation]"></label>
<button type="submit">Register</button></form></body>`,
        ),
    },
  },
];

/** Where an unattended sign-in stops: what the driver says, and how many passwords were sent. */
const STOPS = [
  {
    what: 'a one-time code after the password',
    journey: { after: [oneTimeCode] },
    said: /asks for a one-time code \(a second factor\), which needs a person/,
    passwords: 1,
  },
  {
    what: 'a new password to set after the sign-in (nothing typed into it)',
    journey: { after: [updatePassword] },
    said: /asks for a new password \(the account must change its password\), which needs a person/,
    passwords: 1,
  },
  {
    what: "Entra ID's update of an expired password: the current one and a new one twice (nothing typed into it)",
    journey: { after: [updateExpiredPassword(true)] },
    said: /asks for a new password \(the account must change its password\), which needs a person/,
    passwords: 1,
  },
  {
    what: 'the same page, its fields told only by their names (oldPassword, newPassword, confirmNewPassword)',
    journey: { after: [updateExpiredPassword(false)] },
    said: /asks for a new password \(the account must change its password\), which needs a person/,
    passwords: 1,
  },
  {
    what: 'a CAPTCHA on the sign-in page (no password sent)',
    journey: {
      signInPage: (html: string) =>
        html.replace(
          '<button type="submit" name="commit"',
          '<div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001"></div><button type="submit" name="commit"',
        ),
    },
    said: /asks for a CAPTCHA, which needs a person/,
    passwords: 0,
  },
  {
    what: 'a link sent by e-mail',
    journey: {
      after: [
        {
          page: () =>
            page('Check your email', '<p>We sent a sign-in link to r***@example.test. Open it to continue.</p>'),
          passes: () => false,
        },
      ],
    },
    said: /asks for a link sent by e-mail, which needs a person/,
    passwords: 1,
  },
  {
    what: 'a wrong password answered 200 by a page that says so, with no form',
    journey: {
      wrongPassword: {
        status: 200,
        page: page(
          'Sign-in failed',
          '<p>The username or password is incorrect.</p><p><a href="/users/sign_in">Try again</a></p>',
        ),
      },
    },
    user: { password: 'not-it' },
    said: /refused the sign-in of the configured user \(status 200, a page with no form\)/,
    passwords: 1,
  },
];

describe('form driver: a sign-in that needs a person, or is refused, is said once and the rest is untested', () => {
  it('a sign-in page whose script copies its CSRF token into the form: refused once, saying so (driver: browser)', async () => {
    const { json, why, posted } = await run('form-meta-token', emailAndMetaToken('text'), 'form');
    expectOneRefusal(json, why);
    expect(json.checks.find((c) => c.status === 'errored')?.message, why).toMatch(
      /\(status 422; its sign-in page runs a script, which the form driver does not .+driver: browser may get through\)/,
    );
    expect(posted.passwords, why).toBe(1);
  });

  it.each(STOPS)('$what', async ({ what, journey, user, said, passwords }) => {
    const { json, why, posted } = await run(`form-${what.replace(/\W+/g, '-')}`, journey, 'form', user);
    expectOneRefusal(json, why, user ? undefined : NEEDS_PERSON);
    expect(json.checks.find((c) => c.status === 'errored')?.message, why).toMatch(said);
    expect(posted, why).toEqual({ passwords, steps: 0 });
  });
});

describe.skipIf(!HAS_CHROMIUM)('the same journeys through Chromium', () => {
  it('every page above, drawn by script where a provider does (a CSRF token from a meta tag, terms to accept as you sign in, No without a form, account tiles, a form that posts itself, the consent in a shadow DOM and a div role=button, under a cookie banner)', async () => {
    const scripted = `<input type="hidden" name="choice" id="choice"><div id="buttons"></div>
<script>
const root = document.getElementById('buttons').attachShadow({ mode: 'open' });
root.innerHTML = '<button type="button" id="yes">Zulassen</button> <div role="button" tabindex="0" id="no">Ablehnen</div>';
const send = (value) => { document.getElementById('choice').value = value; document.getElementById('consent').submit(); };
root.getElementById('yes').addEventListener('click', () => send('1'));
root.getElementById('no').addEventListener('click', () => send('0'));
</script>`;
    const noByScript = `<input type="button" id="idBtn_Back" value="No" onclick="this.form.append(Object.assign(document.createElement('input'), { type: 'hidden', name: 'kmsi', value: 'No' })); this.form.submit()">`;
    const { provider, config } = await start({
      ...termsOnSignIn(emailAndMetaToken('text')),
      after: [passwordExpires, setUpLater, terms, staySignedIn(noByScript), pickAccountTile(USERNAME), postsItselfOn],
      decisions: scripted,
      banner: `<div role="dialog"><button type="button" onclick="this.parentElement.remove()">Accept all cookies</button></div>`,
    });
    expect(await denyThenApprove(config, 'browser')).toEqual(DECIDED);
    expect(provider.posted.passwords).toBe(1);
  }, 120_000);

  it('a username the sign-in form does not take (not an e-mail address in a type=email field): refused at once, saying which field', async () => {
    // Chromium submits nothing: before, the driver waited out the page's 30 s for an answer, then
    // called it "its sign-in form again".
    const { provider, config } = await start(emailAndMetaToken('email'));
    await expect(denyThenApprove(config, 'browser')).rejects.toThrow(
      /refused the sign-in of the configured user \(its form does not take what the driver typed, email: typeMismatch\)/,
    );
    expect(provider.posted.passwords).toBe(0);
  });

  it.each(SIGN_IN_ALL_THE_SAME)('$what', async ({ journey }) => {
    const { provider, config } = await start(journey);
    expect(await denyThenApprove(config, 'browser')).toEqual(DECIDED);
    expect(provider.posted.passwords).toBe(1);
  });

  it('a one-page sign-in whose script draws the password field a moment after the username', async () => {
    const { provider, config } = await start({
      signInPage: (html) =>
        html
          .replace(/<label>Password <input[^>]*><\/label>/, '<span id="secret"></span>')
          .replace(
            '</form>',
            `</form><script>setTimeout(() => { document.getElementById('secret').innerHTML = '<label>Password <input type="password" name="user[password]" required></label>'; }, 1000);</script>`,
          ),
    });
    expect(await denyThenApprove(config, 'browser')).toEqual(DECIDED);
    expect(provider.posted.passwords).toBe(1);
  });

  it.each(STOPS)('$what: the first sign-in stops, saying why', async ({ journey, user, said, passwords }) => {
    const { provider, config } = await start(journey);
    await expect(denyThenApprove({ ...config, user: { ...config.user!, ...user } }, 'browser')).rejects.toThrow(said);
    expect(provider.posted).toEqual({ passwords, steps: 0 });
  });
});

/**
 * Dex's choice of connector before the sign-in ("Log in with GitHub", "Log in with LDAP", "Log in
 * with Email"): the driver follows the way driver.signInPath names (where the configured user's
 * way starts) and signs in there; a config that names none of the ways is said once, with the
 * paths to choose from, and no way is guessed. Before, both drivers stopped on the choice: the
 * form driver with "no approve control" for every check, the browser driver likewise.
 */
describe("a choice of ways to sign in (Dex's connectors)", () => {
  const CHOOSE = {
    first:
      /^the harness could not complete this check: the provider asks which way to sign in \(Log in with GitHub; Log in with LDAP; Log in with Email\) and driver\.signInPath \(\/users\/sign_in\) leads to none of them: set it to the path where the configured user's way starts \(one of \/dex\/auth\/ldap, \/dex\/auth\/local\); what needs a signed-in user is not tested$/,
    later:
      /^the provider asked which way to sign in earlier in this run and driver\.signInPath leads to none of its ways; no way is guessed$/,
  };

  it.each(['form', 'browser'] as const)(
    '%s driver: the way driver.signInPath names is followed, then the sign-in and the decision',
    async (kind) => {
      if (kind === 'browser' && !HAS_CHROMIUM) return;
      const { provider, config } = await start({ connectors: true });
      expect(await denyThenApprove(config, kind, { signInPath: CONNECTOR_PATH })).toEqual(DECIDED);
      expect(provider.posted.passwords).toBe(1);
    },
    60_000,
  );

  it('form driver: a config whose signInPath names none of the ways is told once which to set, nothing guessed', async () => {
    const { json, why, posted } = await run('form-connectors', { connectors: true }, 'form');
    expectOneRefusal(json, why, CHOOSE);
    expect(posted, why).toEqual({ passwords: 0, steps: 0 });
  });

  it('form driver: links to sign in another way on the page after the password are no choice of ways: that page is judged as any page after it', async () => {
    const ways: JourneyStep = {
      page: () =>
        page(
          'Link your account',
          '<p><a href="https://accounts.example.invalid/o/oauth2/auth">Continue with Google</a></p><p><a href="/users/auth/apple">Sign in with Apple</a></p>',
        ),
      passes: () => false,
    };
    const { json, why } = await run('form-ways-after', { after: [ways] }, 'form');
    const signedIn = json.checks.filter((c) => NEEDS_SIGN_IN.includes(c.id));
    expect(signedIn.length, why).toBe(NEEDS_SIGN_IN.length);
    for (const check of signedIn) expect(check.message ?? '', why).not.toMatch(/which way to sign in/);
    // What a page with nothing to go on with after the password is said to be (sign-in.ts).
    expect(signedIn.find((c) => c.status === 'errored')?.message, why).toMatch(/status 200, a page with no form/);
  });

  it.skipIf(!HAS_CHROMIUM)(
    'browser driver: the same, said the same way',
    async () => {
      const { provider, config } = await start({ connectors: true });
      await expect(denyThenApprove(config, 'browser')).rejects.toThrow(
        /the provider asks which way to sign in \(Log in with GitHub; Log in with LDAP; Log in with Email\) and driver\.signInPath \(\/users\/sign_in\) leads to none of them/,
      );
      expect(provider.posted.passwords).toBe(0);
    },
    60_000,
  );
});
