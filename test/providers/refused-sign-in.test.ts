/**
 * A provider that refuses the configured user's sign-in (a wrong password in the config, a second
 * factor, a CAPTCHA) leaves everything that needs a signed-in user untested: a missing premise,
 * said once. Before, a wrong password failed five checks and warned one (a 401 sign-in page read
 * as the provider's answer to an authorization, a registration form, a verification page), errored
 * 43 more, and was sent again for every check until the simulator throttled it (a real provider
 * would have locked the account). Now the first refusal errors its check with the reason, no other
 * sign-in is tried, and each later check that needs one is skipped, saying why.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeRun } from '../../cli/run.js';
import { targetConfig } from '../../simulator/control/config.js';
import { allChecks } from '../../suites/index.js';
import type { Report } from '../../suites/report/model.js';
import { simulatorWith, type Loopback } from '../suites/loopback.js';
import { expectOneRefusal, HAS_CHROMIUM } from './provider.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-refused-'));
const servers: Loopback[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The run against the simulator with the config's password wrong (or, `sameForm`, a provider that
 * answers any sign-in with 200 and its sign-in form again); how many sign-ins the provider saw.
 */
async function refusedRun(
  name: string,
  kind: 'form' | 'browser',
  options: { ids?: string[]; sameForm?: boolean } = {},
) {
  let signIns = 0;
  const server = await simulatorWith((req, res) => {
    if (req.method !== 'POST' || !req.url?.startsWith('/users/sign_in')) return false;
    signIns++;
    if (!options.sameForm) return false;
    req.resume();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<!DOCTYPE html><html><body><p>Invalid login or password.</p><form method="post" action="/users/sign_in">' +
        '<input name="username"><input type="password" name="password"><button>Sign in</button></form></body></html>',
    );
    return true;
  });
  servers.push(server);
  const base = targetConfig(server.sim, server.url);
  const config = {
    ...base,
    user: { ...base.user!, password: options.sameForm ? base.user!.password : 'not-the-password' },
    driver: { kind },
  };
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  const report = join(dir, `${name}-report.json`);
  const checks = options.ids ? allChecks().filter((c) => options.ids!.includes(c.id)) : undefined;
  let err = '';
  const code = await executeRun(
    { config: file, report: `json=${report}`, runs: '1', seed: '5' },
    { out: () => undefined, err: (t) => void (err += t), ...(checks ? { checks: () => checks } : {}) },
  );
  const json = JSON.parse(readFileSync(report, 'utf8')) as Report;
  return { code, json, signIns, err };
}

describe('a refused sign-in of the configured user', () => {
  it('with the form driver (a wrong password, 401): one errored check, the rest skipped, one sign-in sent', async () => {
    const { code, json, signIns, err } = await refusedRun('form-wrong', 'form');
    const why = `${err}\n${json.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`).join('\n')}`;
    expect(code, why).toBe(2);
    expectOneRefusal(json, why);
    expect(json.checks.find((c) => c.status === 'errored')?.message).toMatch(/\(status 401\)/);
    // Never sent again: a real provider would lock the account.
    expect(signIns).toBe(1);
    // The password grant's setting check no longer reads the refused grant as the rule broken.
    expect(json.checks.find((c) => c.id === 'grants.password-git-setting')).toMatchObject({ status: 'skipped' });
  }, 120_000);

  it('with the form driver (200 and the sign-in form again): the same', async () => {
    const ids = ['grants.state-unchanged', 'grants.consent-denied', 'grants.code-single-use'];
    const { json, signIns, err } = await refusedRun('form-same', 'form', { ids, sameForm: true });
    const why = `${err}\n${json.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`).join('\n')}`;
    expectOneRefusal(json, why);
    expect(json.checks.find((c) => c.status === 'errored')?.message).toMatch(/status 200, its sign-in form again/);
    expect(signIns).toBe(1);
  }, 120_000);

  it.skipIf(!HAS_CHROMIUM)(
    'with the browser driver: the same',
    async () => {
      const ids = ['grants.state-unchanged', 'grants.consent-denied'];
      const { json, signIns, err } = await refusedRun('browser-wrong', 'browser', { ids });
      const why = `${err}\n${json.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`).join('\n')}`;
      expectOneRefusal(json, why);
      expect(signIns).toBe(1);
    },
    120_000,
  );
});
