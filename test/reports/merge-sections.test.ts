/**
 * `report merge` of a saved `proxy` or `diff` report (review 30): one report merged is that report
 * again, its `client` or `diff` section kept, a proxy's shown without a seed and its untested rules
 * as the traffic left them; two such reports do not add up, so merging one with another is one
 * line and exit code 2. Before, the merge dropped both sections, printed `seed: 0 (rerun with --seed
 * 0)` and said "no selected check proves it" of the rules the traffic did not exercise.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeIn } from './merge-in.js';
import { executeRun } from '../../cli/run.js';
import { createTally, proxyReport } from '../../suites/proxy/tally.js';
import type { Report } from '../../suites/report/model.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-merge-sections-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Report;
const text = (file: string) => readFileSync(join(dir, file), 'utf8');

const merge = mergeIn(dir);

/** A proxy's report as `proxy --report json=…` saves it: a rule broken, one held, a habit, the traffic line. */
function proxyJson(name: string): string {
  const tally = createTally();
  tally.add([{ rule: 'TOK-NO-STORE', ok: false, message: 'Cache-Control must contain no-store' }]);
  tally.add([{ rule: 'TOK-ERROR-BODY', ok: true }]);
  tally.note({ habit: 'no-pkce', where: 'GET /oauth/authorize' }, 1);
  const report = proxyReport(tally, {
    target: 'http://127.0.0.1:9/',
    release: '18.0',
    offering: 'self-managed',
    startedAt: new Date(0),
    traffic: 'idp-conformance: 2 exchanges judged',
  });
  writeFileSync(join(dir, name), JSON.stringify(report));
  return name;
}

/** A diff's report: a run's, with a diff section of one difference. */
let diffFile: string;
beforeAll(async () => {
  const quiet = { out: () => undefined, err: () => undefined };
  await executeRun({ check: 'grants.state-unchanged', seed: '5', runs: '2', report: `json=${dir}/run.json` }, quiet, {});
  const run = read(join(dir, 'run.json'));
  const diff: Report['diff'] = {
    reference: 'embedded simulator 18.0 (self-managed)',
    exchanges: { target: 4, reference: 4, paired: 4 },
    differences: [
      {
        operation: 'GET /oauth/authorize',
        kind: 'member',
        subject: '$.x_vendor_extra',
        target: 'string',
        reference: 'absent',
        rules: [],
        checks: ['grants.state-unchanged'],
        count: 2,
      },
    ],
  };
  diffFile = 'diff.json';
  writeFileSync(join(dir, diffFile), JSON.stringify({ ...run, diff }));
}, 60_000);

describe('report merge of a proxy report', () => {
  it('reproduces it: the client section, no seed, untested as the traffic left it, in every format', async () => {
    const source = proxyJson('p.json');
    const r = await merge([source], `json=${dir}/pm.json,md=${dir}/pm.md,html=${dir}/pm.html,junit=${dir}/pm.xml`);
    expect(r.code).toBe(1);
    expect(read(join(dir, 'pm.json'))).toEqual(read(join(dir, source)));
    expect(r.out).toContain('no-pkce (1×)');
    expect(r.out).toContain('rules the traffic did not exercise (untested)');
    expect(r.out).not.toMatch(/seed/);
    expect(text('pm.md')).toContain('idp-conformance: 2 exchanges judged');
    expect(text('pm.md')).toContain('the traffic did not exercise it');
    expect(text('pm.md')).not.toContain('no selected check proves it');
    // The proxy's own files come out the same way: no seed 0 to rerun with.
    for (const file of ['pm.md', 'pm.html', 'pm.xml']) expect(text(file)).not.toMatch(/seed/i);
  });

  it('does not merge it with another report: one line, exit code 2', async () => {
    const r = await merge([proxyJson('p1.json'), proxyJson('p2.json')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^idp-conformance: \S+p1\.json is a proxy report: its client section cannot be merged with \S+p2\.json .*\n$/);
  });
});

describe('report merge of a diff report', () => {
  it('reproduces it: the diff section kept, in the JSON, the Markdown and the console', async () => {
    const r = await merge([diffFile], `json=${dir}/dm.json,md=${dir}/dm.md`);
    expect(r.code).toBe(0);
    expect(read(join(dir, 'dm.json'))).toEqual(read(join(dir, diffFile)));
    expect(text('dm.md')).toMatch(/### Diff[^]*x\\?_vendor\\?_extra/);
    expect(r.out).toMatch(/GET \/oauth\/authorize\n {2}member \$\.x_vendor_extra/);
    expect(r.out).toContain('seed: 5');
  });

  it('does not merge it with another run: one line, exit code 2', async () => {
    const r = await merge([diffFile, 'run.json']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/diff\.json is a diff report: its diff section cannot be merged with \S+run\.json/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });
});
