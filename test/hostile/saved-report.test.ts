/**
 * A saved report is data, not flags: a crafted report whose invocation names --report paths,
 * --target, --config and --expect reruns on the embedded simulator as the command line says, writes
 * nowhere it names and sends nothing to the target it names. A report of a run elsewhere is rerun
 * only where the command line points. Malformed selection fields are one line and exit code 2, and
 * so is a file past MAX_REPORT_BYTES (a crafted multi-GB file, /dev/zero), not read whole, and one
 * whose every check is wrong (judged at its first problem, not all of them).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRun, type RunFlags } from '../../cli/run.js';
import type { Report } from '../../suites/report/model.js';
import { MAX_REPORT_BYTES, readReport } from '../../reporters/read.js';
import { listen, type Loopback } from '../suites/loopback.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-saved-'));
const CHECK = 'grants.state-unchanged';
let collector: Loopback;
let hits = 0;
let base: Report;

beforeAll(async () => {
  collector = await listen((req, res) => {
    hits++;
    req.resume();
    res.writeHead(500).end();
  });
  await run({ check: CHECK, seed: '8', report: `json=${dir}/base.json` });
  base = JSON.parse(readFileSync(`${dir}/base.json`, 'utf8')) as Report;
}, 60_000);
afterAll(async () => {
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(flags: RunFlags) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await executeRun(
    { runs: '3', ...flags },
    { out: (t) => void out.push(t), err: (t) => void err.push(t) },
    {},
  );
  return { code, out: out.join(''), err: err.join('') };
}

/** The base report, its check failed, with these changes. */
function crafted(name: string, change: (r: Report) => void): string {
  const r = structuredClone(base);
  r.checks[0].status = 'failed';
  change(r);
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(r));
  return file;
}

describe('a crafted saved report', () => {
  it('cannot choose report paths, the target, the config or the expect file', async () => {
    const evil = join(dir, 'evil');
    const file = crafted('paths.json', (r) => {
      r.invocation = {
        args: [
          '--report',
          `json=${evil}.json,html=${evil}.html`,
          '--target',
          collector.url,
          '--config',
          `${evil}.yaml`,
          '--expect',
          `${evil}-expect.yaml`,
          '--runs',
          '2',
        ],
      };
    });
    for (const flags of [{ rerunFailed: file }, { from: file, check: CHECK }]) {
      const r = await run({ ...flags, runs: undefined });
      expect(r.err).not.toMatch(/evil/);
      expect(r.code, r.err + r.out).toBe(0);
      expect(r.out).toMatch(/embedded simulator/);
    }
    expect(hits).toBe(0);
    for (const ext of ['.json', '.html', '.yaml', '-expect.yaml']) expect(existsSync(evil + ext)).toBe(false);
  }, 60_000);

  it('of a run elsewhere is rerun only where the command line points', async () => {
    const file = crafted('elsewhere.json', (r) => {
      r.target = collector.url;
      r.invocation = { args: ['--target', collector.url] };
    });
    const r = await run({ rerunFailed: file });
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/give --target or --config \(a saved report never chooses the target\)/);
    expect(hits).toBe(0);
  });

  it.each<[string, (r: Report) => void, RegExp]>([
    ['runs', (r) => (r.invocation = { args: ['--runs', '--report'] }), /a --runs that is not a count/],
    ['fault', (r) => (r.invocation = { args: ['--fault', '../../x'] }), /a --fault that is not a fault name/],
    // Named, quoted: the escape is written out, not sent to the terminal.
    ['check', (r) => (r.checks[0].id = 'x\u001b[31m'), /: "x\\u001b\[31m" is not a check id\n$/],
  ])('with a malformed %s is one line and exit code 2', async (name, change, message) => {
    const r = await run({ rerunFailed: crafted(`${name}.json`, change) });
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(message);
  });
});

describe('a saved report too large to judge whole', () => {
  // Read whole before: a 100 MB file held 289 MB, /dev/zero 649 MB before "Invalid string length".
  it('is refused in one line without being read whole, a file by its size, a device as it is read', async () => {
    const sparse = join(dir, 'sparse.json');
    writeFileSync(sparse, '');
    truncateSync(sparse, MAX_REPORT_BYTES + 1);
    for (const file of [sparse, '/dev/zero'])
      await expect(readReport(file)).rejects.toThrow(`${file} is larger than 16 MiB: not a report`);
  });

  // Ajv gathering every error is quadratic in their number: 100,000 of them (200 KB) took 75 s.
  it('whose every check is wrong is refused in one line, at its first problem', async () => {
    const file = join(dir, 'bad-checks.json');
    writeFileSync(file, JSON.stringify({ ...base, checks: Array(50_000).fill(1) }));
    await expect(readReport(file)).rejects.toThrow(
      new RegExp(`^${file} is not an idp-conformance JSON report: /checks/0: must be object$`),
    );
  });
});
