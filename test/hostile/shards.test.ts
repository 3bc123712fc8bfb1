/**
 * Shards and inputs that cannot mislead: a merge missing a shard is exit code 2 naming it (the
 * merged report keeps the shard set), a shard with no check to run is not a PASS, and a password
 * in `--target http://user:pass@host` (or a config's baseUrl) is never echoed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeMerge } from '../../cli/report.js';
import { executeRun, type RunFlags } from '../../cli/run.js';
import type { Report } from '../../suites/report/model.js';
import { simulatorWith, type Loopback } from '../suites/loopback.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-hostile-shards-'));
const servers: Loopback[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Report;

async function run(flags: RunFlags) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await executeRun(
    { seed: '3', runs: '2', ...flags },
    { out: (t) => void out.push(t), err: (t) => void err.push(t) },
    {},
  );
  return { code, out: out.join(''), err: err.join('') };
}

async function merge(files: string[], report?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await executeMerge(files, report ? { report } : {}, {
    out: (t) => void out.push(t),
    err: (t) => void err.push(t),
  });
  return { code, out: out.join(''), err: err.join('') };
}

describe('report merge of shards', () => {
  it('missing a shard is exit code 2 naming it; all of them merge, keeping the set', async () => {
    for (const i of [1, 2, 3])
      expect((await run({ suite: 'versioning', shard: `${i}/3`, report: `json=${dir}/s${i}.json` })).code).toBe(0);
    const partial = await merge([`${dir}/s1.json`, `${dir}/s2.json`]);
    expect(partial.code).toBe(2);
    expect(partial.err).toBe('idp-conformance: shard 3/3 is missing: give every slice of the run\n');
    const twice = await merge([`${dir}/s1.json`, `${dir}/s2.json`, `${dir}/s3.json`, `${dir}/s2.json`]);
    expect(twice.code).toBe(2);
    const whole = await merge([`${dir}/s3.json`, `${dir}/s1.json`, `${dir}/s2.json`], `json=${dir}/merged.json`);
    expect(whole.code, whole.err).toBe(0);
    expect(read(`${dir}/merged.json`).shards).toEqual({ indexes: [1, 2, 3], total: 3 });
    // A merged report merges again as the slices it holds, and mixes with no unsharded report.
    const s1 = read(`${dir}/s1.json`);
    writeFileSync(`${dir}/plain.json`, JSON.stringify({ ...s1, shard: undefined }));
    const mixed = await merge([`${dir}/plain.json`, `${dir}/s2.json`, `${dir}/s3.json`]);
    expect(mixed.code).toBe(2);
    expect(mixed.err).toMatch(/plain\.json is not a shard/);
    writeFileSync(`${dir}/of4.json`, JSON.stringify({ ...s1, checks: [], shard: { index: 4, total: 4 } }));
    expect((await merge([`${dir}/s1.json`, `${dir}/of4.json`])).err).toMatch(/is a shard of 4, .* a shard of 3/);
    // A shard that stopped early (a silent target) leaves the merge stopped: exit code 2.
    const stopped = {
      reason: 'silent',
      message: 'the target stopped answering after 3 requests in a row got no answer',
    };
    writeFileSync(`${dir}/s3-stopped.json`, JSON.stringify({ ...read(`${dir}/s3.json`), stopped }));
    const late = await merge([`${dir}/s1.json`, `${dir}/s2.json`, `${dir}/s3-stopped.json`], `json=${dir}/late.json`);
    expect(late.code).toBe(2);
    expect(read(`${dir}/late.json`).stopped).toEqual(stopped);
  }, 120_000);
});

describe('a shard with no check to run', () => {
  it('is no PASS: exit code 2, and the verdict says no check ran; its report is still written', async () => {
    const r = await run({ suite: 'versioning', shard: '200/200', report: `json=${dir}/empty.json` });
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/^ERROR \(.*\): no check ran in shard 200\/200, so nothing is passed$/m);
    expect(r.out).not.toMatch(/^PASS/m);
    const report = read(`${dir}/empty.json`);
    expect(report.checks).toEqual([]);
    expect(report.shard).toEqual({ index: 200, total: 200 });
  });
});

describe('a password in the target URL', () => {
  const SECRET = 'hunter2-Pa55';
  it.each<[string, (url: string) => RunFlags]>([
    ['--target user:password@', (url) => ({ target: url.replace('//', `//qa:${SECRET}@`) })],
    ['--target password@ (no user)', (url) => ({ target: url.replace('//', `//${SECRET}@`) })],
    ['a malformed --target', () => ({ target: `ftp://qa:${SECRET}@127.0.0.1/` })],
    [
      "a config's baseUrl",
      (url) => {
        const file = join(dir, 'userinfo.yaml');
        writeFileSync(file, `baseUrl: ${url.replace('//', `//qa:${SECRET}@`)}\n`);
        return { config: file };
      },
    ],
  ])('%s is never echoed: one line, exit code 2', async (_, flags) => {
    const server = await simulatorWith(() => false);
    servers.push(server);
    const r = await run({ ...flags(server.url), report: `json=${dir}/userinfo.json,md=${dir}/userinfo.md` });
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err + r.out).not.toContain(SECRET);
  });
});
