/** `run --rerun-failed report.json` and `run --from report.json --check ID`. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeRun, type RunFlags } from '../../cli/run.js';
import { savedSelection } from '../../cli/saved-run.js';
import type { Report } from '../../suites/report/model.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-rerun-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Report;

async function run(flags: RunFlags) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await executeRun({ runs: '5', ...flags }, { out: (t) => void out.push(t), err: (t) => void err.push(t) }, {});
  return { code, out: out.join(''), err: err.join('') };
}

describe('run --rerun-failed', () => {
  it('runs exactly the failed checks of a fault run, with its seed and its fault', async () => {
    const first = await run({
      suite: 'grants,tokens',
      seed: '23',
      fault: ['refresh-token-reusable'],
      report: `json=${dir}/first.json`,
    });
    expect(first.code).toBe(1);
    const report = read(`${dir}/first.json`);
    expect(report.invocation?.args).toEqual(['--runs', '5', '--fault', 'refresh-token-reusable']);
    const failing = report.checks.filter((c) => ['failed', 'warned', 'errored'].includes(c.status)).map((c) => c.id);
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.length).toBeLessThan(report.checks.length);

    // No --seed and no --fault: both come from the report, so the failures come back.
    const again = await run({ rerunFailed: `${dir}/first.json`, report: `json=${dir}/again.json` });
    expect(again.code).toBe(1);
    const rerun = read(`${dir}/again.json`);
    expect(rerun.checks.map((c) => c.id)).toEqual(failing);
    expect(rerun.seed).toBe(23);
    expect(rerun.target).toBe(report.target);
    expect(rerun.checks.every((c) => c.status === 'failed' || c.status === 'warned')).toBe(true);
  });

  it('says there is nothing to rerun when nothing failed, and exits 0', async () => {
    await run({ check: 'grants.state-unchanged', seed: '5', report: `json=${dir}/green.json` });
    const r = await run({ rerunFailed: `${dir}/green.json` });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/nothing to rerun: no check failed, warned, errored or was left unrun in .*green\.json/);
  });

  it('reruns the checks a run cut short left unrun (--deadline, a signal), not those skipped for a reason of the target', async () => {
    // Past its deadline before the first check: every check skipped, STOPPED, exit 2.
    const cut = await run({ suite: 'oidc', seed: '7', deadline: '1ms', report: `json=${dir}/cut.json` });
    expect(cut.code).toBe(2);
    const stopped = read(`${dir}/cut.json`);
    expect(stopped.stopped?.reason).toBe('deadline');
    const ids = stopped.checks.map((c) => c.id);
    expect(ids.length).toBeGreaterThan(1);
    const again = await run({ rerunFailed: `${dir}/cut.json`, report: `json=${dir}/cut-again.json` });
    expect(again.out).not.toMatch(/nothing to rerun/);
    expect(read(`${dir}/cut-again.json`).checks.map((c) => c.id)).toEqual(ids);
    expect(again.code).toBe(0);

    // The same report as an interruption had left it, one check skipped for a reason of its own.
    const interrupted: Report = {
      ...stopped,
      stopped: undefined,
      interrupted: 'SIGINT',
      checks: stopped.checks.map((c, i) =>
        i === 0 ? { ...c, message: 'the target does not offer it' } : { ...c, message: 'the run was interrupted' },
      ),
    };
    writeFileSync(`${dir}/int.json`, JSON.stringify(interrupted));
    const resumed = await run({ rerunFailed: `${dir}/int.json`, report: `json=${dir}/int-again.json` });
    expect(resumed.code, resumed.err).toBe(0);
    expect(read(`${dir}/int-again.json`).checks.map((c) => c.id)).toEqual(ids.slice(1));
  });

  it.each<[RunFlags, RegExp]>([
    [{ rerunFailed: 'a.json', from: 'b.json' }, /give --rerun-failed or --from, not both/],
    [{ rerunFailed: 'a.json', check: 'x' }, /--rerun-failed runs the checks the report names/],
    [{ rerunFailed: '/nonexistent/r.json' }, /cannot read the report \/nonexistent\/r\.json: ENOENT/],
  ])('refuses %j with one line and exit code 2', async (flags, message) => {
    const r = await run(flags);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(message);
  });
});

describe('run --from report.json --check ID', () => {
  it('reproduces one check from a saved report: its seed and fault, this check only', async () => {
    const report = read(`${dir}/first.json`);
    const failed = report.checks.find((c) => c.status === 'failed')!;
    const r = await run({ from: `${dir}/first.json`, check: failed.id, report: `json=${dir}/one.json` });
    expect(r.code).toBe(1);
    const one = read(`${dir}/one.json`);
    expect(one.checks.map((c) => [c.id, c.status])).toEqual([[failed.id, 'failed']]);
    expect(one.seed).toBe(report.seed);
    // The reproduce line the failure prints names the same seed and fault.
    expect(one.checks[0].reproduce).toBe(failed.reproduce);
  });

  it('lets the command line override the report (another seed)', async () => {
    const r = await run({ from: `${dir}/first.json`, check: 'grants.state-unchanged', seed: '99', report: `json=${dir}/o.json` });
    expect(r.code).toBe(0);
    expect(read(`${dir}/o.json`).seed).toBe(99);
  });

  it('reads only the selection back from invocation args: runs, faults and --slow, typed', () => {
    const report = { ...read(`${dir}/first.json`) };
    report.invocation = {
      args: ['--target', 'http://x', '--slow', '--fault', 'a', '--release', '--fault', 'b', '--runs', '5', '--report', 'json=/x'],
    };
    expect(savedSelection(report, 'r.json')).toEqual({
      seed: 23,
      release: report.release,
      runs: 5,
      faults: ['a', 'b'],
      slow: true,
      embedded: true,
    });
  });
});
