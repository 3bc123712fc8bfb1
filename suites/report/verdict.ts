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

/** Below `--require-coverage`: the tested share of `must` rules is less than asked ("0 of 0" is 0 %). */
export function coverageShort(report: Report): boolean {
  const { must, mustTested, required } = coverageOf(report);
  return required !== undefined && (must === 0 ? 0 : (mustTested * 100) / must) < required;
}

/**
 * A failed check (a `must` rule broken) or an interrupted run fails the run; else nothing tested
 * (no check at all, as `--shard 200/200` of 143 checks, or every selected check skipped) is an
 * error: the run proves nothing, so neither a pass nor the target's failure; else a coverage below
 * the required share fails it; else an errored check (the harness could not do its part) or a run
 * stopped early (a silent target, `--deadline`) makes it an error; warnings do not count.
 */
export function verdict(report: Report): Verdict {
  if (report.summary.failed > 0 || report.interrupted) return 'fail';
  if (nothingTested(report)) return 'error';
  if (coverageShort(report)) return 'fail';
  return (report.summary.errored ?? 0) > 0 || report.stopped ? 'error' : 'pass';
}

/** The run selected no check (its summary counts none). */
export const noCheckRan = (report: Report): boolean => nothingTested(report) && report.summary.skipped === 0;

/**
 * No check gave a verdict on the target: none ran, or every one was skipped. Such a run is never a
 * pass, since exit 0 says every check in force passed and a skip tested nothing.
 */
export function nothingTested(report: Report): boolean {
  const { passed, failed, warned, errored = 0, expected = 0 } = report.summary;
  return passed + failed + warned + errored + expected === 0;
}
