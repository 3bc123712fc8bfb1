/**
 * Pages of a sign-in without the form a driver submits: links only, or a control a script drives;
 * both page drivers run over the same provider (sign-in-journey.ts) and read each the same way.
 *
 * - After the password, a page of links only: "Continue to app" (the one link that goes on, on the
 *   provider's origin), "Use another account", a help link. An interstitial: its continuation is
 *   followed and the sign-in goes on. With two links that go on, which one is a person's to choose:
 *   said once, naming the page, and what needs a signed-in user is untested. Before, the form
 *   driver took the page for a refused sign-in (the config blamed for the whole run), the browser
 *   driver pressed the first link saying "continue" (no choice was said).
 * - A sign-in page whose one control that sends it is a `<div role=button>` whose script posts the
 *   fields: the browser driver clicks it, in a form or not (before, in a form without a submit
 *   button it pressed Enter, which submits nothing, and took the page's silence for a refused
 *   sign-in). The form driver submits a form as Enter would; fields in no form are a page it cannot
 *   submit, said as such with the hint to use the browser driver (before: "no approve control").
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  checksWith,
  expectAllPassed,
  expectOneRefusal,
  explain,
  PAGE_DRIVERS,
  runWithDriver,
  startProvider,
} from './provider.js';
import { journeyProvider, page, type Journey, type JourneyProvider, type JourneyStep } from './sign-in-journey.js';

const servers: JourneyProvider[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** Checks that need the configured user signed in, and one that needs nobody. */
const CHECKS = ['grants.consent-denied', 'grants.state-unchanged', 'grants.unsupported-grant-type'];

const NEEDS_PERSON = {
  first:
    /^the harness could not complete this check: the provider's sign-in asks for (.+), which needs a person: sign in yourself with driver: manual; what needs a signed-in user is not tested$/,
  later: /^the provider's sign-in needs a person \(.+\), found earlier in this run; it is not tried again$/,
};

/** A page after the password with links only: each `[label, query]` goes to `/journey` with that query. */
const linksOnly = (title: string, links: Array<[string, string]>): JourneyStep => ({
  page: (_form, link) =>
    page(
      title,
      `<p>You are signed in as root.</p><ul>${links.map(([label, query]) => `<li><a href="${query.startsWith('http') || query.startsWith('/') ? query : link(query)}">${label}</a></li>`).join('')}</ul>`,
    ),
  passes: (posted) => posted.get('go') === 'app',
});

const OTHER_ACCOUNT: [string, string] = ['Use another account', '/users/sign_in?switch=1'];
const HELP: [string, string] = ['Help', '/help/sign-in'];

async function runOver(journey: Journey, kind: 'form' | 'browser') {
  const provider = await journeyProvider(journey);
  servers.push(provider);
  const run = await runWithDriver(provider, kind, CHECKS);
  return { ...run, provider, why: explain(run.report, run.stderr) };
}

describe('a page of links only after the password', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: its one continuation on the provider is followed, every check passes',
    async (kind) => {
      const interstitial = linksOnly('Welcome back', [['Continue to app', 'go=app'], OTHER_ACCOUNT, HELP]);
      const { report, code, why, provider } = await runOver({ after: [interstitial] }, kind);
      expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual([]);
      expect(code, why).toBe(0);
      expect(provider.posted, why).toEqual({ passwords: 1, steps: 1 });
    },
    120_000,
  );

  it.each(PAGE_DRIVERS)(
    '%s driver: two links that go on are a choice for a person, said once naming the page',
    async (kind) => {
      const choice = linksOnly('Where to?', [
        ['Continue to app', 'go=app'],
        ['Continue to your profile', 'go=profile'],
        OTHER_ACCOUNT,
      ]);
      const { report, why, provider } = await runOver({ after: [choice] }, kind);
      expectOneRefusal(report, why, NEEDS_PERSON);
      expect(report.checks.find((c) => c.status === 'errored')?.message, why).toMatch(
        /asks for a choice between links on the page “Where to\?” at \/users\/sign_in \(Continue to app; Continue to your profile\)/,
      );
      expect(checksWith(report, 'passed'), why).toEqual(['grants.unsupported-grant-type']);
      expect(provider.posted, why).toEqual({ passwords: 1, steps: 0 });
    },
    120_000,
  );
});

