/**
 * The fault matrix, data-driven from spec/faults.yaml: for each fault, the checks proving any of
 * its rules run against an embedded simulator with that fault on, and at least one of them must
 * report a failure (or a warning, for `should` rules) of one of those rules. The same checks with
 * no fault must all pass, so a failure is the fault's doing and not the check's.
 */
import { describe, expect, it } from 'vitest';
import { faults, type Fault } from '../../spec/index.js';
import { allChecks } from '../../suites/index.js';
import { createEmbeddedTarget } from '../../suites/target/embedded.js';
import { runConformance } from '../../suites/runner/run.js';
import { defaultSeed } from '../../suites/runner/defaults.js';
import type { CheckResult } from '../../suites/report/model.js';

/** Few property runs: the matrix asks "is the fault caught", not "is every input fine". */
const MATRIX_RUNS = 8;

const relevant = (fault: Fault) => allChecks().filter((c) => c.rules.some((r) => fault.rules.includes(r)));
const describeResults = (results: CheckResult[]) =>
  results.map((r) => `${r.status} ${r.id}${r.message ? `: ${r.message.slice(0, 200)}` : ''}`).join('\n') ||
  '(no checks name these rules)';

export function faultMatrix(side: Fault['side']): void {
  const seed = Number(process.env.IDP_SEED ?? defaultSeed());
  const list = faults().filter((f) => f.side === side);

  describe(`fault matrix, ${side} side (seed ${seed})`, () => {
    if (!list.length) it.todo(`no ${side} faults in spec/faults.yaml yet`);

    it.each(list.map((f) => [f.name, f] as const))(
      'fault %s is reported by a check of its rules',
      async (_name, fault) => {
        const checks = relevant(fault);
        const report = await runConformance({
          target: await createEmbeddedTarget({ faults: [fault.name] }),
          checks,
          seed,
          numRuns: MATRIX_RUNS,
        });
        // The failure must break one of the fault's rules, not merely come from a check that names one.
        const caught = report.checks.filter(
          (c) =>
            (c.status === 'failed' || c.status === 'warned') &&
            (c.broken ?? c.rules).some((r) => (fault.rules as readonly string[]).includes(r)),
        );
        expect(
          caught.length,
          `fault ${fault.name} (rules ${fault.rules.join(', ')}, seed ${seed}) went unnoticed:\n${describeResults(report.checks)}`,
        ).toBeGreaterThan(0);
      },
    );

    it(`with no fault, every check of the ${side} faults' rules passes`, async () => {
      const ids = new Set(list.flatMap((f) => relevant(f).map((c) => c.id)));
      const checks = allChecks().filter((c) => ids.has(c.id));
      const report = await runConformance({ target: await createEmbeddedTarget(), checks, seed, numRuns: MATRIX_RUNS });
      const bad = report.checks.filter((c) => c.status === 'failed' || c.status === 'warned');
      expect(
        bad.map((c) => `${c.status} ${c.id}`),
        `seed ${seed}:\n${describeResults(bad)}`,
      ).toEqual([]);
    });
  });
}
