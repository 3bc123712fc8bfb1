/**
 * Identifier-first sign-in (the username on one page, the password on the next, or drawn in place
 * by script) is played by the form and browser drivers: the grants and device suites pass with no
 * errored check. Before, the form driver found no password field and pressed "Next" as a step
 * with an empty username, and the browser driver saw no sign-in at all: every check that needed a
 * signed-in user errored. A wrong password, or an unknown username, is still a refused sign-in,
 * said once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeRun } from '../../cli/run.js';
import { targetConfig } from '../../simulator/control/config.js';
import { allChecks } from '../../suites/index.js';
import type { Report } from '../../suites/report/model.js';
import { expectOneRefusal, HAS_CHROMIUM } from './provider.js';
import { identifierFirstProvider, type IdentifierFirstMode, type IdentifierFirstProvider } from './identifier-first.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-identifier-first-'));
const servers: IdentifierFirstProvider[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Two checks that play an authorization, approved and denied: a refused sign-in errs the first and
 * skips the other (as refused-sign-in.test.ts's browser case; a third skip costs a page in Chromium).
 */
const SIGN_IN_CHECKS = ['grants.state-unchanged', 'grants.consent-denied'];

/** A run of `checks` (ids, or whole suites) against a fresh provider; `user` changes the configured user. */
async function run(
  name: string,
  mode: IdentifierFirstMode,
  kind: 'form' | 'browser',
  checks: { ids?: string[]; suites?: string[] },
  user: { username?: string; password?: string } = {},
) {
  const provider = await identifierFirstProvider(mode);
  servers.push(provider);
  const base = targetConfig(provider.sim, provider.url);
  const config = { ...base, user: { ...base.user!, ...user }, driver: { kind } };
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  const report = join(dir, `${name}-report.json`);
  const chosen = allChecks().filter((c) => checks.ids?.includes(c.id) || checks.suites?.includes(c.suite));
  let err = '';
  const code = await executeRun(
    { config: file, report: `json=${report}`, runs: '1', seed: '5' },
    { out: () => undefined, err: (t) => void (err += t), checks: () => chosen },
  );
  const json = JSON.parse(readFileSync(report, 'utf8')) as Report;
  const why = `${err}\n${json.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`).join('\n')}`;
  return { code, json, why, posted: provider.posted };
}

function expectPlayed(json: Report, why: string) {
  const bad = json.checks.filter((c) => ['errored', 'failed', 'warned'].includes(c.status));
  expect(
    bad.map((c) => `${c.status} ${c.id}`),
    why,
  ).toEqual([]);
  expect(json.checks.filter((c) => c.status === 'passed').length, why).toBeGreaterThan(0);
}

describe('identifier-first sign-in', () => {
  it('over plain HTML pages (form driver): the grants and device suites pass, through the username page, then the password page', async () => {
    const { json, why, posted } = await run('form-pass', 'pages', 'form', { suites: ['grants', 'device'] });
    expectPlayed(json, why);
    expect(posted.usernames, why).toBeGreaterThan(0);
    expect(posted.passwords, why).toBeGreaterThan(0);
  }, 240_000);

  it.skipIf(!HAS_CHROMIUM).each([
    { mode: 'script', what: 'in a form' },
    { mode: 'app', what: 'with no form, by its buttons' },
  ] as const)(
    'drawn by script on one URL, $what (browser driver): the grants and device checks pass',
    async ({ mode }) => {
      // The driver signs in once per run (its context keeps the session), at the first check: an
      // approval, then a denial and a device approval on the signed-in session. Every other way a
      // page ends (test/suites/page-endings.ts) is the simulator's own page after the sign-in,
      // which browser-driver.test.ts plays; replaying them here cost about 15 CPU-s for no
      // identifier-first step.
      const { json, why, posted } = await run(`browser-pass-${mode}`, mode, 'browser', {
        ids: ['grants.code-single-use', 'grants.consent-denied', 'device.token-response'],
      });
      expect(json.checks.map((c) => c.id).sort(), why).toEqual([
        'device.token-response',
        'grants.code-single-use',
        'grants.consent-denied',
      ]);
      expectPlayed(json, why);
      // The browser's username went by the page's script, the password field it drew then posted.
      expect(posted.byScript, why).toBeGreaterThan(0);
      expect(posted.passwords, why).toBeGreaterThan(0);
    },
    600_000,
  );

  // The password page past the username page, its fields in no form: as the one-page sign-in with
  // its fields in no form (pages-without-forms.test.ts), the way in of every sign-in, said once for
  // the run. Before, every check sent the username again and erred on the page.
  it('form driver, the password page with its fields in no form: said once for the run, the username sent once', async () => {
    const { json, why, posted } = await run('form-formless', 'formless', 'form', { ids: SIGN_IN_CHECKS });
    expectOneRefusal(json, why, {
      first:
        /^the harness could not complete this check: the provider's sign-in page at \/users\/identify has its fields in no form \(a script sends them, from a control such as a <div role=button>\), so what needs a signed-in user is not tested: the form driver cannot submit it; use driver: browser$/,
      later: /has its fields in no form .*seen earlier in this run; the form driver cannot play it/,
    });
    expect(posted, why).toMatchObject({ usernames: 1, passwords: 0 });
  }, 240_000);

  /** Refused sign-ins: a wrong password sent once; an unknown username refused before any password. */
  const REFUSALS = [
    {
      kind: 'form',
      mode: 'pages',
      what: 'a wrong password',
      user: { password: 'not-the-password' },
      detail: /\(status 401\)/,
      posted: { passwords: 1 },
    },
    {
      kind: 'form',
      mode: 'pages',
      what: 'an unknown username',
      user: { username: 'nobody-here' },
      detail: /\(status 401\)/,
      posted: { usernames: 1, byScript: 0, passwords: 0 },
    },
    {
      kind: 'browser',
      mode: 'script',
      what: 'a wrong password',
      user: { password: 'not-the-password' },
      detail: /\(status 401\)/,
      posted: { passwords: 1 },
    },
    {
      kind: 'browser',
      mode: 'script',
      what: 'an unknown username',
      user: { username: 'nobody-here' },
      detail: /its username form again/,
      posted: { usernames: 1, byScript: 1, passwords: 0 },
    },
  ] as const;
  it.each(REFUSALS.filter((r) => r.kind === 'form' || HAS_CHROMIUM))(
    '$kind driver, $what: one errored check, the rest skipped',
    async (r) => {
      const name = `${r.kind}-${r.what.replace(/\W+/g, '-')}`;
      const { json, why, posted } = await run(name, r.mode, r.kind, { ids: SIGN_IN_CHECKS }, r.user);
      expectOneRefusal(json, why);
      expect(json.checks.find((c) => c.status === 'errored')?.message, why).toMatch(r.detail);
      expect(posted, why).toMatchObject(r.posted);
    },
    240_000,
  );
});
