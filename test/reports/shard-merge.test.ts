/**
 * Sharding and merging: `run --shard i/n` for every i runs each check exactly once, and `report
 * merge` of the shards gives the unsharded run's per-check and per-rule verdicts, failures included.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeRun, type RunFlags } from '../../cli/run.js';
import { executeMerge } from '../../cli/report.js';
import { assignShards, parseShard, shardOf } from '../../suites/runner/shard.js';
import { mergeReports } from '../../suites/runner/merge.js';
import type { Report } from '../../suites/report/model.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-shards-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const quiet = { out: () => undefined, err: () => undefined };
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Report;
const run = (flags: RunFlags) => executeRun({ seed: '11', runs: '5', ...flags }, quiet, {});

/** What must match between the merge and the unsharded run. */
const verdicts = (r: Report) => ({
  checks: r.checks.map((c) => [c.id, c.status, c.broken ?? null]),
  rules: r.rules.map((x) => [x.id, x.status, [...x.checks].sort()]),
  summary: r.summary,
});

describe('shards', () => {
  it('parses i/n and refuses anything else', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, total: 3 });
    for (const bad of ['0/3', '4/3', '1/0', 'a/b', '1', '1/3/4', ''])
      expect(() => parseShard(bad)).toThrow(/--shard must be i\/n/);
  });

  it('slices by count when no durations are known, each check in exactly one shard', () => {
    const ids = Array.from({ length: 10 }, (_, i) => `c${i}`);
    const slices = [1, 2, 3].map((index) => shardOf(ids.map((id) => ({ id })), { index, total: 3 }));
    expect(slices.map((s) => s.length)).toEqual([4, 3, 3]);
    expect(slices.flat().map((c) => c.id).sort()).toEqual([...ids].sort());
  });

  it('balances by recorded durations: one long check gets a shard of its own', () => {
    const ids = ['long', 'a', 'b', 'c', 'd'];
    const durations = new Map([
      ['long', 1000],
      ['a', 10],
      ['b', 10],
      ['c', 10],
      ['d', 10],
    ]);
    const assigned = assignShards(ids, 2, durations);
    const longShard = assigned[0];
    expect(assigned.filter((s) => s === longShard)).toHaveLength(1);
    // By count the long check would share its shard.
    expect(assignShards(ids, 2).filter((s) => s === assignShards(ids, 2)[0])).toHaveLength(3);
  });

  it('a check the durations do not know weighs as an average one', () => {
    const assigned = assignShards(['x', 'y', 'new'], 2, new Map([['x', 100], ['y', 100]]));
    expect(new Set(assigned).size).toBe(2);
  });
});

