/**
 * `idp-conformance run`: parse and check the flags (one line and exit code 2 for anything wrong),
 * open the target, run the selected checks, print the summary, write the reports.
 */
import { ruleCatalogueEntries } from '../spec/catalogue.js';
import { Option, type Command } from 'commander';
import { profiles, releaseProblem, type Offering } from '../spec/index.js';
import {
  checkReportTargets,
  formatConsole,
  parseReportSpecs,
  shouldColor,
  writeReports,
  ReportsNotWritten,
  type ReportTarget,
} from '../reporters/index.js';
import { allChecks } from '../suites/index.js';
import { openTarget, TransportError, transportStop, type Target } from '../suites/target/index.js';
import { runConformance, SUITES } from '../suites/runner/run.js';
import { RATE_LIMITED_LIMIT, SILENT_LIMIT } from '../suites/runner/session.js';
import { exitCodeOf } from '../suites/runner/report.js';
import { watchSignals } from './signals.js';
import { issuerMistake, notAProvider, probeTarget, providerAbove } from '../suites/runner/probe.js';
import { createProgress } from './progress.js';
import { CI_SEED, DEFAULT_RUNS, MAX_SEED, defaultSeed } from '../suites/runner/defaults.js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS } from '../suites/target/http.js';
import { loadExpectations } from '../suites/runner/expect.js';
import { ruleCatalogue, rulesOfOrigins } from '../suites/runner/rules.js';
import type { Check } from '../suites/types.js';
import type { Report } from '../suites/report/model.js';
import { EXIT, UsageError, errorLine, usageExit } from './errors.js';
import { parseShard, type Shard } from '../suites/runner/shard.js';
import { resolveSavedRun } from './saved-run.js';
import { ConfigError, TargetError } from '../suites/errors.js';
import { didYouMean } from '../spec/ajv.js';

const OFFERINGS: Offering[] = ['self-managed', 'hosted'];

export interface RunFlags {
  target?: string;
  config?: string;
  release?: string;
  offering?: string;
  suite?: string;
  rule?: string;
  check?: string;
  runs?: string;
  seed?: string;
  report?: string;
  rate?: string;
  timeout?: string;
  deadline?: string;
  maxBody?: string;
  slow?: boolean;
  fault?: string[];
  shard?: string;
  durations?: string;
  rerunFailed?: string;
  from?: string;
  expect?: string;
  quiet?: boolean;
  verbose?: boolean;
  origin?: string;
  requireCoverage?: string;
  /** false with the hidden --no-probe: run the checks even against what is plainly not a provider. */
  probe?: boolean;
}

export interface RunSettings {
  target?: string;
  config?: string;
  release?: string;
  offering?: Offering;
  suites: string[];
  rules: string[];
  check?: string;
  runs: number;
  runsGiven: boolean;
  seed: number;
  reports: ReportTarget[];
  rate?: number;
  timeoutMs?: number;
  /** `--deadline`: the whole run's bound, in ms. */
  deadlineMs?: number;
  maxBodyBytes?: number;
  slow: boolean;
  faults: string[];
  shard?: Shard;
  /** Known-deviations file (`--expect`). */
  expect?: string;
  quiet: boolean;
  /** Every rule in the console's per-rule table, passed ones included (`--verbose`). */
  verbose: boolean;
  requireCoverage?: number;
  probe: boolean;
}

const list = (value?: string) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function integer(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
    throw new UsageError(
      `${flag} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}, got "${value}"`,
    );
  }
  return Number(value);
}

const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 * 1024 };

/** `8388608`, `512k`, `8M`: a size in bytes (k and M are 1024 and 1024²). */
export function byteSize(flag: string, value: string): number {
  const m = /^(\d+)\s*([kKmM]?)$/.exec(value.trim());
  const n = m ? Number(m[1]) * UNITS[m[2].toLowerCase()] : NaN;
  if (!m || n < 1024 || !Number.isSafeInteger(n))
    throw new UsageError(`${flag} must be a size of at least 1024 bytes, like 8M or 512k, got "${value}"`);
  return n;
}

