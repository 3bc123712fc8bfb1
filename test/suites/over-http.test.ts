/**
 * `simulate --write-config t.yaml` then `run --config t.yaml` gives the same verdicts as the run
 * against the embedded simulator in process, check by check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulation, type Simulation } from '../../cli/simulate.js';
import { executeRun, type RunFlags } from '../../cli/run.js';
import type { Report } from '../../suites/report/model.js';
import { defaultSeed } from '../../suites/runner/defaults.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-over-http-'));
const configFile = join(dir, 't.yaml');
const seed = String(process.env.IDP_SEED ?? defaultSeed());
/** Few runs: this compares verdicts of two transports, it does not hunt for counterexamples. */
const RUNS = '5';
/** Two whole runs on a shared two-core machine: generous, it is a bound and not a measurement. */
const BOTH_RUNS_TIMEOUT_MS = 300_000;
let simulation: Simulation;

beforeAll(async () => {
  simulation = await startSimulation({ writeConfig: configFile }, () => undefined);
});
afterAll(async () => {
  await simulation?.served.close();
});

async function run(flags: RunFlags, name: string): Promise<{ code: number; report: Report }> {
  const file = join(dir, `${name}.json`);
  const err: string[] = [];
  const code = await executeRun(
    { ...flags, seed, runs: RUNS, report: `json=${file}` },
    { out: () => undefined, err: (t) => void err.push(t) },
    {},
  );
  expect(code, err.join('')).not.toBe(2);
  return { code, report: JSON.parse(readFileSync(file, 'utf8')) as Report };
}

describe('the suites over real HTTP', () => {
  it(
    `give the same verdict for every check as in process (seed ${seed})`,
    async () => {
      const overHttp = await run({ config: configFile }, 'http');
      const inProcess = await run({}, 'embedded');
      const verdicts = (r: Report) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));
      expect(overHttp.report.checks.length).toBeGreaterThan(0);
      expect(verdicts(overHttp.report)).toEqual(verdicts(inProcess.report));
      expect(overHttp.code).toBe(inProcess.code);
      expect(overHttp.report.target).toBe(simulation.served.url);
    },
    BOTH_RUNS_TIMEOUT_MS,
  );

  it('leaves no live token behind: everything the run minted was revoked', async () => {
    const stats = await (await simulation.sim.handle(new Request(`${simulation.served.url}/-/simulator/stats`))).json();
    expect(stats).toMatchObject({ accessTokens: 0, refreshTokens: 0 });
  });
});
