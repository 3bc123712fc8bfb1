/**
 * `run` flags that start from a saved JSON report: `--rerun-failed report.json` (exactly the checks
 * that failed, warned or errored there), `--from report.json` (its seed and target, e.g. with
 * `--check ID` to reproduce one) and `--durations report.json` (balance `--shard` by time).
 */
import { readReport } from '../reporters/index.js';
import type { Report } from '../suites/report/model.js';
import { durationsOf } from '../suites/runner/shard.js';
import { UsageError } from './errors.js';

export const RERUN_STATUSES = ['failed', 'warned', 'errored'] as const;

/** The run flags this module reads (cli/run.ts's RunFlags has them all; importing it would close a cycle). */
export interface SavedRunFlags {
  target?: string;
  config?: string;
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

/** Flags that never point a run at its target: they stay the caller's. */
const camel = (flag: string) => flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The report's invocation args (`--target URL --fault a --slow`) as run flags. Repeated flags
 * collect into a list (as `--fault` does); a flag followed by another flag is a switch.
 */
export function flagsOfArgs(args: readonly string[]): SavedRunFlags & Record<string, unknown> {
  const out: Record<string, string | boolean | string[]> = {};
  for (let i = 0; i < args.length; i++) {
    if (!args[i].startsWith('--')) continue;
    const key = camel(args[i]);
    const value = args[i + 1] !== undefined && !args[i + 1].startsWith('--') ? args[++i] : true;
    if (key === 'fault') out.fault = [...((out.fault as string[] | undefined) ?? []), String(value)];
    else out[key] = value;
  }
  return out;
}

/** The report's seed and its way to the target, under whatever the command line gives itself. */
function fromReport<F extends SavedRunFlags>(report: Report, flags: F): F {
  const own = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) as F;
  // Another target on the command line replaces the report's whole way to it (faults are the embedded one's).
  const elsewhere = own.target !== undefined || own.config !== undefined || own.fault !== undefined;
  const saved = elsewhere ? {} : flagsOfArgs(report.invocation?.args ?? []);
  // A report without invocation (an older one) still names its release and offering.
  const held = report.invocation ? {} : { release: report.release, offering: report.offering };
  return { ...held, ...saved, seed: String(report.seed), ...own };
}

export async function resolveSavedRun<F extends SavedRunFlags>(flags: F): Promise<SavedRun<F>> {
  if (flags.rerunFailed !== undefined && flags.from !== undefined)
    throw new UsageError('give --rerun-failed or --from, not both');
  if (flags.durations !== undefined && flags.shard === undefined)
    throw new UsageError('--durations balances shards: give it with --shard i/n');
  if (flags.rerunFailed !== undefined && (flags.check !== undefined || flags.rule !== undefined))
    throw new UsageError('--rerun-failed runs the checks the report names: drop --check and --rule');
  const durations = flags.durations === undefined ? undefined : durationsOf((await readReport(flags.durations)).checks);
  const source = flags.rerunFailed ?? flags.from;
  if (source === undefined) return { flags, durations };
  const report = await readReport(source);
  const merged = fromReport(report, flags);
  if (flags.rerunFailed === undefined) return { flags: merged, durations };
  const checks = report.checks.filter((c) => (RERUN_STATUSES as readonly string[]).includes(c.status)).map((c) => c.id);
  return { flags: merged, checks, durations };
}