const DURATION_UNITS: Record<string, number> = { '': 1, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `600000` (ms, as --timeout), `500ms`, `90s`, `10m`, `2h`: a duration in milliseconds. */
function duration(flag: string, value: string): number {
  const m = /^(\d{1,9})\s*(ms|s|m|h|)$/i.exec(value.trim());
  const n = m ? Number(m[1]) * DURATION_UNITS[m[2].toLowerCase()] : NaN;
  if (!m || n < 1 || !Number.isSafeInteger(n))
    throw new UsageError(`${flag} must be a duration like 10m, 90s or 600000 (ms), got "${value}"`);
  return n;
}

export function parseRunFlags(flags: RunFlags, env: NodeJS.ProcessEnv = process.env): RunSettings {
  if (flags.target && flags.config) throw new UsageError('give --target or --config, not both');
  const releaseWrong = flags.release === undefined ? undefined : releaseProblem(flags.release);
  if (releaseWrong) throw new UsageError(`--release: ${releaseWrong}`);
  if (flags.offering !== undefined && !OFFERINGS.includes(flags.offering as Offering)) {
    throw new UsageError(
      `--offering must be ${OFFERINGS.join(' or ')}, got "${flags.offering}"${didYouMean(flags.offering, OFFERINGS)}`,
    );
  }
  const suites = list(flags.suite);
  const unknown = suites.filter((s) => !(SUITES as string[]).includes(s));
  if (unknown.length) throw new UsageError(`unknown suite ${unknown.join(', ')} (suites: ${SUITES.join(', ')})`);
  if (flags.quiet && flags.verbose) throw new UsageError('give --quiet or --verbose, not both');
  const faults = (flags.fault ?? []).flatMap((f) => list(f));
  if (faults.length && (flags.target || flags.config))
    throw new UsageError('--fault applies only to the embedded simulator (no --target or --config)');
  return {
    target: flags.target,
    config: flags.config,
    release: flags.release,
    offering: flags.offering as Offering | undefined,
    suites,
    rules: selectedRules(flags),
    check: flags.check,
    runs: flags.runs === undefined ? DEFAULT_RUNS : integer('--runs', flags.runs, 1, 100_000),
    runsGiven: flags.runs !== undefined,
    seed: flags.seed === undefined ? defaultSeed(env) : integer('--seed', flags.seed, 0, MAX_SEED),
    reports: flags.report === undefined ? [] : parseReportSpecs(flags.report),
    rate: flags.rate === undefined ? undefined : integer('--rate', flags.rate, 1),
    timeoutMs: flags.timeout === undefined ? undefined : integer('--timeout', flags.timeout, 1),
    deadlineMs: flags.deadline === undefined ? undefined : duration('--deadline', flags.deadline),
    maxBodyBytes: flags.maxBody === undefined ? undefined : byteSize('--max-body', flags.maxBody),
    slow: flags.slow ?? false,
    faults,
    expect: flags.expect,
    quiet: flags.quiet ?? false,
    verbose: flags.verbose ?? false,
    requireCoverage:
      flags.requireCoverage === undefined ? undefined : integer('--require-coverage', flags.requireCoverage, 0, 100),
    probe: flags.probe !== false,
    ...(flags.shard === undefined ? {} : { shard: parseShard(flags.shard) }),
  };
}

/**
 * `--rule` ids, narrowed by `--origin` to the rules of those origins (both given: the rules in
 * both). An origin no rule has, or a --rule list with none of the origins, is a usage error.
 */
function selectedRules(flags: RunFlags): string[] {
  const rules = list(flags.rule);
  if (flags.origin === undefined) return rules;
  const origins = list(flags.origin);
  if (!origins.length) throw new UsageError('--origin needs origins such as source, documented, rfc or "RFC 7636"');
  const ofOrigin = rulesOfOrigins(ruleCatalogue(), origins);
  if (!rules.length) return ofOrigin;
  const both = rules.filter((id) => ofOrigin.includes(id));
  if (!both.length) throw new UsageError(`none of the --rule ids has origin ${origins.join(', ')}`);
  return both;
}

/** The flags that select this run's checks (--rule carries what --origin chose). */
export function selectionArgs(s: Pick<RunSettings, 'suites' | 'rules' | 'check'>): string[] {
  return [
    ...(s.suites.length ? ['--suite', s.suites.join(',')] : []),
    ...(s.rules.length ? ['--rule', s.rules.join(',')] : []),
    ...(s.check ? ['--check', s.check] : []),
  ];
}

/** The flags that point a rerun at this same target and configuration. */
export function reproduceArgs(s: RunSettings): string[] {
  return [
    ...(s.target ? ['--target', s.target] : []),
    ...(s.config ? ['--config', s.config] : []),
    ...(s.release ? ['--release', s.release] : []),
    ...(s.offering ? ['--offering', s.offering] : []),
    ...(s.runsGiven ? ['--runs', String(s.runs)] : []),
    ...(s.maxBodyBytes !== undefined ? ['--max-body', String(s.maxBodyBytes)] : []),
    ...(s.slow ? ['--slow'] : []),
    ...s.faults.flatMap((f) => ['--fault', f]),
    ...(s.expect ? ['--expect', s.expect] : []),
  ];
}

export interface RunIo {
  out: (text: string) => void;
  err: (text: string) => void;
  checks?: () => Check[];
  /** Sees the finished report (tests read verdicts without parsing the console). */
  onReport?: (report: Report) => void;
  /** A target opened by the caller (tests that watch the simulator behind it), instead of the flags'. */
  target?: () => Promise<Target>;
  /** stdout is a terminal (colour); stderr is a terminal (one live progress line). */
  stdoutTty?: boolean;
  stderrTty?: boolean;
}

export const stdio: RunIo = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  stdoutTty: process.stdout.isTTY === true,
  stderrTty: process.stderr.isTTY === true,
};

