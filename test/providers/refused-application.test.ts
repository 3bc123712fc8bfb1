/**
 * An application the provider refuses outright is the config's mistake, said once: a redirectUri
 * not registered for the client (the start-up asks each application's authorization request signed
 * out; a 4xx page before any sign-in), or a clientSecret (or clientId) the token endpoint refuses
 * with invalid_client. The first check that needs it is errored with what to check, the rest are
 * skipped, and no rule is blamed. Before, a redirectUri not registered errored 14 checks of grants
 * ("no approve control (status 400)") and warned five `should` rules that expected a redirect to
 * the application; a wrong client secret failed 18 checks of grants and tokens (AUTH-CLIENT-BODY,
 * GRANT-CODE-FLOW, REV-PARAMS…), exit 1.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import type { AppConfig } from '../../suites/types.js';
import type { Report } from '../../suites/report/model.js';
import { runCli, simulatorWith, type Loopback } from '../suites/loopback.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-refused-app-'));
const servers: Loopback[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** The simulator over HTTP, run as a live deployment with the confidential application's `wrong` settings. */
async function runWith(name: string, wrong: Partial<AppConfig>, suite: string) {
  const server = await simulatorWith(() => false);
  servers.push(server);
  const base = targetConfig(server.sim, server.url);
  const apps = base.applications!;
  // As a user writes it: the form driver, no control API used.
  const config = {
    ...base,
    driver: { kind: 'form' },
    applications: { ...apps, confidential: { ...apps.confidential!, ...wrong } },
  };
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  const reportFile = join(dir, `${name}-report.json`);
  const r = await runCli({ config: file, suite, seed: '7', runs: '2', report: `json=${reportFile}` });
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
  const by = (status: string) => report.checks.filter((c) => c.status === status);
  expect(by('failed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
  expect(by('warned').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
  const errored = by('errored');
  expect(errored.map((c) => `${c.id}: ${c.message}`)).toHaveLength(1);
  expect(r.code).toBe(2);
  return { first: errored[0], skipped: by('skipped') };
}

describe('an application the provider refuses outright', () => {
  it('a redirectUri not registered: one errored check says what to check, the rest skipped, no rule blamed', async () => {
    const { first, skipped } = await runWith('redirect', { redirectUri: 'https://client.test/cb' }, 'grants');
    expect(first.message).toMatch(
      /^the harness could not complete this check: the provider refuses the authorization request of applications\.confidential itself \(GET \/oauth\/authorize with its clientId and redirectUri answered 400 before any sign-in: “.*The redirect URI is not registered for this application\.”\): check in the target config that its redirectUri is registered for that client exactly/,
    );
    const later = skipped.filter((c) => c.message?.includes('applications.confidential'));
    expect(later.length).toBeGreaterThan(10);
    for (const c of later)
      expect(c.message).toBe(
        `the provider refused the authorization request of applications.confidential at start-up (${first.id} says why); what needs it is not tested`,
      );
  });

  it('a client secret the token endpoint refuses: one errored check, the rest skipped, no rule blamed', async () => {
    const { first, skipped } = await runWith('secret', { clientSecret: 'gloas-not-the-secret' }, 'tokens');
    expect(first.message).toBe(
      'the harness could not complete this check: the provider refuses the client credentials of applications.confidential (POST /oauth/token answered 401 invalid_client: “Client authentication failed: wrong client secret”): check its clientId and clientSecret in the target config; what needs them is not tested',
    );
    expect(first.message).not.toContain('not-the-secret');
    const later = skipped.filter((c) => c.message?.includes('applications.confidential'));
    expect(later.length).toBeGreaterThan(5);
    for (const c of later)
      expect(c.message).toBe(
        `the provider refused the client credentials of applications.confidential at start-up (${first.id} says why); what needs them is not tested`,
      );
  });
});

describe('a personal access token the REST API refuses, in a run without its reporter', () => {
  it('the first check that needs the REST API says it (errored, exit 2), the rest are skipped naming it', async () => {
    const server = await simulatorWith(() => false);
    servers.push(server);
    const config = { ...targetConfig(server.sim, server.url), personalAccessToken: 'glpat-not-this-one-at-all' };
    const file = join(dir, 'pat.json');
    writeFileSync(file, JSON.stringify(config));
    const reportFile = join(dir, 'pat-report.json');
    // versioning.api-prefix, which says the REST API's premise, is not among the checks run.
    const r = await runCli({ config: file, suite: 'scopes', seed: '7', runs: '1', report: `json=${reportFile}` });
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
    const by = (status: string) => report.checks.filter((c) => c.status === status);
    expect(by('failed').map((c) => c.id)).toEqual([]);
    const errored = by('errored');
    expect(errored.map((c) => c.message)).toEqual([
      expect.stringMatching(
        /^the harness could not complete this check: GET \/api\/v4\/user answered 401 to the configured personal access token at start-up: the REST API refuses the harness's credentials .*; check the token and its account, or remove personalAccessToken from the config$/,
      ),
    ]);
    expect(JSON.stringify(report)).not.toContain('glpat-not-this-one-at-all');
    const later = by('skipped').filter((c) => c.message?.includes('refuses the configured personal access token'));
    expect(later.length).toBeGreaterThan(5);
    for (const c of later) expect(c.message).toContain(`(${errored[0].id} reports it)`);
    // Before, every check was skipped and the run passed: exit 0 with a token nobody accepted.
    expect(r.code).toBe(2);
  });
});
