/**
 * A target that rate-limits every request from the first: the run ends at once with one line that
 * says so (exit 2), not "not an identity provider", and never waits longer than it would for one
 * request. One whose quota runs out mid-run stops the run as a silent target does (one line,
 * reports, STOPPED, exit 2), after RATE_LIMITED_LIMIT requests in a row were refused; one that
 * refuses a single path for good does not. The waits pass on a virtual clock
 * (test/suites/virtual-clock.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import type { Report } from '../../suites/report/model.js';
import { RATE_LIMITED_LIMIT } from '../../suites/runner/session.js';
import { BACKOFF_SECONDS, createHttpTarget } from '../../suites/target/http.js';
import { listen, runCli, simulatorWith, type Loopback } from '../suites/loopback.js';
import { virtualClock } from '../suites/virtual-clock.js';

const servers: Loopback[] = [];
const dir = mkdtempSync(join(tmpdir(), 'idp-rate-limited-'));
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function refusingAll(headers: Record<string, string>) {
  const server = await listen((req, res) => {
    req.resume();
    res.writeHead(429, { 'content-type': 'application/json', ...headers });
    res.end('{"message":"Retry later"}');
  });
  servers.push(server);
  const clock = virtualClock();
  const r = await runCli(
    { target: server.url },
    { target: async () => createHttpTarget({ baseUrl: server.url }, { clock }) },
  );
  return { ...r, url: server.url, clock };
}

describe('a target that rate-limits every request', () => {
  it('with no wait named: backs off 1 s and 2 s once, then stops the run with one line, exit 2', async () => {
    const r = await refusingAll({});
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toEqual([
      `idp-conformance: target ${r.url} does not serve the harness now: the target rate-limited this request (GET /.well-known/openid-configuration): 429 after 2 retries, waited 3 s; lower --rate, or run again once its limit resets`,
    ]);
    expect(r.out).toBe('');
    // Each probe question is refused after its own backoff; no more is asked once all four were.
    expect(r.clock.slept).toEqual([1000, 2000, 1000, 2000, 1000, 2000, 1000, 2000]);
  });

  it('asking a wait longer than the harness waits: gives up at once, waiting nothing', async () => {
    const r = await refusingAll({ 'retry-after': '3600' });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /does not serve the harness now: the target rate-limited this request \(GET \/\.well-known\/openid-configuration\): 429 after 0 retries, waited 0 s; it asked to wait 3600 s, longer than the 60 s the harness waits;/,
    );
    expect(r.clock.slept).toEqual([]);
  });
});

/** Requests the simulator serves before its quota runs out: the start-up and a few checks. */
const SERVED_BEFORE = 100;

/**
 * The whole run (every check) against the simulator over HTTP, whose requests from `refuses` on are
 * answered `status` with `headers` instead; the harness's HTTP target waits on a virtual clock.
 */
async function quotaRun(
  name: string,
  refuses: (path: string, count: number) => boolean,
  status = 429,
  headers: () => Record<string, string> = () => ({}),
) {
  let count = 0;
  let refused = 0;
  const server = await simulatorWith((req, res) => {
    if (!refuses(req.url!.split('?')[0], ++count)) return false;
    refused++;
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json', ...headers() }).end('{"message":"Retry later"}');
    return true;
  });
  servers.push(server);
  const config = targetConfig(server.sim, server.url);
  const clock = virtualClock();
  const file = join(dir, `${name}.json`);
  const r = await runCli(
    { target: server.url, seed: '4', runs: '3', report: `json=${file},md=${file}.md` },
    { target: async () => createHttpTarget(config, { clock }) },
  );
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  const secrets = [
    config.user?.password,
    config.personalAccessToken,
    ...Object.values(config.applications ?? {}).map((a) => a?.clientSecret),
  ].filter((x): x is string => !!x);
  return { ...r, report, refused: () => refused, clock, secrets, md: readFileSync(`${file}.md`, 'utf8') };
}

/** The one line a stopped run ends with: the message, and how many checks it did not run. */
const stopLine = /^idp-conformance: (the target stopped serving the harness: .*); (\d+) of (\d+) checks not run$/m;