/** Leaving early, how long the reports may take to write before the process goes without them. */
export const REPORT_WRITE_MS = 5000;

const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'late'> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms).unref()));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
};

/** The target the flags name (`--target`, `--config`, or the embedded simulator), or the caller's own. */
/** `deadline`: the run's --deadline as an instant, which bounds every wait for the target's rate limit. */
/** `abort`: cuts the target's requests short (a signal), as the deadline does. */
export function openRunTarget(
  s: RunSettings,
  io: Pick<RunIo, 'target'>,
  deadline?: number,
  abort?: AbortSignal,
): Promise<Target> {
  if (io.target) return io.target();
  return openTarget({
    url: s.target,
    configFile: s.config,
    release: s.release,
    offering: s.offering,
    faults: s.faults,
    rate: s.rate,
    timeoutMs: s.timeoutMs,
    maxBodyBytes: s.maxBodyBytes,
    deadline,
    abort,
  });
}

/**
 * The whole command; returns the exit code: 0 passed, 1 a must failed (or coverage below
 * --require-coverage), 2 usage, config, unreachable or not a provider, 130/143 interrupted.
 */
export async function executeRun(
  flags: RunFlags,
  io: RunIo = stdio,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const signals = watchSignals(io);
  try {
    const saved = await resolveSavedRun(flags);
    const s = parseRunFlags(saved.flags, env);
    // The whole run's bound counts from here: set-up and probe included.
    const deadline = s.deadlineMs === undefined ? undefined : Date.now() + s.deadlineMs;
    if (saved.checks?.length === 0) {
      io.out(
        `idp-conformance: nothing to rerun: no check failed, warned, errored or was left unrun in ${flags.rerunFailed}\n`,
      );
      return EXIT.ok;
    }
    const checks = (io.checks ?? allChecks)();
    // Read before the target opens: a bad file is exit 2 at once, not after the run.
    const expect = s.expect
      ? loadExpectations(s.expect, {
          rules: new Set(ruleCatalogue().map((r) => r.id)),
          checks: new Set(checks.map((c) => c.id)),
        })
      : undefined;
    await checkReportTargets(s.reports);
    const target = await openAndProbe(s, io, deadline, signals, s.probe);
    // Said, not silently ignored: the embedded simulator answers in process, there is no request to time out.
    if (target.kind === 'embedded' && s.timeoutMs !== undefined)
      io.err(
        'idp-conformance: --timeout has no effect on the embedded simulator; it bounds requests to --target or --config\n',
      );
    // CI logs keep every line a terminal would rewrite: a line per area there, even on a pseudo-terminal.
    const progress = createProgress({ write: io.err, tty: io.stderrTty === true && !env.CI, quiet: s.quiet });
    let report;
    try {
      report = await runConformance({
        target,
        checks,
        expect,
        select: { suites: s.suites, rules: s.rules, check: s.check, checks: saved.checks },
        shard: s.shard && { ...s.shard, durations: saved.durations },
        release: s.release,
        offering: s.offering,
        seed: s.seed,
        numRuns: s.runs,
        slow: s.slow,
        reproduceArgs: reproduceArgs(s),
        progress: (line) => progress.start(line),
        onResult: (result, i, total) => progress.result(result, i, total),
        stopRequested: signals.stopRequested,
        stop: signals.stop,
        abandon: signals.abandon,
        deadline,
        requiredCoverage: s.requireCoverage,
      });
    } finally {
      progress.done();
    }
    // Reports first: a report that cannot be written is known before any verdict is printed.
    io.onReport?.(report);
    // Leaving early, the reports get a bounded time: a wedged disk must not keep the process.
    const catalogue = ruleCatalogueEntries(checks);
    // A report that cannot be written (checked before the run, so the disk changed since) loses
    // none of the others, nor the verdict: each failure is said after it, exit 2.
    let failures: string[] = [];
    const writing = s.reports.length
      ? writeReports(report, s.reports, { catalogue }).catch((error: unknown) => {
          if (!(error instanceof ReportsNotWritten)) throw error;
          failures = error.failures;
          return error.written;
        })
      : Promise.resolve([]);
    const written = signals.abandon.aborted ? await within(writing, REPORT_WRITE_MS) : await writing;
    const color = shouldColor({ isTTY: io.stdoutTty }, env);
    io.out(
      formatConsole(report, {
        color,
        quiet: s.quiet,
        allRules: s.verbose,
        written: written === 'late' ? [] : written,
        catalogue,
        rerun: ['run', ...selectionArgs(s), ...reproduceArgs(s)],
      }),
    );
    if (written === 'late') io.err(`idp-conformance: the reports were not written within ${REPORT_WRITE_MS} ms\n`);
    sayStopped(report, io.err);
    for (const failure of failures) io.err(`idp-conformance: ${errorLine(failure)}\n`);
    return failures.length ? EXIT.usage : exitCodeOf(report);
  } catch (error) {
    return usageExit(error, io.err);
  } finally {
    signals.release();
  }
}

