/**
 * An application the provider refuses outright (a redirectUri in the config that is not registered
 * for the client) is the config's mistake, said once: the start-up asks
 * each application's authorization request signed out, and a 4xx page before any sign-in makes
 * the first check that needs it errored with what to check, and the rest skipped. Before, the
 * grants suite errored 14 checks ("no approve control (status 400)") and warned five `should`
 * rules on the provider (GRANT-SIGN-IN-REQUIRED, GRANT-AUTHORIZE-ERROR-REDIRECT, …) whose checks
 * expected a redirect to an address the provider rightly refused.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import type { Report } from '../../suites/report/model.js';
import { runCli, simulatorWith, type Loopback } from '../suites/loopback.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-unregistered-'));
const servers: Loopback[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('an application the provider refuses outright', () => {
  it('a redirectUri not registered: one errored check says what to check, the rest skipped, no rule blamed', async () => {
    const [name, wrong] = ['redirect', { redirectUri: 'https://client.test/cb' }];
    const server = await simulatorWith(() => false);
    servers.push(server);
    const base = targetConfig(server.sim, server.url);
    const apps = base.applications!;
    // A live deployment as a user writes it: the form driver, no control API used.
    const config = {
      ...base,
      driver: { kind: 'form' },
      applications: { ...apps, confidential: { ...apps.confidential!, ...wrong } },
    };
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(config));
    const reportFile = join(dir, `${name}-report.json`);
    const r = await runCli({ config: file, suite: 'grants', seed: '7', runs: '2', report: `json=${reportFile}` });
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
    const by = (status: string) => report.checks.filter((c) => c.status === status);
    expect(by('failed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(by('warned').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    const errored = by('errored');
    expect(errored.map((c) => c.message)).toHaveLength(1);
    expect(errored[0].message).toMatch(
      /^the harness could not complete this check: the provider refuses the authorization request of applications\.confidential itself \(GET \/oauth\/authorize with its clientId and redirectUri /,
    );
    expect(errored[0].message).toMatch(
      /answered 400 before any sign-in: “.*The redirect URI is not registered for this application\.”/,
    );
    expect(errored[0].message).toContain(
      'check in the target config that its redirectUri is registered for that client exactly',
    );
    const later = by('skipped').filter((c) => c.message?.includes('applications.confidential'));
    expect(later.length).toBeGreaterThan(10);
    for (const c of later)
      expect(c.message).toBe(
        `the provider refused the authorization request of applications.confidential at start-up (${errored[0].id} says why); what needs it is not tested`,
      );
    expect(r.code).toBe(2);
  });
});
