/**
 * What a report amounts to: the share of must rules it tested and its verdict. Beside the model,
 * because the runner's exit code and every reporter's verdict line read the same answer.
 */
import type { Coverage, Report, RuleResult } from './model.js';

export type Verdict = 'pass' | 'fail' | 'error';

/** Rule statuses that say nothing about the rule: no check saw it hold or break. */
const NOT_TESTED = new Set<string>(['untested', 'skipped', 'errored']);

/** How many of the listed `must` rules a check tested (report.coverage, else from the rules). */
export function mustCoverage(rules: readonly RuleResult[], required?: number): Coverage {
  const must = rules.filter((r) => r.level === 'must');
  const mustTested = must.filter((r) => !NOT_TESTED.has(r.status)).length;
  return { must: must.length, mustTested, ...(required !== undefined ? { required } : {}) };
}

/** The report's coverage, or (a report built by hand) the one its rules show. */
export function coverageOf(report: Report): Coverage {
  return report.coverage ?? mustCoverage(report.rules);
}

/** Below `--require-coverage`: the tested share of `must` rules is less than asked. */
export function coverageShort(report: Report): boolean {
  const { must, mustTested, required } = coverageOf(report);
  return required !== undefined && must > 0 && (mustTested * 100) / must < required;
}

/**
 * A failed check (a `must` rule broken), an interrupted run or a coverage below the required
 * share fails the run; else an errored check (the harness could not do its part), no check at
 * all (`--shard 200/200` of 143 checks) or a run stopped early (a silent target, `--deadline`)
 * makes it an error; warnings do not count.
 */
export function verdict(report: Report): Verdict {
  if (report.summary.failed > 0 || report.interrupted || coverageShort(report)) return 'fail';
  return (report.summary.errored ?? 0) > 0 || noCheckRan(report) || report.stopped ? 'error' : 'pass';
}

/** The run selected no check (its summary counts none): it proves nothing, so it is never a pass. */
export const noCheckRan = (report: Report): boolean =>
  Object.values(report.summary).reduce((total: number, n) => total + (n ?? 0), 0) === 0;
