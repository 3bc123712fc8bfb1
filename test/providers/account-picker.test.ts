/**
 * An account picker made of plain links, between the sign-in and the consent (Google's "Choose an
 * account" and Entra ID's "Pick an account" without script, Keycloak's account links): the form and
 * browser drivers follow the configured user's entry and go on to the decision. A picker that lists
 * no entry of the configured user is a missing premise, said once, and no other account is ever
 * picked ("Use another account" neither: the user's own consent is what the checks judge). Before,
 * both drivers stopped at the picker ("no approve control", each check errored on its own), the
 * same with no entry of the user's.
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
import { expectOneRefusal, HAS_CHROMIUM } from './provider.js';
import { journeyProvider, page, type JourneyProvider, type JourneyStep } from './sign-in-journey.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-picker-'));
const servers: JourneyProvider[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

/**
 * "Choose an account": one link per account (`entries`: id and what the entry says), "Use another
 * account", and the page's header with links of its own. Passed only by the entry `7`.
 */
const picker = (entries: Array<[id: string, says: string]>): JourneyStep => ({
  page: (_form, link) =>
    page(
      'Choose an account',
      `<nav><a href="/help">Help</a> <a href="/privacy">Privacy</a></nav>
<ul>${entries.map(([id, says]) => `<li><a href="${link(`account=${id}`)}">${says}<div>Signed out</div></a></li>`).join('')}
<li><a href="${link('account=other')}">Use another account</a></li></ul>`,
    ),
  passes: (posted) => posted.get('account') === '7',
});

async function start(step: (username: string) => JourneyStep) {
  let username = '';
  const provider = await journeyProvider({
    after: [{ page: (...a) => step(username).page(...a), passes: (p) => step(username).passes(p) }],
  });
  servers.push(provider);
  const config = targetConfig(provider.sim, provider.url);
  username = config.user!.username;
  return { provider, config };
}

/** The user's own entry (name and e-mail, as Google and Entra show them), beside another account's. */
const withUser = (username: string) =>
  picker([
    ['9', '<div>Alice Example</div><div>alice@example.test</div>'],
    ['7', `<div>Administrator</div><div>${username}@example.test</div>`],
  ]);
/** Only other accounts. */
const withoutUser = () => picker([['9', '<div>Alice Example</div><div>alice@example.test</div>']]);

/** A driver of `kind` for the provider: denies (unless `approveOnly`), then approves; the two redirects. */
async function denyThenApprove(config: TargetConfig, kind: 'form' | 'browser', approveOnly = false) {
  const full = { ...config, driver: { kind } };
  const http = createHttp(createHttpTarget(full), createRecorder(5), createRedactor());
  const driver = kind === 'form' ? createFormDriver(http, full) : await createBrowserDriver(http, full);
  const app = full.applications!.confidential!;
  const url = (state: string) =>
    `${full.baseUrl}/oauth/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: app.redirectUri, response_type: 'code', scope: app.scopes.join(' '), state })}`;
  try {
    const denied = approveOnly ? undefined : (await driver.authorize(url('s-deny'), 'deny')).redirect;
    const approved = (await driver.authorize(url('s-approve'), 'approve')).redirect;
    return { denied: denied?.searchParams.get('error'), code: approved?.searchParams.get('code') };
  } finally {
    await (driver as { close?: () => Promise<void> }).close?.();
  }
}

const DECIDED = { denied: 'access_denied', code: expect.any(String) };
const NOT_LISTED = /the provider's account picker lists no account of the configured user/;

describe('an account picker of plain links', () => {
  it("form driver: the user's entry is followed, then the consent decided", async () => {
    const { provider, config } = await start(withUser);
    expect(await denyThenApprove(config, 'form')).toEqual(DECIDED);
    expect(provider.posted).toEqual({ passwords: 1, steps: 1 });
  });

  it('form driver, no entry of the user: said once in a run, no account picked, the rest untested', async () => {
    const { provider, config } = await start(withoutUser);
    const file = join(dir, 'without.json');
    writeFileSync(file, JSON.stringify({ ...config, driver: { kind: 'form' } }));
    const report = join(dir, 'without-report.json');
    const checks = ['grants.state-unchanged', 'grants.consent-denied', 'grants.code-single-use'];
    let err = '';
    await executeRun(
      { config: file, report: `json=${report}`, runs: '1', seed: '5' },
      {
        out: () => undefined,
        err: (t) => void (err += t),
        checks: () => allChecks().filter((c) => checks.includes(c.id)),
      },
    );
    const json = JSON.parse(readFileSync(report, 'utf8')) as Report;
    const why = `${err}\n${json.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`).join('\n')}`;
    expectOneRefusal(json, why, {
      first: new RegExp(`^the harness could not complete this check: ${NOT_LISTED.source}`),
      later: /^the provider's account picker listed no account of the configured user earlier in this run/,
    });
    // Nothing was picked: neither another account nor "Use another account".
    expect(provider.posted, why).toEqual({ passwords: 1, steps: 0 });
  });

  it.skipIf(!HAS_CHROMIUM)(
    "browser driver: the entry followed; with none of the user's, said, nothing picked",
    async () => {
      const listed = await start(withUser);
      // Approving only: the form driver's case above denies first (browser time is dear).
      expect((await denyThenApprove(listed.config, 'browser', true)).code).toEqual(expect.any(String));
      expect(listed.provider.posted).toEqual({ passwords: 1, steps: 1 });
      const unlisted = await start(withoutUser);
      await expect(denyThenApprove(unlisted.config, 'browser', true)).rejects.toThrow(NOT_LISTED);
      expect(unlisted.provider.posted).toEqual({ passwords: 1, steps: 0 });
    },
    120_000,
  );
});