describe('a page of links only after the password whose links decide, or beside a cookie banner', () => {
  // A consent of links only ("Accept and continue"): the form driver presses no link that decides,
  // and such a page cannot be told from a refusal whose links say approving words: said once for
  // the run as a page of links only, the password sent once, the visit never counted as a sign-in;
  // never the configured user's sign-in refused (config blamed), as the form driver said before.
  // The browser driver presses the link ("continue"), and the decision follows.
  it.each(PAGE_DRIVERS)(
    '%s driver: a consent of links is no sign-in refused',
    async (kind) => {
      const consent = linksOnly('Authorize the application', [
        ['Accept and continue', 'go=app'],
        ['Cancel', '/'],
      ]);
      const { report, why, provider } = await runOver({ after: [consent] }, kind);
      if (kind === 'browser') expect(checksWith(report, 'errored', 'skipped'), why).toEqual([]);
      else {
        expectOneRefusal(report, why, {
          first:
            /^the harness could not complete this check: the provider answered the configured user's password \(status 200\) with a page of links only, the page “Authorize the application” at \/users\/sign_in \(Accept and continue; Cancel\), on which the driver presses nothing: /,
          later:
            /^the provider answered the configured user's password with a page of links only earlier in this run; the password is not sent again$/,
        });
        expect(provider.posted.passwords, why).toBe(1);
      }
      for (const check of report.checks) expect(check.message ?? '', why).not.toMatch(/refused the sign-in/);
    },
    120_000,
  );

  // "Accept cookies" decides nothing about the application: the interstitial's one link goes on.
  it.each(PAGE_DRIVERS)(
    '%s driver: a cookie banner beside one continuation, the continuation followed, every check passes',
    async (kind) => {
      const interstitial = linksOnly('Welcome back', [
        ['Accept cookies', '/cookies?accept=1'],
        ['Continue to app', 'go=app'],
      ]);
      const { report, code, why, provider } = await runOver({ after: [interstitial] }, kind);
      expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual([]);
      expect(code, why).toBe(0);
      expect(provider.posted, why).toEqual({ passwords: 1, steps: 1 });
    },
    120_000,
  );
});

/** The script of a control that posts the sign-in fields (those under #sign-in) as a form of its own. */
const POSTS_FIELDS =
  "const f = document.createElement('form'); f.method = 'post'; f.action = '/users/sign_in'; for (const i of document.querySelectorAll('#sign-in input')) f.append(Object.assign(document.createElement('input'), { type: 'hidden', name: i.name, value: i.value })); document.body.append(f); f.submit();";
const SCRIPTED_BUTTON = `<div role="button" tabindex="0" onclick="${POSTS_FIELDS}">Sign in</div>`;
const SUBMIT = /<button type="submit" name="commit" value="sign-in">Sign in<\/button>/;

/** The simulator's sign-in page, its submit button a scripted control; `inForm`: its form kept, else its fields in a <div>. */
const scriptedSignIn = (inForm: boolean): Journey => ({
  signInPage: (html) => {
    const drawn = html.replace(SUBMIT, SCRIPTED_BUTTON);
    return inForm
      ? drawn
      : drawn.replace(/<form id="sign-in"[^>]*>/, '<div id="sign-in">').replace('</form>', '</div>');
  },
});

describe('a sign-in page whose only control that sends it is a script-driven <div role=button>', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver, the fields in a form without a submit button: signed in, every check passes',
    async (kind) => {
      const { report, code, why, provider } = await runOver(scriptedSignIn(true), kind);
      expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual([]);
      expect(code, why).toBe(0);
      expect(provider.posted.passwords, why).toBe(1);
    },
    120_000,
  );

  it.skipIf(!PAGE_DRIVERS.includes('browser'))(
    'browser driver, the fields in no form: it clicks the control, every check passes',
    async () => {
      const { report, code, why, provider } = await runOver(scriptedSignIn(false), 'browser');
      expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual([]);
      expect(code, why).toBe(0);
      expect(provider.posted.passwords, why).toBe(1);
    },
    120_000,
  );

  it('form driver, the fields in no form: a sign-in page it cannot submit, said once with the hint to use the browser driver', async () => {
    const { report, why, provider } = await runOver(scriptedSignIn(false), 'form');
    expect(checksWith(report, 'passed'), why).toEqual(['grants.unsupported-grant-type']);
    // The way in of every sign-in: one cause of the run, not of each check (as a page a script draws).
    expectOneRefusal(report, why, {
      first:
        /^the harness could not complete this check: the provider's sign-in page at \/users\/sign_in has its fields in no form \(a script sends them, from a control such as a <div role=button>\), so what needs a signed-in user is not tested: the form driver cannot submit it; use driver: browser$/,
      later: /has its fields in no form .*seen earlier in this run; the form driver cannot play it/,
    });
    expect(provider.posted.passwords, why).toBe(0);
  });
});

