/**
 * The runner: select checks (suite, rule, check id), run them one at a time against a session,
 * report progress, and build the Report. Checks run in sequence: they share one target, and a
 * live deployment deserves a polite client.
 */
import { plural } from '../report/words.js';
import type { RuleId } from '../../spec/index.js';
import type { CheckResult, Exchange, Report } from '../report/model.js';
import { SelectionError } from '../errors.js';
import { didYouMean } from '../../spec/ajv.js';
import { SUITE_NAMES, type Check, type SuiteName } from '../types.js';
import { buildReport } from './report.js';
import { applyToCheck, type Expectation } from './expect.js';
import {
  DEADLINE_REACHED,
  DEFAULT_CHECK_TIMEOUT_MS,
  INTERRUPTED,
  openSession,
  silentEndpoint,
  slowTarget,
  unrevokedTokens,
  type SessionOptions,
} from './session.js';
import { shardOf, type Shard } from './shard.js';

export const SUITES: SuiteName[] = [...SUITE_NAMES];

export interface Selection {
  suites?: string[];
  rules?: string[];
  check?: string;
  /** Exactly these checks (`--rerun-failed`); ids no longer known are usage errors. */
  checks?: string[];
}

export interface Sharding extends Shard {
  /** Recorded durations by check id (`--durations report.json`): balance by time, else by count. */
  durations?: ReadonlyMap<string, number>;
}

export interface RunOptions extends SessionOptions {
  checks: Check[];
  select?: Selection;
  /** Run one slice of the selection; the report still lists every rule the whole selection is about. */
  shard?: Sharding;
  /** One line per finished check (stderr in the CLI). */
  progress?: (line: string) => void;
  /** Known deviations (`--expect`): their failures are reported `expected`, their passes `stale`. */
  expect?: Expectation[];
  /** Each finished check, for a caller that shows progress its own way. */
  onResult?: (result: CheckResult, index: number, total: number) => void;
  /** `--require-coverage`: percentage of the listed must rules that must be tested. */
  requiredCoverage?: number;
  /**
   * Leave now (a second signal): the running check is abandoned where it waits (skipped, its
   * tokens left to expire), the rest skipped, and the report built from what finished.
   */
  abandon?: AbortSignal;
  /**
   * Every exchange of the run, unredacted, with the check that sent it (SETUP before the first
   * check) and the run's masking (SessionOptions.tap): `diff` pairs them with a reference run's.
   * Overrides `tap`.
   */
  onExchange?: (checkId: string, exchange: Exchange, housekeeping: boolean, mask: (text: string) => string) => void;
  /** Every assertion of a check, in order with its exchanges: `diff` links a difference to the rule judged there. */
  onAssertion?: (checkId: string, rules: readonly string[], held: boolean) => void;
}

/** The check id `onExchange` gives the session's own set-up exchanges. */
export const SETUP = '(set-up)';

/** The checks a selection names; unknown names are usage errors, not empty runs. */
export function selectChecks(checks: Check[], select: Selection = {}, knownRules?: Set<string>): Check[] {
  const unknownSuites = (select.suites ?? []).filter((s) => !SUITES.includes(s as SuiteName));
  if (unknownSuites.length)
    throw new SelectionError(`unknown suite ${unknownSuites.join(', ')} (suites: ${SUITES.join(', ')})`);
  if (knownRules?.size) {
    const unknownRules = (select.rules ?? []).filter((r) => !knownRules.has(r));
    if (unknownRules.length)
      throw new SelectionError(
        `unknown rule ${unknownRules.map((r) => r + didYouMean(r, knownRules)).join(', ')} (see spec/rules.yaml)`,
      );
  }
  const ids = new Set(checks.map((c) => c.id));
  const unknownChecks = [...(select.check ? [select.check] : []), ...(select.checks ?? [])].filter(
    (id) => !ids.has(id),
  );
  if (unknownChecks.length)
    throw new SelectionError(`unknown check ${unknownChecks.map((id) => id + didYouMean(id, ids)).join(', ')}`);
  // One check named and the other filters leaving it out is a contradiction, not an empty run.
  const named = select.check === undefined ? undefined : checks.find((c) => c.id === select.check)!;
  if (named && select.suites?.length && !select.suites.includes(named.suite))
    throw new SelectionError(`check ${named.id} is in suite ${named.suite}, not in --suite ${select.suites.join(',')}`);
  if (named && select.rules?.length && !named.rules.some((r) => select.rules!.includes(r)))
    throw new SelectionError(
      `check ${named.id} proves none of the selected rules (--rule, --origin): it proves ${named.rules.join(', ')}`,
    );
  return checks.filter(
    (c) =>
      (!select.suites?.length || select.suites.includes(c.suite)) &&
      (!select.rules?.length || c.rules.some((r) => select.rules!.includes(r))) &&
      (!select.check || c.id === select.check) &&
      (!select.checks || select.checks.includes(c.id)),
  );
}

/** The signal that stopped the run, if one did (`true` from a caller that knows none: SIGINT). */
function stopSignal(options: SessionOptions): Report['interrupted'] {
  const stop = options.stopRequested?.();
  return typeof stop === 'string' ? stop : stop ? 'SIGINT' : undefined;
}

const MARK = {
  passed: 'ok  ',
  failed: 'FAIL',
  warned: 'warn',
  skipped: 'skip',
  errored: 'ERR ',
  expected: 'xpct',
} as const;

