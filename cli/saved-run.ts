/**
 * `run` flags that start from a saved JSON report: `--rerun-failed report.json` (exactly the checks
 * that failed, warned or errored there, or that its interrupted or stopped run did not reach), `--from report.json` (its seed, e.g. with `--check ID` to
 * reproduce one) and `--durations report.json` (balance `--shard` by time).
 *
 * A saved report is data, never flags: it may come from anywhere (a CI artifact, a colleague, a
 * hostile target's reflection). Only what selects the run is taken from it, as typed, validated
 * fields: seed, property runs, release, offering, the embedded simulator's faults, --slow, and the
 * check ids. Where requests go (--target, --config) and where files are written (--report,
 * --expect) come from the command line only.
 */
import { readReport } from '../reporters/index.js';
import type { Report } from '../suites/report/model.js';
import { durationsOf } from '../suites/runner/shard.js';
import { INTERRUPTED } from '../suites/runner/session.js';
import { UsageError } from './errors.js';
import { quoted } from '../suites/report/words.js';

export const RERUN_STATUSES = ['failed', 'warned', 'errored'] as const;

/**
 * A check to run again: it failed, warned or errored, or its run was cut short before it (a
 * signal, --deadline, a target that stopped answering or serving): a CI step that retries an
 * interrupted run must run what it did not, not turn green on "nothing to rerun". A check
 * skipped for a reason of its own (a feature the target lacks) stays skipped.
 */
function rerun(report: Report, check: Report['checks'][number]): boolean {
  if ((RERUN_STATUSES as readonly string[]).includes(check.status)) return true;
  if (check.status !== 'skipped') return false;
  return (
    (report.interrupted !== undefined && check.message === INTERRUPTED) ||
    (report.stopped !== undefined && check.message === report.stopped.message)
  );
}

/** A check a `--rerun-failed` of the report runs again (none: nothing to rerun). */
export const checksToRerun = (report: Report): string[] =>
  report.checks.filter((c) => rerun(report, c)).map((c) => c.id);

/** The flags a run saves in its invocation (cli/run.ts reproduceArgs; test/reports/merge-rerun.test.ts keeps them in step), each with a value; and `--slow`. */
const SAVED_FLAGS = new Set([
  '--target',
  '--config',
  '--release',
  '--offering',
  '--runs',
  '--max-body',
  '--fault',
  '--expect',
]);
/** More saved arguments than this are no run's (its flags, a fault each): a hand-made report. */
const MAX_SAVED_ARGS = 256;
/** A saved value longer than this is no path or URL a run wrote: a hand-made report. */
const MAX_SAVED_VALUE = 2048;
/** A target a run saves: scheme and authority without user or password, then a path; no query or fragment (run refuses them). */
const PLAIN_TARGET = /^https?:\/\/[\w.~:[\]-]+(?:\/[^\s\\@?#]*)?$/i;
// Control characters (a newline would print a line of its own, review 31) and spaces around a value.
const ODD_VALUE = /[\u0000-\u001f\u007f-\u009f]|^\s|\s$/;

/**
 * A saved invocation's flags, to print in a command for a person to run (`report merge`'s rerun
 * line): only the flags a run saves, each with its value, any other dropped however it is spelled.
 * Undefined, and no command printed, where the report holds what no run writes: more than
 * MAX_SAVED_ARGS arguments, a value past MAX_SAVED_VALUE characters or with a control character, a
 * `--target` that is not a plain http(s) URL (userinfo, query, fragment, a backslash: refused, not
 * stripped, as a URL parser's other spellings would still carry a password through, review 31).
 * Credentials live in the `--config` file, which is named, not read.
 */
export function savedInvocationArgs(args: readonly string[]): string[] | undefined {
  if (args.length > MAX_SAVED_ARGS) return undefined;
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    if (flag === '--slow') kept.push(flag);
    if (!SAVED_FLAGS.has(flag) || i + 1 >= args.length) continue;
    const value = args[++i];
    if (value.length > MAX_SAVED_VALUE || ODD_VALUE.test(value)) return undefined;
    if (flag === '--target' && !PLAIN_TARGET.test(value)) return undefined;
    kept.push(flag, value);
  }
  return kept;
}

/** The run flags this module reads (cli/run.ts's RunFlags has them all; importing it would close a cycle). */
export interface SavedRunFlags {
  target?: string;
  config?: string;
  release?: string;
  offering?: string;
  runs?: string;
  slow?: boolean;
  fault?: string[];
  seed?: string;
  check?: string;
  rule?: string;
  shard?: string;
  durations?: string;
  rerunFailed?: string;
  from?: string;
}

export interface SavedRun<F extends SavedRunFlags> {
  flags: F;
  /** `--rerun-failed`: exactly these checks (empty: nothing to rerun). */
  checks?: string[];
  durations?: Map<string, number>;
}

/** What a saved report may choose of a run: nothing that names a place. */
export interface SavedSelection {
  seed: number;
  /** The report's release and offering, when its run chose them. */
  release?: string;
  offering?: string;
  runs?: number;
  /** The embedded simulator's faults (only when the report's run was on it). */
  faults: string[];
  slow: boolean;
  /** The report's run was on the embedded simulator (its target name says so). */
  embedded: boolean;
}

/** A fault name as spec/faults.yaml writes them; anything else in a report is not a fault. */
const FAULT_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const WHOLE = /^\d{1,6}$/;
/** A check id as the suites write them (`grants.state-unchanged`). */
const CHECK_ID = /^[a-z0-9][a-z0-9.-]{0,127}$/;

/**
 * The selection a report's run made, read field by field: its seed, release and offering (typed
 * report fields; taken when the run chose them), and from `invocation.args` only `--runs N`,
 * `--fault NAME` and `--slow`, each checked. Every other flag there is ignored, however it is spelled.
 */
export function savedSelection(report: Report, source: string): SavedSelection {
  // Every run saves its invocation (run.ts); a report without one is a merge of reports run with
  // different flags (suites/runner/merge.ts), which no one run redoes: running it with the defaults
  // silently dropped them (review 31, 5).
  if (!report.invocation)
    throw new UsageError(
      `${source} does not say how its checks ran (a merge of reports run with different flags): use one of the reports it merged`,
    );
  const args = report.invocation.args;
  const bad = (what: string) => new UsageError(`${source}: its invocation has ${what}; rerun without the report`);
  let runs: number | undefined;
  const faults: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--runs') {
      const value = args[++i];
      if (value === undefined || !WHOLE.test(value) || Number(value) < 1) throw bad('a --runs that is not a count');
      runs = Number(value);
    } else if (args[i] === '--fault') {
      const value = args[++i];
      if (value === undefined || !FAULT_NAME.test(value)) throw bad('a --fault that is not a fault name');
      faults.push(value);
    }
  }
  const embedded = report.target.startsWith('embedded simulator');
  // The values are the report's typed fields; the args only say whether the run chose them.
  const chose = (flag: string) => args.includes(flag);
  return {
    seed: report.seed,
    ...(chose('--release') ? { release: report.release } : {}),
    ...(chose('--offering') ? { offering: report.offering } : {}),
    ...(runs !== undefined ? { runs } : {}),
    faults: embedded ? faults : [],
    slow: args.includes('--slow'),
    embedded,
  };
}

