/**
 * An endpoint every suite reaches for on its way to what it tests (the token, revocation and
 * device authorization endpoints, the key set), absent at the target (404), is reported once: the
 * check that says it must answer fails; every other check that would send a request there is
 * skipped, saying why. Before, an absent POST /oauth/token failed about sixty checks, each on its
 * own rules (PKCE, refresh, CORS, client authentication...), and an absent revocation endpoint, key
 * set or device endpoint a dozen each. The reporter itself fails that one rule alone: its request
 * answered 404 broke no body, media type or effect besides.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeRun } from '../../cli/run.js';
import { targetConfig } from '../../simulator/control/config.js';
import type { Report } from '../../suites/report/model.js';
import { SUITES } from '../../suites/runner/run.js';
import type { Check, CheckContext } from '../../suites/types.js';
import { simulatorWith, type Loopback } from '../suites/loopback.js';
import { notFound, runAgainst, startProvider, HAS_CHROMIUM } from './provider.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-absent-'));
const servers: Loopback[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

const CASES = [
  {
    path: '/oauth/token',
    reporter: 'grants.token-response-fields',
    rule: 'GRANT-CODE-PARAMS',
    why: /no token endpoint/,
  },
  { path: '/oauth/revoke', reporter: 'tokens.revoke-access-token', rule: 'REV-PARAMS', why: /no revocation endpoint/ },
  {
    path: '/oauth/authorize_device',
    reporter: 'device.authorization-response',
    rule: 'DEV-AVAILABILITY',
    why: /no device authorization endpoint/,
  },
  { path: '/oauth/discovery/keys', reporter: 'oidc.jwks', rule: 'OIDC-JWKS', why: /no key set/ },
  {
    path: '/oauth/authorize',
    reporter: 'grants.sign-in-required',
    rule: 'GRANT-CODE-FLOW',
    why: /no authorization endpoint/,
  },
];

// Pagination reads the REST API with the configured access token and sends nothing to /oauth; it
// is also a third of a run's time. The token endpoint's case runs it (every suite), the others not.
const BUT_PAGINATION = SUITES.filter((s) => s !== 'pagination').join(',');
const BROWSER_SUITES = SUITES.filter((s) => s !== 'device' && s !== 'pagination').join(',');

/** The run against the simulator with `c.path` absent (404), the user played by `kind`'s driver. */
async function absentRun(c: (typeof CASES)[number], kind?: 'form' | 'browser') {
  // Any method on that path answers 404 with an HTML page, as a server without the route does.
  const server = await simulatorWith((req, res) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== c.path) return false;
    req.resume();
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<html><body>Not Found</body></html>');
    return true;
  });
  servers.push(server);
  const name = `${c.reporter}${kind ? `-${kind}` : ''}`;
  const file = join(dir, `${name}.json`);
  const config = targetConfig(server.sim, server.url);
  writeFileSync(file, JSON.stringify(kind ? { ...config, driver: { ...config.driver, kind } } : config));
  const report = join(dir, `${name}-report.json`);
  let err = '';
  const code = await executeRun(
    // In Chromium, every suite but device (its verification pages, each a page load, are not
    // behind the authorization endpoint).
    {
      config: file,
      report: `json=${report}`,
      runs: '1',
      seed: '5',
      ...(kind === 'browser' ? { suite: BROWSER_SUITES } : c.path === '/oauth/token' ? {} : { suite: BUT_PAGINATION }),
    },
    { out: () => undefined, err: (t) => void (err += t) },
  );
  const json = JSON.parse(readFileSync(report, 'utf8')) as Report;
  const why = `${err}\n${json.checks
    .filter((k) => k.status !== 'passed')
    .map((k) => `${k.status} ${k.id}: ${k.message ?? ''}`)
    .join('\n')}`;
  expect(code, why).toBe(1);
  const bad = json.checks.filter((k) => k.status === 'failed' || k.status === 'warned' || k.status === 'errored');
  expect(
    bad.map((k) => `${k.status} ${k.id}`),
    why,
  ).toEqual([`failed ${c.reporter}`]);
  // One cause, one blame: the absence fails the rule that says the endpoint answers, none besides
  // (not the body, media type or effect of an answer that never came).
  expect(
    json.rules.filter((r) => r.status === 'failed' || r.status === 'warned').map((r) => `${r.status} ${r.id}`),
    why,
  ).toEqual([`failed ${c.rule}`]);
  const skipped = json.checks.filter((k) => k.status === 'skipped' && c.why.test(k.message ?? ''));
  expect(skipped.length, why).toBeGreaterThan(0);
}

