/**
 * The harness against something that looks like a live deployment: the simulator with no control
 * API (`simulate --no-control`), reached over HTTP, the user played by the HTML forms. The run
 * must pass, skip what needs the simulator with a reason, change nothing it did not create, and
 * leave no token alive.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startSimulation, type Simulation } from '../../cli/simulate.js';
import { executeRun } from '../../cli/run.js';
import { tokenExpired } from '../../simulator/credentials.js';
import { refreshState } from '../../simulator/oauth/tokens.js';
import type { Report } from '../../suites/report/model.js';
import { defaultSeed } from '../../suites/runner/defaults.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-live-'));
const configFile = join(dir, 'live.yaml');
const seed = String(process.env.IDP_SEED ?? defaultSeed());
const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/**
 * Writes that cannot change a deployment, by construction: routes no endpoint matches (the
 * unknown-route check) and runner registration with a token no instance ever issued.
 */
const harmlessProbe = (path: string) => path.startsWith('/api/v4/conformance-unknown-') || path === '/api/v4/runners';
let simulation: Simulation;
const seen: { method: string; path: string }[] = [];

beforeAll(async () => {
  simulation = await startSimulation({ writeConfig: configFile, control: false }, () => undefined);
  const answer = simulation.sim.answer.bind(simulation.sim);
  // Every request the harness sends, as the deployment sees it (answer: the entry of every adapter).
  simulation.sim.answer = (request) => {
    seen.push({ method: request.method, path: new URL(request.url).pathname });
    return answer(request);
  };
});
afterAll(async () => {
  await simulation?.served.close();
});

describe('a live-looking target (no control API, form driver, over HTTP)', () => {
  let report: Report;
  let code: number;

  it('the written config names the form driver', () => {
    expect(parse(readFileSync(configFile, 'utf8')).driver.kind).toBe('form');
  });

  it(`passes every check it can run, and skips the rest with a reason (seed ${seed})`, async () => {
    const file = join(dir, 'report.json');
    const err: string[] = [];
    code = await executeRun(
      { config: configFile, seed, runs: '5', report: `json=${file}` },
      { out: () => undefined, err: (t) => void err.push(t) },
      {},
    );
    report = JSON.parse(readFileSync(file, 'utf8')) as Report;
    const bad = report.checks
      .filter((c) => c.status === 'failed' || c.status === 'warned')
      .map((c) => `${c.status} ${c.id}: ${c.message}`);
    expect(bad, err.join('')).toEqual([]);
    expect(code).toBe(0);
    const passed = report.checks.filter((c) => c.status === 'passed').length;
    // Most of the spec is checkable without the simulator's help; the rest must say why not.
    expect(passed).toBeGreaterThan(report.checks.length / 2);
    for (const c of report.checks.filter((x) => x.status === 'skipped')) expect(c.message, c.id).toBeTruthy();
  }, 300_000);

  it('changed nothing: no control API call beyond the probe, no REST write, no application registered', () => {
    const writes = seen.filter(
      (r) =>
        WRITE.has(r.method) &&
        (r.path.startsWith('/api/v4/') ||
          r.path.startsWith('/-/simulator/') ||
          r.path === '/user_settings/applications') &&
        !harmlessProbe(r.path),
    );
    expect(writes).toEqual([]);
    const control = seen.filter((r) => r.path.startsWith('/-/simulator/') && r.path !== '/-/simulator/config');
    expect(control).toEqual([]);
    expect(seen.length).toBeGreaterThan(100);
  });

  it('left no OAuth token alive', () => {
    const alive = [...simulation.sim.store.accessTokens.values()].filter(
      (t) => t.kind === 'oauth' && t.revokedAt === null && !tokenExpired(simulation.sim, t),
    );
    expect(alive.length).toBe(0);
    const refresh = [...simulation.sim.store.refreshTokens.values()].filter((r) => refreshState(r) === 'active');
    expect(refresh.length).toBe(0);
  });
});