export async function runConformance(options: RunOptions): Promise<Report> {
  const startedAt = new Date();
  let running = SETUP;
  // Checks not yet finished, once the selection is known; a slow pace met in the start-up is said then.
  let checksLeft: number | undefined;
  let slowTimeoutMs: number | undefined;
  const saySlow = () =>
    options.progress?.(
      slowTarget(slowTimeoutMs!, options.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS, checksLeft!, options.deadline),
    );
  const { onExchange, onAssertion } = options;
  const session = await openSession({
    ...options,
    onSlow: (timeoutMs) => {
      options.onSlow?.(timeoutMs);
      slowTimeoutMs = timeoutMs;
      if (checksLeft !== undefined) saySlow();
    },
    onSilentEndpoint: (where, why, reporter) => {
      options.onSilentEndpoint?.(where, why, reporter);
      options.progress?.(silentEndpoint(where, why, reporter, options.deadline));
    },
    ...(onExchange
      ? {
          tap: (exchange: Exchange, housekeeping: boolean, mask: (text: string) => string) =>
            onExchange(running, exchange, housekeeping, mask),
        }
      : {}),
    ...(onAssertion ? { judged: (rules: readonly string[], held: boolean) => onAssertion(running, rules, held) } : {}),
  });
  const left = abandoned(options.abandon);
  try {
    const known = new Set(session.catalogue.map((r) => r.id));
    const select = options.select ?? {};
    const whole = selectChecks(options.checks, select, known);
    const selected = options.shard ? shardOf(whole, options.shard, options.shard.durations) : whole;
    options.progress?.(
      `${session.target.name}: release ${session.release} (${session.offering}), seed ${session.seed}, ${plural(selected.length, 'check')}` +
        (options.shard ? ` (shard ${options.shard.index}/${options.shard.total} of ${whole.length})` : ''),
    );
    session.plan(selected.map((c) => c.id));
    const results = [];
    checksLeft = selected.length;
    if (slowTimeoutMs !== undefined) saySlow();
    const skipped = (check: Check, message: string): CheckResult => ({
      id: check.id,
      suite: check.suite,
      title: check.title,
      rules: check.rules,
      status: 'skipped',
      durationMs: 0,
      message,
    });
    // The first reason to stop that came up, kept: a deadline passing later does not rename a silence.
    let stopped: Report['stopped'];
    for (const [i, check] of selected.entries()) {
      running = check.id;
      stopped ??= session.stopReason();
      const notRun = stopSignal(options) || options.abandon?.aborted ? INTERRUPTED : stopped?.message;
      const result: CheckResult = notRun
        ? skipped(check, notRun)
        : ((await Promise.race([session.runCheck(check), left.promise])) ??
          // Left during its clean-up, a check keeps the verdict its run earned.
          session.earned(check.id) ??
          skipped(check, INTERRUPTED));
      results.push(result);
      checksLeft--;
      // Progress counts what the report will say: a known deviation shows as `expected`, not `failed`.
      options.onResult?.(options.expect?.length ? applyToCheck(result, options.expect) : result, i, selected.length);
      // Every result but a pass carries a message; a pass, what its check noted beside it (t.note).
      const note = result.message ? ` — ${result.message}` : '';
      // A caller that takes each result shows progress its own way.
      if (!options.onResult)
        options.progress?.(
          `[${i + 1}/${selected.length}] ${MARK[result.status]} ${check.id} (${result.durationMs} ms)${note.length > 160 ? note.slice(0, 160) + '…' : note}`,
        );
    }
    // Said once, for the whole run: how many tokens the clean-ups' bounds left to expire.
    const unrevoked = session.unrevoked();
    if (unrevoked) options.progress?.(unrevokedTokens(unrevoked, options.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS));
    // The last check may be the one that met the silence or the refusals, or was stopped by the deadline.
    const late = session.stopReason();
    if (late && (late.reason !== 'deadline' || results.some((r) => r.message === DEADLINE_REACHED))) stopped ??= late;
    // The report lists the rules in force that this selection is about, and every rule its checks
    // broke: a failure blames the sentence it breaks, which may be another check's (a revocation's
    // empty body breaks ENC-RESPONSE-JSON too), and the verdict must show it.
    const filtered = !!(select.suites?.length || select.rules?.length || select.check || select.checks);
    const touched = new Set<string>([...whole.flatMap((c) => c.rules), ...results.flatMap((r) => r.broken ?? [])]);
    const rules = session.catalogue.filter(
      // The catalogue may be a test's own (ids outside spec/rules.yaml): inForce treats those as in force.
      (r) => session.inForce(r.id as RuleId) && (!filtered || touched.has(r.id) || select.rules?.includes(r.id)),
    );
    return buildReport({
      target: session.target.name,
      release: session.release,
      offering: session.offering,
      seed: session.seed,
      startedAt,
      checks: results,
      rules,
      invocation: { args: options.reproduceArgs ?? [] },
      ...(options.shard ? { shard: { index: options.shard.index, total: options.shard.total } } : {}),
      expect: options.expect,
      requiredCoverage: options.requiredCoverage,
      interrupted: stopSignal(options),
      ...(stopped && !stopSignal(options) ? { stopped } : {}),
      rateLimited: session.rateLimited(),
      slowAnswers: session.slowAnswers(),
      unrevokedTokens: unrevoked,
    });
  } finally {
    left.dispose();
    // Leaving now: the close is not waited for (a browser or a socket may hang on a silent target).
    if (options.abandon?.aborted) void session.close().catch(() => undefined);
    else await session.close();
  }
}

/** Resolves (undefined) when the signal aborts; dispose() lets go of the listener. */
function abandoned(signal?: AbortSignal): { promise: Promise<undefined>; dispose(): void } {
  if (!signal) return { promise: new Promise<undefined>(() => undefined), dispose: () => undefined };
  let resolve: (value: undefined) => void = () => undefined;
  const promise = new Promise<undefined>((r) => (resolve = r));
  const onAbort = () => resolve(undefined);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}