describe('an endpoint absent at the target is reported once', () => {
  it.each(CASES)('$path: only $reporter fails, on $rule; what needs it is skipped', (c) => absentRun(c), 120_000);

  // The drivers that play the provider's pages: the browser's page loads do not pass through the
  // harness's HTTP layer, and are skipped all the same, before any page loads.
  const authorize = CASES.find((c) => c.path === '/oauth/authorize')!;
  it('/oauth/authorize with the form driver: the same', () => absentRun(authorize, 'form'), 240_000);
  it.skipIf(!HAS_CHROMIUM)(
    '/oauth/authorize with the browser driver: the same',
    () => absentRun(authorize, 'browser'),
    240_000,
  );

  it('the device endpoint: a check asking the driver to verify a device code is skipped, the driver not asked', async () => {
    const provider = await startProvider((_method, url) =>
      url.pathname === '/oauth/authorize_device' ? () => notFound : undefined,
    );
    servers.push(provider);
    let played = 0;
    const verify: Check = {
      id: 'device.verify-anyway',
      suite: 'device',
      title: 'Asks the driver to approve a device code without asking the device endpoint for one',
      rules: ['DEV-AVAILABILITY'],
      async run(t: CheckContext) {
        await t.driver.approveDevice('WXYZ-2345');
        played++;
        t.expect(false, 'the driver verified a device code where the device endpoint is absent');
      },
    };
    const { report } = await runAgainst(provider, {}, [verify]);
    expect(played).toBe(0);
    expect(report.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`)).toEqual([
      expect.stringMatching(/^skipped device\.verify-anyway: the target has no device authorization endpoint/),
    ]);
  }, 120_000);

  it('the discovery document: only oidc.discovery says so (a should), not the content type of the 404', async () => {
    const server = await simulatorWith((req, res) => {
      if (new URL(req.url ?? '/', 'http://x').pathname !== '/.well-known/openid-configuration') return false;
      req.resume();
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>Not Found</body></html>');
      return true;
    });
    servers.push(server);
    const file = join(dir, 'discovery.json');
    writeFileSync(file, JSON.stringify(targetConfig(server.sim, server.url)));
    const report = join(dir, 'discovery-report.json');
    // Every suite but pagination, which reads the REST API only (as the endpoint cases above).
    await executeRun(
      { config: file, report: `json=${report}`, runs: '1', seed: '5', suite: BUT_PAGINATION },
      { out: () => undefined, err: () => undefined },
    );
    const json = JSON.parse(readFileSync(report, 'utf8')) as Report;
    const bad = json.checks.filter((k) => k.status === 'failed' || k.status === 'warned' || k.status === 'errored');
    expect(bad.map((k) => `${k.status} ${k.id}: ${k.message ?? ''}`)).toEqual([
      expect.stringMatching(/^warned oidc\.discovery: /),
    ]);
  }, 120_000);
});

/**
 * A premise of the provider's own whose reporter the run leaves out (`--rule`, `--suite`, `--check`):
 * the checks that need it are skipped, and their reason no longer points at a check that never ran
 * ("tokens.info-presentations reports it") as if the absence had been reported: it says the run
 * leaves that check out and how to run it. With the reporter in the run, the reason is as before.
 */
describe('a missing premise whose reporter the run leaves out', () => {
  it('is skipped saying so, and how to see it; with the reporter in the run, it reports it', async () => {
    const provider = await startProvider((method, url) =>
      method === 'GET' && url.pathname === '/oauth/token/info' ? () => notFound : undefined,
    );
    servers.push(provider);
    const skipOf = (report: Report) => report.checks.find((c) => c.id === 'tokens.info-deprecated-aliases');

    const without = await runAgainst(provider, { rule: 'INFO-ALIAS-SCOPES', runs: '1' });
    expect(without.report.checks.map((c) => c.id)).not.toContain('tokens.info-presentations');
    expect(skipOf(without.report)?.status).toBe('skipped');
    expect(skipOf(without.report)?.message).toMatch(
      /no token information endpoint: .*\(tokens\.info-presentations reports it on INFO-TOKEN-PRESENTATION; this run leaves it out: run it with --check tokens\.info-presentations\)$/,
    );

    const withIt = await runAgainst(provider, { rule: 'INFO-ALIAS-SCOPES,INFO-TOKEN-PRESENTATION', runs: '1' });
    expect(withIt.report.checks.find((c) => c.id === 'tokens.info-presentations')?.status).toBe('failed');
    expect(skipOf(withIt.report)?.message).toMatch(
      /\(tokens\.info-presentations reports it on INFO-TOKEN-PRESENTATION\)$/,
    );
  }, 60_000);
});
