/**
 * A saved report another version of the tool wrote, or one naming a rule or check this version
 * does not know, is one line and exit code 2 wherever a report is read back (`report merge`,
 * `--rerun-failed`, `--from`); `--durations` takes any version, its times only weigh the slices.
 * A proxy report is said to be one when asked to be rerun. Review 30: a `9.9.9` report merged to
 * one stamped with this version, exit 0; a rule gone from the catalogue showed as a failed must; a
 * proxy report was "a check id there is not one".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeMerge } from '../../cli/report.js';
import { executeRun, type RunFlags } from '../../cli/run.js';
import { readReport } from '../../reporters/read.js';
import { createTally, proxyReport } from '../../suites/proxy/tally.js';
import type { Report } from '../../suites/report/model.js';
import { packageVersion } from '../../suites/runner/report.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-saved-version-'));
const CHECK = 'grants.state-unchanged';
let base: Report;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  await run({ check: CHECK, seed: '6', report: `json=${dir}/base.json` });
  base = JSON.parse(readFileSync(join(dir, 'base.json'), 'utf8')) as Report;
}, 60_000);

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) }, out, err };
}

async function run(flags: RunFlags) {
  const o = io();
  const code = await executeRun({ runs: '2', ...flags }, o.io, {});
  return { code, err: o.err.join('') };
}

async function merge(files: string[]) {
  const o = io();
  const code = await executeMerge(files, { report: `json=${dir}/merged.json` }, o.io);
  return { code, err: o.err.join('') };
}

/** The base report with these changes, saved. */
function saved(name: string, change: (r: Report) => void): string {
  const r = structuredClone(base);
  change(r);
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(r));
  return file;
}

describe('a saved report of another version', () => {
  it.each(['9.9.9', '0.0.1-old'])('%s is one line and exit code 2 to report merge, --rerun-failed and --from', async (version) => {
    const file = saved(`v-${version}.json`, (r) => {
      r.version = version;
      r.checks[0].status = 'failed';
    });
    const said = new RegExp(`v-${version.replace(/\./g, '\\.')}\\.json was written by idp-conformance "${version.replace(/\./g, '\\.')}", this is ${packageVersion().replace(/\./g, '\\.')}`);
    for (const r of [await merge([join(dir, 'base.json'), file]), await run({ rerunFailed: file }), await run({ from: file })]) {
      expect(r.code).toBe(2);
      expect(r.err).toMatch(said);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
    await expect(readReport(file, { anyVersion: true })).resolves.toMatchObject({ version });
  });

  it('still weighs --durations slices: times are times', async () => {
    const file = saved('old-times.json', (r) => (r.version = '0.0.1-old'));
    expect((await run({ check: CHECK, shard: '1/1', durations: file })).code).toBe(0);
  });
});

describe('a saved report naming what this version does not know', () => {
  it('a rule gone from the catalogue, or a check, is one line and exit code 2 to report merge', async () => {
    const gone = saved('gone-rule.json', (r) => {
      r.rules.push({ ...r.rules[0], id: 'TOK-GONE-RULE', status: 'failed' });
      r.checks[0].rules.push('TOK-GONE-RULE');
    });
    const m = await merge([gone]);
    expect(m.code).toBe(2);
    expect(m.err).toMatch(/gone-rule\.json names the rule "TOK-GONE-RULE", which this version's catalogue does not have\n$/);
    const check = saved('gone-check.json', (r) => (r.checks[0].id = 'grants.gone-check'));
    const c = await merge([check]);
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/gone-check\.json names the check "grants\.gone-check", which this version does not have\n$/);
  });
});

describe('run --rerun-failed or --from on a proxy report', () => {
  it('says it is a proxy report, which has no checks to rerun: one line, exit code 2', async () => {
    const tally = createTally();
    tally.add([{ rule: 'TOK-NO-STORE', ok: false, message: 'no no-store' }]);
    const report = proxyReport(tally, { target: 'http://127.0.0.1:9/', release: '18.0', offering: 'self-managed', startedAt: new Date(0) });
    const file = join(dir, 'proxy.json');
    writeFileSync(file, JSON.stringify(report));
    for (const flags of [{ rerunFailed: file }, { from: file, check: CHECK }]) {
      const r = await run({ ...flags, target: 'http://127.0.0.1:9/' });
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/proxy\.json is a proxy report: it judged a client's traffic, so it has no checks to rerun/);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  });
});
