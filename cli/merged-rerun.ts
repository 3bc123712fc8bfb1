/**
 * The rerun line of `report merge`, the same kind of command a run prints (cli/run.ts: its command,
 * selection and saved flags, then the seed), its flags taken from the reports' saved `invocation`
 * and read as saved data is (saved-run.ts savedInvocationArgs: no secret, no stray flag).
 */
import type { Report } from '../suites/report/model.js';
import type { NamedReport } from '../suites/runner/merge.js';
import { SUITES } from '../suites/runner/run.js';
import { checksToRerun, savedInvocationArgs } from './saved-run.js';

export interface MergedRerun {
  /** The command that redoes the merged report's checks, but its seed: its reports share their flags. */
  rerun?: string[];
  /** Its reports ran with different flags: each group's files and own command (none saved: undefined). */
  reruns?: { from: string[]; rerun?: string[] }[];
}

/** `--suite` naming the suites the checks are in: the selection that runs them all again (none for every suite, as a whole run prints). */
function suiteSelection(checks: Report['checks']): string[] {
  const present = SUITES.filter((suite) => checks.some((c) => c.suite === suite));
  return present.length === 0 || present.length === SUITES.length ? [] : ['--suite', present.join(',')];
}

/**
 * `json`: the JSON report this merge wrote, if any. With checks to rerun, the selection is
 * `--rerun-failed` on it (the failed, warned, errored or unreached checks; the report never chooses
 * the target, the saved flags do); without one, the merged checks' suites, as a run's line reruns
 * the whole run. Reports of different flags get no single line, which would drop all but one's
 * flags: one line per distinct invocation, naming its files, is the plain way to say they differ.
 */
export function mergedRerun(reports: readonly NamedReport[], merged: Report, json?: string): MergedRerun {
  // A diff report merges alone; `diff` has no --rerun-failed.
  const command = merged.diff ? 'diff' : 'run';
  if (merged.invocation) {
    const failed = json !== undefined && !merged.diff && checksToRerun(merged).length > 0;
    const selection = failed ? ['--rerun-failed', json] : suiteSelection(merged.checks);
    const saved = savedInvocationArgs(merged.invocation.args);
    // Flags no run saves (a hand-made report): the seed alone, as a report without flags.
    return saved ? { rerun: [command, ...selection, ...saved] } : {};
  }
  const groups = new Map<string, { from: string[]; checks: Report['checks']; args?: string[] }>();
  for (const { name, report } of reports) {
    const key = report.invocation ? JSON.stringify(report.invocation.args) : '';
    const group = groups.get(key) ?? { from: [], checks: [], args: report.invocation?.args };
    group.from.push(name);
    group.checks.push(...report.checks);
    groups.set(key, group);
  }
  // None saved its flags (older reports): the seed alone, as before.
  if (groups.size < 2) return {};
  return {
    reruns: [...groups.values()].map(({ from, checks, args }) => {
      const saved = args && savedInvocationArgs(args);
      return { from, ...(saved ? { rerun: [command, ...suiteSelection(checks), ...saved] } : {}) };
    }),
  };
}
