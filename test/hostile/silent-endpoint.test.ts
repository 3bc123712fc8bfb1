/**
 * A target silent on one endpoint (review 22): in front of the simulator, POST /oauth/token read
 * and never answered, everything else served. Before, every check that reached it waited out
 * --timeout and errored (15 s each: a run of about 30 minutes, and no line saying why), since the
 * answers elsewhere reset the count that stops a silent run. Now the silence is said once: the
 * first check that meets it errors naming the endpoint and the timeout, each later check that
 * reaches it is skipped naming that check, the endpoint not asked again; checks that do not need
 * it pass; one progress line says it; the run ends ERROR, exit 2, its reports written. A body that
 * drips past --timeout (GET /api/v4/user) is the same. A target silent everywhere still stops the
 * run, also when every later check starts at the endpoint already known silent.
 * In process, --timeout 300 ms, a few cheap checks; counts, never the wall clock.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checks as grantsChecks } from '../../suites/grants/index.js';
import { oidcChecks } from '../../suites/oidc/checks.js';
import { checks as scopesChecks } from '../../suites/scopes/index.js';
import { checks as versioningChecks } from '../../suites/versioning/index.js';
import type { Report } from '../../suites/report/model.js';
import { verdict } from '../../suites/report/verdict.js';
import { noAnswer } from '../../suites/runner/errors.js';
import { STOPPED_ANSWERING } from '../../suites/runner/session.js';
import type { Check } from '../../suites/types.js';
import { runCli, simulatorWith, type Loopback } from '../suites/loopback.js';

const TIMEOUT_MS = 300;
const servers: Loopback[] = [];
const dir = mkdtempSync(join(tmpdir(), 'idp-silent-endpoint-'));
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

const all = [...grantsChecks, ...oidcChecks, ...scopesChecks, ...versioningChecks];
const pick = (...ids: string[]) => ids.map((id) => all.find((c) => c.id === id)!);

/**
 * The simulator over HTTP, `METHOD path` (the query aside) never answered: read and left (`drip`:
 * a 200 whose body gains a byte every 50 ms and never ends; `once`: only the first request there).
 * `hush()` silences every request.
 */
async function silentAt(where: string, { drip = false, once = false } = {}) {
  let hits = 0;
  let everywhere = false;
  const server = await simulatorWith((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (!everywhere && (`${req.method} ${path}` !== where || (once && hits > 0))) return false;
    hits++;
    req.resume();
    if (drip) {
      res.writeHead(200, { 'content-type': 'application/json' }).write('{');
      const tick = setInterval(() => res.write(' '), 50);
      res.socket?.once('close', () => clearInterval(tick));
    }
    return true;
  });
  servers.push(server);
  return { url: server.url, sim: server.sim, hits: () => hits, hush: () => (everywhere = true) };
}

async function run(url: string, name: string, checks: Check[]) {
  const file = join(dir, `${name}.json`);
  const r = await runCli(
    { target: url, timeout: String(TIMEOUT_MS), seed: '7', runs: '2', report: `json=${file},md=${file}.md` },
    { checks },
  );
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  const status = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
  const message = (id: string) => report.checks.find((c) => c.id === id)?.message ?? '';
  return { ...r, report, status, message };
}

const notAnswering = /^the target does not answer .*$/gm;

