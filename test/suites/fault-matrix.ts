/**
 * The fault matrix, data-driven from spec/faults.yaml, through the CLI's own run function: for each
 * fault, `run --fault NAME --rule <its rules>` against the embedded simulator. A fault that breaks
 * a `must` rule is caught only by a failure of one of its must rules, and the run exits 1; a fault
 * whose rules are all `should` is caught by a warning of one of them, and the run exits 0. (Only
 * the checks of the fault's rules run, for speed: a full run adds checks, never removes a failure.)
 * The same checks with no fault must all pass, so a failure is the fault's doing and not the check's.
 * Every failure message is also rendered as the reports show it: no word lost, no secret kept.
 */
import { describe, expect, it } from 'vitest';
import { faults, rule, type Fault } from '../../spec/index.js';
import { allChecks } from '../../suites/index.js';
import { createEmbeddedTarget } from '../../suites/target/embedded.js';
import { runConformance } from '../../suites/runner/run.js';
import { defaultSeed } from '../../suites/runner/defaults.js';
import { executeRun } from '../../cli/run.js';
import type { CheckResult, Report } from '../../suites/report/model.js';
import { witness, type Witness } from './failure-text.js';

/** Few property runs: the matrix asks "is the fault caught", not "is every input fine". */
const MATRIX_RUNS = 8;

const relevant = (fault: Fault) => allChecks().filter((c) => c.rules.some((r) => fault.rules.includes(r)));
/** Each check's verdict and message, as a failure of the matrix or the blame test prints them. */
export const describeResults = (results: CheckResult[]) =>
  results
    .map(
      (r) =>
        `${r.status} ${r.id}${r.broken ? ` [${r.broken.join(', ')}]` : ''}${r.message ? `: ${r.message.slice(0, 1000)}` : ''}`,
    )
    .join('\n') || '(no checks name these rules)';

/** The must rules a fault breaks; none means it is caught by a warning. */
export const mustRulesOf = (fault: Fault) => fault.rules.filter((id) => rule(id).level === 'must');

/**
 * `run --fault NAME --rule <rules>` in process (every check with `everyCheck`, as the blame test
 * needs): its exit code and report.
 */
export function runWithFault(
  fault: Fault,
  seed: number,
  run?: Witness,
  everyCheck = false,
): Promise<{ code: number; report: Report; err: string }> {
  return runWithFaults([fault], seed, run, everyCheck);
}

/**
 * The same with several faults on at once (compound-blame.test.ts): the checks of all their rules,
 * and of the rules `also` names (checks that lean on a premise the faults take away).
 */
export async function runWithFaults(
  on: Fault[],
  seed: number,
  run?: Witness,
  everyCheck = false,
  also: readonly string[] = [],
): Promise<{ code: number; report: Report; err: string }> {
  let report: Report | undefined;
  const err: string[] = [];
  const names = on.map((f) => f.name);
  const code = await executeRun(
    {
      fault: names,
      ...(everyCheck ? {} : { rule: [...new Set([...on.flatMap((f) => f.rules), ...also])].join(',') }),
      runs: String(MATRIX_RUNS),
      seed: String(seed),
    },
    {
      out: () => {},
      err: (t) => void err.push(t),
      onReport: (r) => (report = r),
      ...(run ? { checks: () => run.checks, target: () => Promise.resolve(run.target) } : {}),
    },
    {},
  );
  if (!report)
    throw new Error(`run --fault ${names.join(' --fault ')} made no report (exit ${code}):\n${err.join('')}`);
  return { code, report, err: err.join('') };
}

export function faultMatrix(side: Fault['side']): void {
  const seed = Number(process.env.IDP_SEED ?? defaultSeed());
  const list = faults().filter((f) => f.side === side);

  describe(`fault matrix, ${side} side (seed ${seed})`, () => {
    if (!list.length) it.todo(`no ${side} faults in spec/faults.yaml yet`);

    it.each(list.map((f) => [f.name, f] as const))(
      'fault %s is caught: a failure (exit 1) when it breaks a must rule, else a warning',
      async (_name, fault) => {
        const must: readonly string[] = mustRulesOf(fault);
        const rules: readonly string[] = fault.rules;
        // The witness also holds every failure message to its words and every secret out (issue 10).
        const run = await witness([fault.name], relevant(fault));
        const { code, report, err } = await runWithFault(fault, seed, run);
        // The verdict must break one of the fault's rules, not merely come from a check that names one;
        // a must fault counts only as a failure of one of its must rules.
        const caught = report.checks.filter((c) =>
          must.length
            ? c.status === 'failed' && (c.broken ?? c.rules).some((r) => must.includes(r))
            : (c.status === 'failed' || c.status === 'warned') && (c.broken ?? c.rules).some((r) => rules.includes(r)),
        );
        // Enough to rerun it and see why: the seed, the command, every check's verdict, the run's stderr.
        const why = `fault ${fault.name} (rules ${fault.rules.join(', ')}; must: ${must.join(', ') || 'none'}; seed ${seed}; rerun: IDP_SEED=${seed} npx vitest run test/suites/fault-matrix-${side}.test.ts -t ${fault.name})`;
        const results = `${describeResults(report.checks)}${err ? `\nstderr:\n${err}` : ''}`;
        expect(caught.length, `${why} went unnoticed:\n${results}`).toBeGreaterThan(0);
        expect(code, `${why}: run --fault ${fault.name} exit code\n${results}`).toBe(must.length ? 1 : 0);
        run.verify(report);
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
