/**
 * A target given by `--target` describes itself (GET /-/simulator/config), and that description
 * may name the `manual` driver: a person at the terminal plays the user. In CI nobody is there and
 * stdin is closed. The driver waited on it forever, nothing else kept the process alive, and Node
 * exited 0 with no verdict and no report: a pass, for a run that checked nothing; and a pipe
 * nobody writes to held the run for ever (the manual driver has no time limit). Now a stdin that
 * is no terminal is the harness's trouble, said at once: the checks that needed the user are
 * errored, and the run ends with its verdict, its reports and exit code 2.
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

/** The command with stdin closed (/dev/null) or a pipe nobody writes to, which stays open. */
function run(args: string[], stdin: 'ignore' | 'pipe'): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, [MAIN, 'run', ...args], {
    env: { ...process.env, NO_COLOR: '1', CI: '1' },
    stdio: [stdin, 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, err })));
}

describe('a target that asks for the manual driver, with nobody at the terminal', () => {
  it.each([
    ['closed (/dev/null)', 'ignore'],
    ['a pipe nobody writes to', 'pipe'],
  ] as const)(
    'stdin %s: errors the checks that need the user, writes its report and exits 2, never 0 with nothing',
    async (name, stdin) => {
      const report = join(dir, `report-${stdin}.json`);
      const r = await run(
        [
          '--target',
          served.url,
          '--check',
          'grants.code-single-use',
          '--seed',
          '3',
          // Bounds the run where the driver would wait for ever: it must not come to that.
          '--deadline',
          '60s',
          '--report',
          `json=${report}`,
        ],
        stdin,
      );
      expect(r.code, r.err).toBe(2);
      expect(existsSync(report)).toBe(true);
      const saved = JSON.parse(readFileSync(report, 'utf8')) as Report;
      expect(saved.stopped, name).toBeUndefined();
      const [check] = saved.checks;
      expect([check.id, check.status]).toEqual(['grants.code-single-use', 'errored']);
      expect(check.message).toMatch(/stdin is not a terminal: the manual driver needs a person at the terminal/);
    },
    120_000,
  );
});
