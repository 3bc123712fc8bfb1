/**
 * Against the reference every assertion holds, so a rule a passed check lists but no assertion
 * names would be claimed unseen. A short run may not draw the case of a rule (that rule is then
 * honestly left out of `proved`), so this is one run at the default runs and the fixed CI seed.
 * (Its own file, apart from the release sweep's short runs: vitest's two workers share them.)
 */
import { describe, expect, it } from 'vitest';
import { allChecks } from '../suites/index.js';
import { createEmbeddedTarget } from '../suites/target/embedded.js';
import { runConformance } from '../suites/runner/run.js';
import { CI_SEED, DEFAULT_RUNS } from '../suites/runner/defaults.js';

describe('rules a passed check lists', () => {
  it('names, in one of its assertions, every rule a passed check lists (full property runs, CI seed)', async () => {
    const target = await createEmbeddedTarget({});
    const report = await runConformance({ target, checks: allChecks(), seed: CI_SEED, numRuns: DEFAULT_RUNS });
    const inForce = new Set(report.rules.map((r) => r.id));
    const unnamed = report.checks
      .filter((c) => c.status === 'passed' && c.proved)
      .flatMap((c) => {
        const missing = c.rules.filter((id) => inForce.has(id) && !c.proved!.includes(id));
        return missing.length ? [`${c.id}: ${missing.join(', ')}`] : [];
      });
    expect(unnamed).toEqual([]);
  });
});