/** A run stopped early (silence, refusals, --deadline) says so in one line on stderr, after its reports. */
export function sayStopped(report: Report, err: (text: string) => void): void {
  if (!report.stopped) return;
  const notRun = report.checks.filter((c) => c.message === report.stopped!.message).length;
  err(`idp-conformance: ${report.stopped.message}; ${notRun} of ${report.checks.length} checks not run\n`);
}

/**
 * Stop with one line (exit 2) when the target is plainly not a provider of the spec, or does not
 * answer. A probe the run's `deadline` or a signal (`stopped`) cut short judges nothing: the run
 * goes on to end STOPPED or INTERRUPTED, its reports written.
 */
/**
 * The target opened and probed (unless `probe` is false). Until the checks begin there are no
 * tokens to revoke: the first signal cuts the requests under way at once (after, a second one or
 * the grace does), and the command goes on to skip every check and write its INTERRUPTED reports.
 */
export async function openAndProbe(
  s: RunSettings,
  io: RunIo,
  deadline: number | undefined,
  signals: Pick<ReturnType<typeof watchSignals>, 'stop' | 'abandon'>,
  probe = true,
): Promise<Target> {
  const startUp = new AbortController();
  const cut = () => startUp.abort();
  signals.stop.addEventListener('abort', cut, { once: true });
  try {
    const target = await openRunTarget(s, io, deadline, AbortSignal.any([startUp.signal, signals.abandon]));
    if (probe) await probeOrStop(target, deadline, startUp.signal);
    return target;
  } finally {
    signals.stop.removeEventListener('abort', cut);
  }
}

export async function probeOrStop(target: Target, deadline?: number, stopped?: AbortSignal): Promise<void> {
  const late = () => (deadline !== undefined && Date.now() >= deadline) || stopped?.aborted === true;
  let result;
  try {
    result = await probeTarget(target);
  } catch (error) {
    if (error instanceof TransportError && (late() || error.code === 'deadline')) return;
    await target.close();
    if (error instanceof TransportError) throw new TargetError(transportStop(target.baseUrl, error));
    throw error;
  }
  if (late()) return;
  if (!result.provider) {
    const above = await providerAbove(target);
    await target.close();
    throw new TargetError(notAProvider(target, result, above));
  }
  const mistake = await issuerMistake(target);
  if (mistake && !late()) {
    await target.close();
    throw new ConfigError(mistake);
  }
}

export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The help of the flags that bound a run against a target, `run`'s and `diff`'s alike. */
export const BOUNDS_HELP = {
  timeout: `per-request timeout in milliseconds, the browser driver's page loads too; an endpoint that leaves one unanswered is said once and not asked again; ${SILENT_LIMIT} unanswered in a row stop the run (default ${DEFAULT_TIMEOUT_MS})`,
  deadline:
    'end the whole run after this long, probe and start-up included, e.g. 10m, 90s or 600000 (ms): no request waits past it (default: none)',
  maxBody: `largest response body read, e.g. 8M or 512k; a longer one is said once per endpoint: it fails the check about that answer, else errs it (no rule blamed); later ones there are untested (default ${DEFAULT_MAX_BODY_BYTES / (1024 * 1024)}M)`,
};

