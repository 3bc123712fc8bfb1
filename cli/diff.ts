/**
 * `idp-conformance diff`: run the selected checks against the target, then with the same seed
 * against an embedded simulator configured like it (release, offering, feature flags), and report
 * per operation where the two answered differently. The verdict and exit code are the target
 * run's: a difference that breaks a must rule is already a failure there.
 */
import type { Command } from 'commander';
import { profiles, rulesInForce, type Rule } from '../spec/index.js';
import { checkReportTargets, formatConsole, formatDiff, shouldColor, writeReports } from '../reporters/index.js';
import { ruleCatalogueEntries } from '../spec/catalogue.js';
import { allChecks } from '../suites/index.js';
import { createEmbeddedTarget, type Target } from '../suites/target/index.js';
import { runConformance, SUITES } from '../suites/runner/run.js';
import { exitCodeOf } from '../suites/runner/report.js';
import { DEFAULT_RUNS } from '../suites/runner/defaults.js';
import { createRecording, diffRecordings, readTargetProfile, type Recording } from '../suites/diff/index.js';
import type { CheckResult, Report } from '../suites/report/model.js';
import type { Check } from '../suites/types.js';
import { createProgress } from './progress.js';
import {
  collect,
  openAndProbe,
  parseRunFlags,
  reproduceArgs,
  selectionArgs,
  sayStopped,
  stdio,
  BOUNDS_HELP,
  type RunFlags,
  type RunIo,
  type RunSettings,
} from './run.js';
import { usageExit } from './errors.js';
import { watchSignals } from './signals.js';

export type DiffFlags = Pick<
  RunFlags,
  | 'target'
  | 'config'
  | 'release'
  | 'offering'
  | 'suite'
  | 'rule'
  | 'check'
  | 'runs'
  | 'seed'
  | 'report'
  | 'rate'
  | 'timeout'
  | 'deadline'
  | 'maxBody'
  | 'slow'
  | 'fault'
  | 'quiet'
>;

/** One run of the selection against `target`, every exchange normalised into `recording`. */
async function recordRun(
  target: Target,
  s: RunSettings,
  recording: Recording,
  io: RunIo,
  env: NodeJS.ProcessEnv,
  signals: Pick<ReturnType<typeof watchSignals>, 'stopRequested' | 'stop' | 'abandon'>,
  /** Which of the two runs, for the progress line: `diff 1/2 (target)`. */
  side: string,
  /** The catalogue both runs and leftOutRules read: one list, the same checks on both sides. */
  checks: Check[],
  /** `--deadline`, as an instant: the target's run only (the reference answers in process). */
  deadline?: number,
) {
  const progress = createProgress({ write: io.err, tty: io.stderrTty === true && !env.CI, quiet: s.quiet });
  try {
    return await runConformance({
      target,
      checks,
      select: { suites: s.suites, rules: s.rules, check: s.check },
      release: s.release,
      offering: s.offering,
      seed: s.seed,
      numRuns: s.runs,
      slow: s.slow,
      // A failure's reproduce command points at the target this diff ran against, as run's do.
      reproduceArgs: reproduceArgs(s),
      progress: (line) => progress.start(`${side} ${line}`),
      onResult: (result, i, total) => progress.result(result, i, total),
      onExchange: (checkId, exchange, housekeeping, mask) => recording.add(checkId, exchange, housekeeping, mask),
      onAssertion: (checkId, rules, held) => recording.judge(checkId, rules, held),
      // As `run`: the first signal stops the running check, a second one (or the grace) leaves now.
      stopRequested: signals.stopRequested,
      stop: signals.stop,
      abandon: signals.abandon,
      deadline,
    });
  } finally {
    progress.done();
  }
}

/**
 * The rules in force that only checks the selection left out prove: a difference they concern was
 * not judged by the checks run, which does not make it "not covered by any rule".
 */
function leftOutRules(all: readonly Check[], ran: readonly CheckResult[], inForce: readonly Rule[]): string[] {
  const ranIds = new Set(ran.map((r) => r.id));
  const judged = new Set(all.filter((c) => ranIds.has(c.id)).flatMap((c) => c.rules));
  const ids = new Set(inForce.map((r) => r.id));
  const left = all.filter((c) => !ranIds.has(c.id)).flatMap((c) => c.rules);
  return [...new Set(left.filter((r) => ids.has(r) && !judged.has(r)))];
}