/** What every stopped run shows: exit 2, the line, the reports, no rule failed on the refusals. */
function expectStopped(r: Awaited<ReturnType<typeof quotaRun>>) {
  const { report } = r;
  expect(r.code, r.err).toBe(2);
  expect(r.err).toMatch(stopLine);
  const [, message, notRun, total] = stopLine.exec(r.err)!;
  expect(report.stopped).toEqual({ reason: 'rate-limited', message });
  expect(r.out).toMatch(/^STOPPED \(the target stopped serving the harness: /m);
  expect(r.out).toContain(message);
  expect(r.md).toContain(message);
  // The checks it did not reach are counted, and skipped saying why.
  expect(Number(total)).toBe(report.checks.length);
  expect(Number(notRun)).toBe(report.checks.filter((c) => c.status === 'skipped' && c.message === message).length);
  expect(Number(notRun)).toBeGreaterThan(report.checks.length / 2);
  // The refusals errored their checks; none failed on them, none broke a rule.
  expect(report.checks.filter((c) => c.status === 'failed' || c.status === 'warned')).toEqual([]);
  expect(report.rules.filter((rule) => rule.status === 'failed')).toEqual([]);
  const errored = report.checks.filter((c) => c.status === 'errored');
  expect(errored.length).toBeGreaterThan(0);
  expect(errored.length).toBeLessThanOrEqual(RATE_LIMITED_LIMIT);
  for (const c of errored) expect(c.message).toMatch(/^the target rate-limited this request \(/);
  expect(report.rateLimited).toBe(RATE_LIMITED_LIMIT);
  for (const secret of r.secrets) expect(r.err + r.out).not.toContain(secret);
  return message;
}

describe('a target whose quota runs out mid-run', () => {
  it(`with no wait named: stops after ${RATE_LIMITED_LIMIT} requests in a row are given up, within their backoff`, async () => {
    const r = await quotaRun('spent', (_path, n) => n > SERVED_BEFORE);
    const message = expectStopped(r);
    expect(message).toBe(
      `the target stopped serving the harness: ${RATE_LIMITED_LIMIT} requests in a row were rate-limited`,
    );
    // Each give-up backs off 1 s and 2 s, once: the run's waits end there, as do its refused requests.
    const backoff = BACKOFF_SECONDS.map((s) => s * 1000);
    expect(r.clock.slept).toEqual(Array.from({ length: RATE_LIMITED_LIMIT }, () => backoff).flat());
    expect(r.refused()).toBe(RATE_LIMITED_LIMIT * (backoff.length + 1));
  }, 120_000);

  it("with GitHub's reset an hour away: stops at once, waiting nothing, and says when the limit resets", async () => {
    // One window: the same epoch second on every answer, as GitHub's. Taken before the run's virtual
    // clock starts (which only waits move on): read off real time at each answer instead, a run
    // that took over a second on a loaded machine saw the reset 3,601 s away.
    const resetAt = String(Math.floor(Date.now() / 1000) + 3600);
    const r = await quotaRun(
      'github-hourly',
      (_path, n) => n > SERVED_BEFORE,
      403,
      () => ({
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': resetAt,
      }),
    );
    const message = expectStopped(r);
    const [, seconds] = /; its limit resets in (\d+) s$/.exec(message) ?? [];
    expect(Number(seconds)).toBeGreaterThan(3500);
    expect(Number(seconds)).toBeLessThanOrEqual(3600);
    // A reset past the longest wait gives each request up at once: no wait, one refusal each.
    expect(r.clock.slept).toEqual([]);
    expect(r.refused()).toBe(RATE_LIMITED_LIMIT);
  }, 120_000);

  it('spent during the start-up: stops before the first check, within the same backoff', async () => {
    const r = await quotaRun('start-up', (_path, n) => n > 10);
    expect(r.code, r.err).toBe(2);
    const message = `the target stopped serving the harness: ${RATE_LIMITED_LIMIT} requests in a row were rate-limited`;
    expect(r.report.stopped).toEqual({ reason: 'rate-limited', message });
    const all = r.report.checks.length;
    expect(r.err).toContain(`idp-conformance: ${message}; ${all} of ${all} checks not run\n`);
    const backoff = BACKOFF_SECONDS.map((s) => s * 1000);
    expect(r.clock.slept).toEqual(Array.from({ length: RATE_LIMITED_LIMIT }, () => backoff).flat());
  }, 120_000);

  it('that refuses only the token endpoint, for good: runs every check to its end, no STOPPED', async () => {
    // Checks that each start at the token endpoint give it up in a row, with nothing asked between.
    let tokenRequests = 0;
    const r = await quotaRun('token-only', (path) => path === '/oauth/token' && ++tokenRequests > 6);
    expect(r.report.stopped).toBeUndefined();
    expect(r.err).not.toMatch(/stopped serving/);
    expect(r.report.checks.filter((c) => c.status === 'failed' || c.status === 'warned')).toEqual([]);
    const errored = r.report.checks.filter((c) => c.status === 'errored');
    expect(errored.length).toBeGreaterThan(RATE_LIMITED_LIMIT);
    for (const c of errored)
      expect(c.message).toMatch(/^the target rate-limited this request \([A-Z]+ \/oauth\/token\)/);
    expect(r.report.checks.filter((c) => c.status === 'passed').length).toBeGreaterThan(errored.length / 2);
    expect(r.code).toBe(2);
  }, 120_000);
});
