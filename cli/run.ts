/**
 * `idp-conformance run`: parse and check the flags (one line and exit code 2 for anything wrong),
 * open the target, run the selected checks, print the summary, write the reports.
 */
import type { Command } from 'commander';
import type { Offering } from '../spec/index.js';
import { formatConsole, parseReportSpecs, writeReports, type ReportTarget } from '../reporters/index.js';
import { allChecks } from '../suites/index.js';
import { openTarget } from '../suites/target/index.js';
import { runConformance, SUITES } from '../suites/runner/run.js';
import { exitCodeOf } from '../suites/runner/report.js';
import { loadExpectations } from '../suites/runner/expect.js';
import { ruleCatalogue } from '../suites/runner/rules.js';
import { DEFAULT_RUNS, MAX_SEED, defaultSeed } from '../suites/runner/defaults.js';
import type { Check } from '../suites/types.js';
import type { Report } from '../suites/report/model.js';
import { EXIT, isUsageError, UsageError } from './errors.js';

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
  slow?: boolean;
  fault?: string[];
  expect?: string;
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
  slow: boolean;
  faults: string[];
  /** Known-deviations file (`--expect`). */
  expect?: string;
}

const list = (value?: string) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function integer(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
    throw new UsageError(
      `${flag} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}, got "${value}"`,
    );
  }
  return Number(value);
}

export function parseRunFlags(flags: RunFlags, env: NodeJS.ProcessEnv = process.env): RunSettings {
  if (flags.target && flags.config) throw new UsageError('give --target or --config, not both');
  if (flags.release !== undefined && !/^\d+\.\d+$/.test(flags.release))
    throw new UsageError(`--release must look like 17.1, got "${flags.release}"`);
  if (flags.offering !== undefined && !OFFERINGS.includes(flags.offering as Offering)) {
    throw new UsageError(`--offering must be ${OFFERINGS.join(' or ')}, got "${flags.offering}"`);
  }
  const suites = list(flags.suite);
  const unknown = suites.filter((s) => !(SUITES as string[]).includes(s));
  if (unknown.length) throw new UsageError(`unknown suite ${unknown.join(', ')} (suites: ${SUITES.join(', ')})`);
  const faults = (flags.fault ?? []).flatMap((f) => list(f));
  if (faults.length && (flags.target || flags.config))
    throw new UsageError('--fault applies only to the embedded simulator (no --target or --config)');
  return {
    target: flags.target,
    config: flags.config,
    release: flags.release,
    offering: flags.offering as Offering | undefined,
    suites,
    rules: list(flags.rule),
    check: flags.check,
    runs: flags.runs === undefined ? DEFAULT_RUNS : integer('--runs', flags.runs, 1, 100_000),
    runsGiven: flags.runs !== undefined,
    seed: flags.seed === undefined ? defaultSeed(env) : integer('--seed', flags.seed, 0, MAX_SEED),
    reports: flags.report === undefined ? [] : parseReportSpecs(flags.report),
    rate: flags.rate === undefined ? undefined : integer('--rate', flags.rate, 1),
    timeoutMs: flags.timeout === undefined ? undefined : integer('--timeout', flags.timeout, 1),
    slow: flags.slow ?? false,
    faults,
    expect: flags.expect,
  };
}

/** The flags that point a rerun at this same target and configuration. */
export function reproduceArgs(s: RunSettings): string[] {
  return [
    ...(s.target ? ['--target', s.target] : []),
    ...(s.config ? ['--config', s.config] : []),
    ...(s.release ? ['--release', s.release] : []),
    ...(s.offering ? ['--offering', s.offering] : []),
    ...(s.runsGiven ? ['--runs', String(s.runs)] : []),
    ...(s.slow ? ['--slow'] : []),
    ...s.faults.flatMap((f) => ['--fault', f]),
    ...(s.expect ? ['--expect', s.expect] : []),
  ];
}

export interface RunIo {
  out(text: string): void;
  err(text: string): void;
  checks?: () => Check[];
  /** Sees the finished report (tests read verdicts without parsing the console). */
  onReport?: (report: Report) => void;
}

const stdio: RunIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

/** The whole command; returns the exit code (0 passed, 1 a must failed, 2 usage or unreachable). */
export async function executeRun(
  flags: RunFlags,
  io: RunIo = stdio,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  // Ctrl-C finishes the running check (its tokens revoked), skips the rest and still reports.
  let interrupted = false;
  const interrupt = () => {
    interrupted = true;
    io.err('idp-conformance: interrupted; finishing the running check and revoking its tokens\n');
  };
  process.once('SIGINT', interrupt);
  try {
    const s = parseRunFlags(flags, env);
    const checks = (io.checks ?? allChecks)();
    // Read before the target opens: a bad file is exit 2 at once, not after the run.
    const expect = s.expect
      ? loadExpectations(s.expect, {
          rules: new Set(ruleCatalogue().map((r) => r.id)),
          checks: new Set(checks.map((c) => c.id)),
        })
      : undefined;
    const target = await openTarget({
      url: s.target,
      configFile: s.config,
      release: s.release,
      offering: s.offering,
      faults: s.faults,
      rate: s.rate,
      timeoutMs: s.timeoutMs,
    });
    const report = await runConformance({
      target,
      checks,
      expect,
      select: { suites: s.suites, rules: s.rules, check: s.check },
      release: s.release,
      offering: s.offering,
      seed: s.seed,
      numRuns: s.runs,
      slow: s.slow,
      reproduceArgs: reproduceArgs(s),
      progress: (line) => io.err(line + '\n'),
      stopRequested: () => interrupted,
    });
    io.onReport?.(report);
    io.out(formatConsole(report));
    if (s.reports.length) await writeReports(report, s.reports);
    return exitCodeOf(report);
  } catch (error) {
    if (isUsageError(error)) {
      io.err(`idp-conformance: ${error.message.split('\n')[0]}\n`);
      return EXIT.usage;
    }
    throw error;
  } finally {
    process.off('SIGINT', interrupt);
  }
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('run the conformance suites against a target (default: the embedded simulator)')
    .option('--target <url>', 'base URL of the target')
    .option('--config <file>', 'target config file (YAML or JSON)')
    .option('--release <release>', 'release to hold the target to, e.g. 17.1')
    .option('--offering <offering>', `offering: ${OFFERINGS.join(' or ')}`)
    .option('--suite <names>', `comma-separated suites (${SUITES.join(', ')})`)
    .option('--rule <ids>', 'comma-separated rule ids: only checks proving them')
    .option('--check <id>', 'run one check (see the reproduce command of a failure)')
    .option('--runs <n>', `property runs per check (default ${DEFAULT_RUNS})`)
    .option('--seed <n>', 'fast-check seed (default: fixed in CI, random otherwise; always printed)')
    .option('--report <specs>', 'reports to write: kind=path,... (json, junit, html, md)')
    .option('--rate <n>', 'at most n requests per second (honours 429 Retry-After)')
    .option('--timeout <ms>', 'per-request timeout in milliseconds')
    .option('--slow', 'allow checks that wait in real time on a live target')
    .option(
      '--expect <file>',
      'known deviations (YAML, spec/expect.schema.json): listed failures are expected, not failed',
    )
    .option('--fault <name>', 'embedded simulator only: switch on a fault from spec/faults.yaml (repeatable)', collect)
    .action(async (flags: RunFlags) => {
      process.exitCode = await executeRun(flags);
    });
}
