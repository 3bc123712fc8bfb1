/**
 * A target given by `--target` describes itself (GET /-/simulator/config), and that description
 * may name the `manual` driver: a person at the terminal plays the user. In CI nobody is there and
 * stdin is closed. The driver waited on it forever, nothing else kept the process alive, and Node
 * exited 0 with no verdict and no report: a pass, for a run that checked nothing. Now a closed
 * stdin is the harness's trouble, said at once: the checks that needed the user are errored, and
 * the run ends with its verdict, its reports and exit code 2.
 * The real command in a child process, stdin closed (/dev/null): needs the build (npm test builds first).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import type { Report } from '../../suites/report/model.js';
import { simulatorWith, type Loopback } from '../suites/loopback.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'idp-no-operator-'));
let served: Loopback & { sim: Parameters<typeof targetConfig>[0] };

beforeAll(async () => {
  served = await simulatorWith((req, res) => {
    if (req.url !== '/-/simulator/config') return false;
    const config = { ...targetConfig(served.sim, served.url), driver: { kind: 'manual' } };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(config));
    return true;
  });
});

afterAll(() => served?.close());

function run(args: string[]): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, [MAIN, 'run', ...args], {
    env: { ...process.env, NO_COLOR: '1', CI: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, err })));
}

describe('a target that asks for the manual driver, with nobody at the terminal', () => {
  it('errors the checks that need the user, writes its report and exits 2, never 0 with nothing', async () => {
    const report = join(dir, 'report.json');
    const r = await run([
      '--target',
      served.url,
      '--check',
      'grants.code-single-use',
      '--seed',
      '3',
      '--report',
      `json=${report}`,
    ]);
    expect(r.code, r.err).toBe(2);
    expect(existsSync(report)).toBe(true);
    const [check] = (JSON.parse(readFileSync(report, 'utf8')) as Report).checks;
    expect([check.id, check.status]).toEqual(['grants.code-single-use', 'errored']);
    expect(check.message).toMatch(/stdin closed before the operator answered/);
  });
});