describe('report merge', () => {
  it('of --shard 1/3, 2/3, 3/3 equals the unsharded run, per check and per rule, with a fault on', async () => {
    const flags: RunFlags = { suite: 'grants,tokens', fault: ['refresh-token-reusable'] };
    expect(await run({ ...flags, report: `json=${dir}/all.json` })).toBe(1);
    const whole = read(`${dir}/all.json`);
    expect(whole.summary.failed).toBeGreaterThan(0);
    for (const i of [1, 2, 3]) await run({ ...flags, shard: `${i}/3`, report: `json=${dir}/s${i}.json` });
    const shards = [1, 2, 3].map((i) => read(`${dir}/s${i}.json`));
    expect(shards.map((s) => s.shard)).toEqual([1, 2, 3].map((index) => ({ index, total: 3 })));
    expect(shards.reduce((n, s) => n + s.checks.length, 0)).toBe(whole.checks.length);
    // A rule failed in one shard is failed in the merge, though the other shards list it untested.
    const failedRule = whole.rules.find((r) => r.status === 'failed')!;
    expect(shards.filter((s) => s.rules.find((r) => r.id === failedRule.id)?.status === 'failed')).toHaveLength(1);

    const out: string[] = [];
    const code = await executeMerge(
      [1, 2, 3].map((i) => `${dir}/s${i}.json`),
      { report: `json=${dir}/merged.json,junit-rules=${dir}/rules.xml,html=${dir}/m.html,md=${dir}/m.md` },
      { out: (t) => void out.push(t), err: (t) => void out.push(t) },
    );
    expect(code).toBe(1);
    const merged = read(`${dir}/merged.json`);
    expect(verdicts(merged)).toEqual(verdicts(whole));
    expect(merged.shard).toBeUndefined();
    expect(merged.shards).toEqual({ indexes: [1, 2, 3], total: 3 });
    expect(readFileSync(`${dir}/rules.xml`, 'utf8')).toContain(`name="${failedRule.id} — `);
  });

  it('refuses shards of different runs and a check run twice, with one line and exit code 2', async () => {
    const base = read(`${dir}/s1.json`);
    writeFileSync(`${dir}/other-seed.json`, JSON.stringify({ ...base, seed: 12 }));
    const err: string[] = [];
    const io = { out: () => undefined, err: (t: string) => void err.push(t) };
    expect(await executeMerge([`${dir}/s1.json`, `${dir}/other-seed.json`], {}, io)).toBe(2);
    expect(err.pop()).toMatch(/^idp-conformance: .*other-seed\.json is not a shard of the run of .*: seed 12 is not 11 \(runs made apart merge when each was run with the same --seed\)\n$/);
    expect(await executeMerge([`${dir}/s1.json`, `${dir}/s1.json`], {}, io)).toBe(2);
    expect(err.pop()).toMatch(/check \S+ is in both/);
    writeFileSync(`${dir}/junk.json`, '{"tool":"x"}');
    expect(await executeMerge([`${dir}/junk.json`], {}, io)).toBe(2);
    expect(err.pop()).toMatch(/junk\.json is not an idp-conformance JSON report/);
    expect(await executeMerge([`${dir}/none.json`], {}, io)).toBe(2);
    expect(err.pop()).toMatch(/cannot read the report .*none\.json: ENOENT/);
  });

  it('recomputes --expect (expected and stale), the must coverage and carries an interrupt', async () => {
    const flags: RunFlags = { suite: 'grants', fault: ['code-reusable'], requireCoverage: '10' };
    expect(await run({ ...flags, report: `json=${dir}/plain.json` })).toBe(1);
    const plain = read(`${dir}/plain.json`);
    const held = plain.rules.find((r) => r.status === 'passed' && r.level === 'must')!;
    const expectFile = join(dir, 'expect.yaml');
    writeFileSync(
      expectFile,
      `expected:\n  - rule: GRANT-CODE-SINGLE-USE\n    reason: "ticket 1"\n  - rule: ${held.id}\n    reason: "ticket 2"\n`,
    );
    const withExpect = { ...flags, expect: expectFile };
    await run({ ...withExpect, report: `json=${dir}/x-all.json` });
    const whole = read(`${dir}/x-all.json`);
    expect(whole.summary.expected).toBeGreaterThan(0);
    expect(whole.rules.find((r) => r.id === held.id)?.status).toBe('stale');
    for (const i of [1, 2]) await run({ ...withExpect, shard: `${i}/2`, report: `json=${dir}/x${i}.json` });
    const shards = [1, 2].map((i) => ({ name: `x${i}`, report: read(`${dir}/x${i}.json`) }));
    const merged = mergeReports(shards, whole.checks.map((c) => c.id));
    const reasons = (r: Report) => r.rules.map((x) => [x.id, x.expectedReason ?? null]);
    expect(verdicts(merged)).toEqual(verdicts(whole));
    expect(reasons(merged)).toEqual(reasons(whole));
    expect(merged.coverage).toEqual(whole.coverage);
    expect(merged.coverage?.required).toBe(10);
    expect(merged.interrupted).toBeUndefined();
    // A shard stopped by a signal leaves the whole run interrupted.
    shards[1].report = { ...shards[1].report, interrupted: 'SIGTERM' };
    expect(mergeReports(shards).interrupted).toBe('SIGTERM');
  });

  it('keeps the order a list of check ids gives', () => {
    const a = read(`${dir}/s1.json`);
    const b = read(`${dir}/s2.json`);
    const c = read(`${dir}/s3.json`);
    const ids = [...b.checks, ...c.checks, ...a.checks].map((check) => check.id);
    const merged = mergeReports(
      [
        { name: 'a', report: a },
        { name: 'b', report: b },
        { name: 'c', report: c },
      ],
      ids,
    );
    expect(merged.checks.map((c) => c.id)).toEqual(ids);
  });
});

describe('run --durations', () => {
  it('needs --shard', async () => {
    const err: string[] = [];
    const code = await executeRun({ durations: `${dir}/all.json` }, { out: () => undefined, err: (t) => void err.push(t) }, {});
    expect(code).toBe(2);
    expect(err.join('')).toMatch(/--durations balances shards: give it with --shard i\/n\n$/);
  });

  it('balances the slices by a report, and they still cover every check once', async () => {
    const flags: RunFlags = { suite: 'grants,tokens', durations: `${dir}/all.json` };
    for (const i of [1, 2]) await run({ ...flags, shard: `${i}/2`, report: `json=${dir}/d${i}.json` });
    const ids = [1, 2].flatMap((i) => read(`${dir}/d${i}.json`).checks.map((c) => c.id));
    expect(ids.sort()).toEqual(read(`${dir}/all.json`).checks.map((c) => c.id).sort());
  });
});