/** The report's selection, under whatever the command line gives itself. */
function fromReport<F extends SavedRunFlags>(report: Report, flags: F, source: string): F {
  const own = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) as F;
  const saved = savedSelection(report, source);
  const elsewhere = own.target !== undefined || own.config !== undefined;
  // The report never says where to send requests: a run it made elsewhere is rerun only where the
  // command line says (its target name is the target's own text, so it is not echoed here).
  if (!saved.embedded && !elsewhere)
    throw new UsageError(
      `${source} ran against a target other than the embedded simulator: give --target or --config (a saved report never chooses the target)`,
    );
  // Faults are the embedded simulator's: another target on the command line drops them.
  const faults = elsewhere || own.fault !== undefined || !saved.faults.length ? {} : { fault: saved.faults };
  return {
    seed: String(saved.seed),
    ...(saved.release !== undefined ? { release: saved.release } : {}),
    ...(saved.offering !== undefined ? { offering: saved.offering } : {}),
    ...(saved.runs !== undefined ? { runs: String(saved.runs) } : {}),
    ...(saved.slow ? { slow: true } : {}),
    ...faults,
    ...own,
  };
}

export async function resolveSavedRun<F extends SavedRunFlags>(flags: F): Promise<SavedRun<F>> {
  if (flags.rerunFailed !== undefined && flags.from !== undefined)
    throw new UsageError('give --rerun-failed or --from, not both');
  if (flags.durations !== undefined && flags.shard === undefined)
    throw new UsageError('--durations balances shards: give it with --shard i/n');
  if (flags.rerunFailed !== undefined && (flags.check !== undefined || flags.rule !== undefined))
    throw new UsageError('--rerun-failed runs the checks the report names: drop --check and --rule');
  const durations =
    flags.durations === undefined
      ? undefined
      : durationsOf((await readReport(flags.durations, { anyVersion: true })).checks);
  const source = flags.rerunFailed ?? flags.from;
  if (source === undefined) return { flags, durations };
  const report = await readReport(source);
  // Its `proxy.RULE-ID` checks are tallies of traffic and its seed 0 chose nothing: said as such.
  if (report.client)
    throw new UsageError(
      `${source} is a proxy report: it judged a client's traffic, so it has no checks to rerun nor a seed to start from (run the checks of its rules with --rule ID,...)`,
    );
  const merged = fromReport(report, flags, source);
  if (flags.rerunFailed === undefined) return { flags: merged, durations };
  const checks = checksToRerun(report);
  const bad = checks.find((id) => !CHECK_ID.test(id));
  if (bad !== undefined) throw new UsageError(`${source}: ${quoted(bad)} is not a check id`);
  return { flags: merged, checks, durations };
}