describe('a target silent on POST /oauth/token only', () => {
  it('is said once: one check errors on it, the later ones that need it are skipped naming it, the rest pass; ERROR, exit 2', async () => {
    const target = await silentAt('POST /oauth/token');
    // What the start-up asks there (each left unanswered): a run whose only check never goes there.
    await run(target.url, 'start-up', pick('oidc.jwks'));
    const startUp = target.hits();
    const checks = pick(
      'grants.code-unknown',
      'oidc.jwks',
      'grants.unsupported-grant-type',
      'grants.missing-parameter',
      'grants.code-single-use',
      'versioning.api-prefix',
    );
    const r = await run(target.url, 'token', checks);
    expect(r.status).toEqual({
      'grants.code-unknown': 'errored',
      'oidc.jwks': 'passed',
      'grants.unsupported-grant-type': 'skipped',
      'grants.missing-parameter': 'skipped',
      'grants.code-single-use': 'skipped',
      'versioning.api-prefix': 'passed',
    });
    expect(r.message('grants.code-unknown')).toBe(
      `the target did not answer, so nothing was seen: POST /oauth/token: no answer within ${TIMEOUT_MS} ms; POST /oauth/token is not asked again, and the later checks that need it are untested`,
    );
    for (const id of ['grants.unsupported-grant-type', 'grants.missing-parameter', 'grants.code-single-use'])
      expect(r.message(id)).toBe(
        `POST /oauth/token: no answer within ${TIMEOUT_MS} ms; not asked again (grants.code-unknown reports it, once)`,
      );
    // The start-up's questions, and one of the checks': not one per check.
    expect(target.hits() - 2 * startUp).toBe(1);
    expect(r.err.match(notAnswering)).toEqual([
      `the target does not answer POST /oauth/token (no answer within ${TIMEOUT_MS} ms; grants.code-unknown reports it): POST /oauth/token is not asked again, and the later checks that need it are untested; if it is only slow, raise --timeout; bound the run with --deadline`,
    ]);
    expect(r.code, r.err).toBe(2);
    expect(verdict(r.report)).toBe('error');
    expect(r.report.stopped).toBeUndefined();
    expect(r.out).toMatch(/^ERROR \(/m);
  }, 120_000);

  it('met by a check that reads it as no answer and goes on: that check still reports it, errored, never a pass', async () => {
    const target = await silentAt('POST /oauth/token');
    const [jwks, later] = pick('oidc.jwks', 'grants.unsupported-grant-type');
    // A check that asks the silent endpoint on its way, takes no answer for an answer, and passes on the rest.
    const onItsWay: Check = {
      ...jwks,
      run: async (t) => {
        await t.http.post('/oauth/token', { form: { grant_type: 'x' } }).catch(noAnswer);
        return jwks.run(t);
      },
    };
    const r = await run(target.url, 'swallowed', [onItsWay, later]);
    expect(r.status).toEqual({ 'oidc.jwks': 'errored', 'grants.unsupported-grant-type': 'skipped' });
    expect(r.message('oidc.jwks')).toBe(
      `the target did not answer, so nothing was seen: POST /oauth/token: no answer within ${TIMEOUT_MS} ms; POST /oauth/token is not asked again, and the later checks that need it are untested`,
    );
    expect(r.message('grants.unsupported-grant-type')).toMatch(/\(oidc\.jwks reports it, once\)$/);
    expect(r.code, r.err).toBe(2);
  }, 120_000);
});

describe('a target whose GET /api/v4/user drips a byte at a time past --timeout', () => {
  it('is the same: no answer in time, said once', async () => {
    const target = await silentAt('GET /api/v4/user', { drip: true });
    const r = await run(target.url, 'drip', pick('versioning.api-prefix', 'oidc.jwks', 'scopes.missing-token-401'));
    expect(r.status).toEqual({
      'versioning.api-prefix': 'errored',
      'oidc.jwks': 'passed',
      'scopes.missing-token-401': 'skipped',
    });
    expect(r.message('versioning.api-prefix')).toContain(
      `GET /api/v4/user: the answer did not end within ${TIMEOUT_MS} ms; GET /api/v4/user is not asked again`,
    );
    expect(r.message('scopes.missing-token-401')).toBe(
      `GET /api/v4/user: the answer did not end within ${TIMEOUT_MS} ms; not asked again (versioning.api-prefix reports it, once)`,
    );
    expect(r.err.match(notAnswering)).toHaveLength(1);
    expect(r.code, r.err).toBe(2);
  }, 120_000);
});

describe('a target that leaves one request of the start-up unanswered', () => {
  it('is asked again after the start-up: the revocation endpoint it missed once still revokes every token', async () => {
    // The start-up's question to POST /oauth/revoke is the only one left unanswered.
    const target = await silentAt('POST /oauth/revoke', { once: true });
    const r = await run(target.url, 'hiccup', pick('grants.token-response-fields'));
    expect(target.hits()).toBe(1);
    expect(r.status).toEqual({ 'grants.token-response-fields': 'passed' });
    const stats = await (await target.sim.handle(new Request(`${target.url}/-/simulator/stats`))).json();
    expect(stats).toMatchObject({ accessTokens: 0, refreshTokens: 0 });
    expect(r.code, r.err).toBe(0);
  }, 120_000);
});

describe('a target that falls silent everywhere', () => {
  it('still stops the run when every later check starts at the endpoint already known silent', async () => {
    const target = await silentAt('none');
    // Silent from the first check's first request on: each check below starts at POST /oauth/token.
    const [first, ...rest] = pick(
      'grants.code-unknown',
      'grants.unsupported-grant-type',
      'grants.missing-parameter',
      'grants.json-body',
    );
    const hushing: Check = {
      ...first,
      run: (t) => {
        target.hush();
        return first.run(t);
      },
    };
    const r = await run(target.url, 'dead', [hushing, ...rest]);
    expect(r.code, r.err).toBe(2);
    expect(r.report.stopped).toEqual({ reason: 'silent', message: STOPPED_ANSWERING });
    expect(r.report.checks.filter((c) => c.status === 'failed')).toEqual([]);
    expect(r.report.checks.at(-1)?.message).toBe(STOPPED_ANSWERING);
  }, 120_000);
});