describe('a 200 page a script draws answering a request a provider may lawfully refuse', () => {
  // An SPA error route: an authorization with an unknown PKCE method refused, before any sign-in,
  // with a 200 shell its script draws. The sign-in and consent are plain HTML. Before, the shell
  // was said once for the run as the way in, and every later check that needed a sign-in was skipped.
  it('form driver: that check errs alone, the later checks sign in and pass', async () => {
    const provider = await startProvider((method, url) => {
      const m = url.searchParams.get('code_challenge_method');
      return method === 'GET' && url.pathname === '/oauth/authorize' && m && !['S256', 'plain'].includes(m)
        ? () => ({
            status: 200,
            headers: { 'content-type': 'text/html' },
            body: '<!DOCTYPE html><html><body><div id="app"></div><script>/* draws: invalid code_challenge_method */</script></body></html>',
          })
        : undefined;
    });
    try {
      const checks = ['grants.pkce-method-unsupported', 'grants.consent-denied', 'oidc.id-token'];
      const run = await runWithDriver(provider, 'form', checks);
      const why = explain(run.report, run.stderr);
      expect(checksWith(run.report, 'errored'), why).toEqual(['grants.pkce-method-unsupported']);
      expect(run.report.checks[0]?.message, why).toMatch(/has no form \(a script draws it\)/);
      expect(checksWith(run.report, 'passed'), why).toEqual(['grants.consent-denied', 'oidc.id-token']);
    } finally {
      await provider.close();
    }
  }, 120_000);
});

describe('a page of links only after the password that asks a question or puts something off', () => {
  // Answered as a person would, as the decision leans (yes to approve, no to deny), or put off;
  // the sign-in goes on. Before, both drivers took the page for a refused sign-in: the config
  // blamed for the whole run, every later check skipped.
  const QUESTIONS = {
    'Stay signed in? Yes / No': linksOnly('Stay signed in?', [
      ['Yes', 'go=app'],
      ['No', 'go=app&stay=0'],
    ]),
    'Set up two-factor authentication / Skip for now': linksOnly('Secure your account', [
      ['Set up two-factor authentication', '/profile/two_factor'],
      ['Skip for now', 'go=app'],
    ]),
  };
  for (const [name, question] of Object.entries(QUESTIONS))
    it.each(PAGE_DRIVERS)(
      `%s driver, ${name}: answered, every check passes`,
      async (kind) => {
        const run = await runOver({ after: [question] }, kind);
        expect(run.provider.posted, expectAllPassed(run)).toEqual({ passwords: 1, steps: 1 });
      },
      120_000,
    );
});

describe('a step pressed after the password, answered by a page with nothing on it', () => {
  // The answer to "Not now" (a POST), not to the password: the check errs alone. Before, the
  // browser driver read the answer to any POST as the password's, and said the configured user's
  // sign-in refused for the run.
  it.each(PAGE_DRIVERS)(
    '%s driver: no sign-in refused said, each check errs alone',
    async (kind) => {
      const later: JourneyStep = {
        page: (form) =>
          page('Secure your account', form('<button type="submit" name="go" value="later">Not now</button>')),
        passes: () => true,
      };
      const blank: JourneyStep = {
        page: () => page('Please wait', '<p>We are setting up your account.</p>'),
        passes: () => false,
      };
      const { report, why } = await runOver({ after: [later, blank] }, kind);
      for (const check of report.checks) expect(check.message ?? '', why).not.toMatch(/refused/);
      expect(checksWith(report, 'errored'), why).toEqual(['grants.consent-denied', 'grants.state-unchanged']);
      expect(checksWith(report, 'skipped'), why).toEqual([]);
    },
    120_000,
  );
});