/** Returns the exit code: the target run's (0, 1), or 2 for usage, config and unreachable targets. */
export async function executeDiff(
  flags: DiffFlags,
  io: RunIo = stdio,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const signals = watchSignals(io);
  try {
    const s = parseRunFlags(flags, env);
    // The whole diff's bound counts from here, as run's: set-up and probe included.
    const deadline = s.deadlineMs === undefined ? undefined : Date.now() + s.deadlineMs;
    await checkReportTargets(s.reports);
    const target = await openAndProbe(s, io, deadline, signals);
    // The reference plays what the target is configured as, or else says it is (flags and config win).
    const defaults = profiles().defaults;
    const said = target.kind === 'http' ? await readTargetProfile(target) : undefined;
    const configured = s.release ?? target.config.release;
    const release = configured ?? said?.release ?? defaults.release;
    const offering = s.offering ?? target.config.offering ?? defaults.offering;
    const features = { ...said?.flags, ...target.config.features };
    const read = said?.read.map((line) =>
      configured && line.startsWith('release ') ? `${line}; the configured ${configured} wins` : line,
    );
    const reference = await createEmbeddedTarget({ release, offering, flags: features });
    const referenceName = `embedded simulator ${release} (${offering})`;

    const checks = (io.checks ?? allChecks)();
    const onTarget = createRecording();
    const onReference = createRecording();
    // The target is judged as what it says it is too: the same release and flags on both sides.
    const judged = said ? { ...target, config: { ...target.config, features } } : target;
    const targetReport = await recordRun(
      judged,
      { ...s, release, offering },
      onTarget,
      io,
      env,
      signals,
      'diff 1/2 (target)',
      checks,
      deadline,
    );
    // Interrupted, the target run is reported as `run` would; half a run is not compared.
    const referenceReport = targetReport.interrupted
      ? undefined
      : await recordRun(
          reference,
          { ...s, release, offering },
          onReference,
          io,
          env,
          signals,
          'diff 2/2 (reference)',
          checks,
        );
    // Stopped during the reference's run, the target's is whole but the command was interrupted all the same.
    const stopped = signals.stopRequested();
    const report: Report = stopped
      ? { ...targetReport, interrupted: targetReport.interrupted ?? stopped }
      : {
          ...targetReport,
          diff: diffRecordings({
            target: onTarget,
            reference: onReference,
            results: targetReport.checks,
            referenceResults: referenceReport?.checks ?? [],
            ...(targetReport.stopped ? { stopped: targetReport.stopped } : {}),
            referenceName,
            ...(read ? { read } : {}),
            leftOut: leftOutRules(checks, targetReport.checks, rulesInForce(release, offering, features)),
          }),
        };
    io.onReport?.(report);
    const catalogue = ruleCatalogueEntries(checks);
    const written = s.reports.length ? await writeReports(report, s.reports, { catalogue }) : [];
    const color = shouldColor({ isTTY: io.stdoutTty }, env);
    io.out(report.diff ? formatDiff(report.diff) : 'idp-conformance: interrupted: no diff\n');
    io.out(
      formatConsole(report, {
        color,
        quiet: s.quiet,
        written,
        catalogue,
        rerun: ['diff', ...selectionArgs(s), ...reproduceArgs(s)],
      }),
    );
    sayStopped(report, io.err);
    return exitCodeOf(report);
  } catch (error) {
    return usageExit(error, io.err);
  } finally {
    signals.release();
  }
}

const DIFF_HELP = `
Without --target or --config the target is the embedded simulator (with --fault, what the fault changes).
The reference plays the config's release and flags; where the config names none, what the target's
GET /api/v4/version and discovery document say (the output says what was read). Each difference is
linked to the rule whose failed assertion saw it, allowed (a variation the spec allows), or not
covered by any rule.

Exit codes (the target run's verdict: a difference that breaks a must rule failed there):
  0    no must rule failed on the target (allowed and uncovered differences are listed, not failed)
  1    a must rule failed on the target
  2    bad usage, a bad config, an unreachable target, or a report that cannot be written (one line
       on stderr); a check errored on the target and nothing failed; or the target's run stopped
       early, the target silent or refusing to serve it, or past --deadline: the reports say STOPPED
  130  interrupted by SIGINT (Ctrl-C); 143 by SIGTERM; 129 by SIGHUP (the terminal closed): the
       target run's reports, INTERRUPTED, no diff
`;

export function registerDiff(program: Command): void {
  program
    .command('diff')
    .description(
      'run the checks against the target and against an embedded simulator configured like it, and list per operation where their answers differ',
    )
    .option('--target <url>', 'base URL of the target')
    .option('--config <file>', 'target config file (YAML or JSON)')
    .option('--release <release>', "release of the target and the reference (default: the config's)")
    .option('--offering <offering>', "self-managed or hosted (default: the config's)")
    .option('--suite <names>', `comma-separated suites (default: all: ${SUITES.join(', ')})`)
    .option('--rule <ids>', 'comma-separated rule ids: only checks proving them (default: all)')
    .option('--check <id>', 'one check')
    .option('--runs <n>', `property runs per check (default ${DEFAULT_RUNS})`)
    .option('--seed <n>', 'seed of both runs (default: random, always printed)')
    .option('--report <specs>', 'reports to write: kind=path,... (the JSON report has a diff section; default: none)')
    .option('--rate <n>', 'at most n requests per second to the target (default: no limit)')
    .option('--timeout <ms>', BOUNDS_HELP.timeout)
    .option('--deadline <duration>', `${BOUNDS_HELP.deadline}; the reference's run is not bounded`)
    .option('--max-body <size>', BOUNDS_HELP.maxBody)
    .option('--slow', 'allow checks that wait in real time on a live target (default: off)')
    .option('--quiet', 'the diff table and the verdict line only')
    .option('--fault <name>', 'embedded target only: switch on a fault from spec/faults.yaml (repeatable)', collect)
    .addHelpText('after', DIFF_HELP)
    .action(async (flags: DiffFlags) => {
      process.exitCode = await executeDiff(flags);
    });
}