/** What `run --help` ends with: how a CI job reads the outcome. */
export const EXIT_CODES_HELP = `
Exit codes:
  0    every check in force passed (a failed should rule is a warning and keeps 0)
  1    a must rule failed, or fewer must rules were tested than --require-coverage asks
  2    bad usage, a bad config, an unreachable target, a target that is plainly not an
       identity provider of the spec, or a report that cannot be written (one line on stderr);
       a check errored and nothing failed; nothing was tested (no check ran, or every selected
       check was skipped); or the run stopped early, the target
       silent (${SILENT_LIMIT} requests in a row unanswered) or refusing to serve it (${RATE_LIMITED_LIMIT} in a row
       rate-limited, walled by bot protection or answered by a gateway's error page), or past
       --deadline: the reports say STOPPED
  70   an internal error of the harness (a bug, with its stack trace on stderr; no report)
  130  interrupted by SIGINT (Ctrl-C); 143 by SIGTERM; 129 by SIGHUP (the terminal closed): the
       reports say INTERRUPTED
`;

export function registerRun(program: Command): void {
  const p = profiles();
  program
    .command('run')
    .description('run the conformance suites against a target (default: the embedded simulator)')
    .option('--target <url>', 'base URL of the target')
    .option('--config <file>', 'target config file (YAML or JSON)')
    .option('--release <release>', `release to hold the target to (default: the config's, else ${p.defaults.release})`)
    .option('--offering <offering>', `${OFFERINGS.join(' or ')} (default: the config's, else ${p.defaults.offering})`)
    .option('--suite <names>', `comma-separated suites (default: all: ${SUITES.join(', ')})`)
    .option('--rule <ids>', 'comma-separated rule ids: only checks proving them (default: all)')
    .option('--check <id>', 'run one check (see the reproduce command of a failure)')
    .option('--runs <n>', `property runs per check (default ${DEFAULT_RUNS})`)
    .option(
      '--expect <file>',
      'known deviations (YAML, spec/expect.schema.json): listed failures are expected, not failed (default: none)',
    )
    .option('--seed <n>', `fast-check seed (default: ${CI_SEED} under CI, random otherwise; always printed)`)
    .option('--report <specs>', 'reports to write: kind=path,... (json, junit, junit-rules, html, md; default: none)')
    .option(
      '--rate <n>',
      'at most n requests per second, waiting out a 429 as its Retry-After or reset header says (default: no limit)',
    )
    .option('--timeout <ms>', BOUNDS_HELP.timeout)
    .option('--deadline <duration>', BOUNDS_HELP.deadline)
    .option('--max-body <size>', BOUNDS_HELP.maxBody)
    .option('--require-coverage <percent>', 'fail the run when fewer of the must rules are tested (default 0)')
    .option('--slow', 'allow checks that wait in real time on a live target (default: off)')
    .option(
      '--origin <origins>',
      'comma-separated rule origins (source, documented, rfc, "RFC 7636", "RFC 6749 §5.2", "OIDC Core"): only checks proving rules of them (default: all)',
    )
    .option('--quiet', 'print the verdict line only (default: counts, failures, skips and verdict)')
    .option('--verbose', 'list every rule in the per-rule table, passed ones too (default: the rules not passed)')
    .option(
      '--shard <i/n>',
      'run slice i of n (1-based) of the selected checks; report merge joins the slices (default: all)',
    )
    .option(
      '--durations <report.json>',
      'with --shard: balance the slices by the check durations of a JSON report (default: by count)',
    )
    .option(
      '--rerun-failed <report.json>',
      'rerun the checks that failed, warned or errored there, or that its interrupted or stopped run left unrun, same seed; the target comes from --target/--config only (default: none)',
    )
    .option(
      '--from <report.json>',
      'take the seed, runs, release and faults of a JSON report, e.g. with --check ID (default: none)',
    )
    .option('--fault <name>', 'embedded simulator only: switch on a fault from spec/faults.yaml (repeatable)', collect)
    .addOption(new Option('--no-probe', 'run the checks even when the target is plainly not a provider').hideHelp())
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (flags: RunFlags) => {
      process.exitCode = await executeRun(flags);
    });
}
