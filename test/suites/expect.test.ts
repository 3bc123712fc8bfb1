/**
 * `run --expect FILE`: a listed failure is `expected` and does not fail the run; a listed rule that
 * passes is `stale`; a bad file is exit code 2 with one line. Through the CLI's run function, on
 * the embedded simulator with the code-reusable fault (which breaks GRANT-CODE-SINGLE-USE, must).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { executeRun, type RunFlags } from '../../cli/run.js';
import { renderMarkdown } from '../../reporters/markdown.js';
import { renderJunit } from '../../reporters/junit.js';
import { validateReport } from '../../reporters/schema.js';
import type { Report } from '../../suites/report/model.js';
import { parseExpectations } from '../../suites/runner/expect.js';
import { ruleCatalogue } from '../../suites/runner/rules.js';
import { allChecks } from '../../suites/index.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-expect-'));
let n = 0;
function file(text: string): string {
  const path = join(dir, `expect-${n++}.yaml`);
  writeFileSync(path, text);
  return path;
}

async function run(flags: RunFlags) {
  let report: Report | undefined;
  const out: string[] = [];
  const err: string[] = [];
  const code = await executeRun(
    { check: 'grants.code-single-use', runs: '3', seed: '7', ...flags },
    { out: (t) => void out.push(t), err: (t) => void err.push(t), onReport: (r) => (report = r) },
    {},
  );
  return { code, report, out: out.join(''), err: err.join('') };
}

const LISTED = `expected:
  - rule: GRANT-CODE-SINGLE-USE
    reason: "vendor ticket 123: codes can be replayed"
  - rule: GRANT-CODE-REUSE-REVOKES
    checks: [grants.code-single-use]
    reason: "same ticket"
`;

describe('run --expect', () => {
  it('without the file, the fault fails the run (the baseline the file excuses)', async () => {
    const r = await run({ fault: ['code-reusable'] });
    expect(r.code).toBe(1);
    expect(r.report!.checks[0].status).toBe('failed');
  });

  it('reports a listed failure as expected, exits 0, and every format shows it', async () => {
    const r = await run({ fault: ['code-reusable'], expect: file(LISTED) });
    expect(r.code, r.out).toBe(0);
    const check = r.report!.checks[0];
    expect(check.status).toBe('expected');
    expect(check.expectedReason).toContain('vendor ticket 123');
    expect(r.report!.summary.expected).toBe(1);
    expect(r.report!.rules.find((x) => x.id === 'GRANT-CODE-SINGLE-USE')?.status).toBe('expected');
    expect(r.out).toMatch(/^EXPECTED grants grants\.code-single-use .*vendor ticket 123/m);
    expect(r.out).toMatch(/^PASS \(1 of 1 must rules tested\): 0 failed, 0 warned, 1 expected/m);
    expect(validateReport(JSON.parse(JSON.stringify(r.report)))).toEqual([]);
    expect(renderMarkdown(r.report!)).toContain('Expected: known deviations');
    expect(renderJunit(r.report!)).toContain('EXPECTED (known deviation');
  });

  it('counts a known deviation as expected in the progress lines and the per-area table (issue 23)', async () => {
    const r = await run({ fault: ['code-reusable'], expect: file(LISTED) });
    // Progress (stderr, not a terminal): one line per area, with the status the report gives.
    expect(r.err).toMatch(/^grants: 1 expected$/m);
    expect(r.err).not.toMatch(/failed/);
    // The console's per-area table has a column for every status, so each row adds up to its total.
    const head = r.out.split('\n').find((l) => /^Area\s/.test(l))!;
    expect(head.split(/\s+/)).toEqual([
      'Area',
      'Passed',
      'Failed',
      'Warned',
      'Expected',
      'Errored',
      'Skipped',
      'Total',
    ]);
    const rows = r.out.split('\n').filter((l) => /^(grants|all)\s+\d/.test(l));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const n = row.trim().split(/\s+/).slice(1).map(Number);
      expect(n[3], row).toBe(1);
      expect(
        n.slice(0, -1).reduce((a, b) => a + b, 0),
        row,
      ).toBe(n.at(-1));
    }
  });

  it('reports a listed rule that passes as stale', async () => {
    const r = await run({ expect: file(LISTED) });
    expect(r.code).toBe(0);
    expect(r.report!.checks[0].status).toBe('passed');
    const rule = r.report!.rules.find((x) => x.id === 'GRANT-CODE-SINGLE-USE')!;
    expect(rule.status).toBe('stale');
    expect(rule.expectedReason).toContain('vendor ticket 123');
    expect(r.out).toMatch(/^STALE GRANT-CODE-SINGLE-USE: listed in --expect .* remove the entry/m);
    expect(validateReport(JSON.parse(JSON.stringify(r.report)))).toEqual([]);
  });

  it('excuses a failure only for the checks an entry names, and only when every broken rule is listed', async () => {
    const other = file(`expected:
  - rule: GRANT-CODE-SINGLE-USE
    checks: [grants.pkce-verifier-mismatch]
    reason: "another check only"
`);
    const r = await run({ fault: ['code-reusable'], expect: other });
    expect(r.code).toBe(1);
    expect(r.report!.checks[0].status).toBe('failed');
  });

  it("accepts the README's example file", async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const example = /```yaml\n(expected:[\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const known = {
      rules: new Set(ruleCatalogue().map((r) => r.id)),
      checks: new Set(allChecks().map((c) => c.id)),
    };
    expect(parseExpectations(example!, 'README.md', known).map((e) => e.rule)).toEqual([
      'GRANT-CODE-SINGLE-USE',
      'TOK-NO-STORE',
    ]);
  });

  it.each([
    ['an unknown rule', 'expected:\n  - { rule: NOPE-RULE, reason: "x y z" }\n', /unknown rule NOPE-RULE/],
    [
      'an unknown check',
      'expected:\n  - { rule: GRANT-CODE-SINGLE-USE, checks: [grants.nope], reason: "x y z" }\n',
      /unknown check grants\.nope/,
    ],
    [
      'a misspelt rule',
      'expected:\n  - { rule: GRANT-CODE-SINGLEUSE, reason: "x y z" }\n',
      /unknown rule GRANT-CODE-SINGLEUSE \(did you mean GRANT-CODE-SINGLE-USE\?\)/,
    ],
    [
      'an extra key, named',
      'expected:\n  - { rule: GRANT-CODE-SINGLE-USE, reason: "x y z", check: [grants.code-single-use] }\n',
      /expected\.0: unknown property check \(did you mean checks\?\)/,
    ],
    ['no reason', 'expected:\n  - { rule: GRANT-CODE-SINGLE-USE }\n', /reason/],
    ['not YAML', 'expected: [\n', /not valid YAML/],
  ])('refuses a file with %s: exit 2 and one line', async (_what, text, message) => {
    const r = await run({ expect: file(text) });
    expect(r.code).toBe(2);
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });
});
