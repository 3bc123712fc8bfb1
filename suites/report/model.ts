/** The JSON report (a contract: see DESIGN.md and reporters/report.schema.json). */
import type { Level } from '../../spec/index.js';

/**
 * `errored`: the harness could not do its part (a driver that cannot play a page, a step the
 * provider skipped, a check that saw nothing or crashed). It is never the provider's failure: it
 * makes the run exit 2 when nothing failed, and the check's rules stay untested.
 */
/**
 * `expected`: a failure of a rule listed as a known deviation (`run --expect`): reported, but it
 * does not fail the run. `stale` (rules only): listed as a known deviation, yet it passed.
 */
export type CheckStatus = 'passed' | 'failed' | 'warned' | 'skipped' | 'errored' | 'expected';
export type RuleStatus = CheckStatus | 'untested' | 'stale';

export interface Exchange {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response?: { status: number; headers: Record<string, string>; body?: string };
}

export interface CheckResult {
  id: string;
  suite: string;
  title: string;
  rules: string[];
  status: CheckStatus;
  /**
   * The check's own time, up to its verdict: not its clean-up (revoking its tokens), which is the
   * harness's housekeeping, bounded apart (a quarter of the check's time limit). `--durations`
   * balances shards by it; the run's durationMs counts the clean-ups.
   */
  durationMs: number;
  message?: string;
  /** For a failed or warned check: the rules the failure broke (all its rules unless it named some; a named one may lie outside `rules`). */
  broken?: string[];
  /**
   * For a passed check whose assertions named rules: the rules it was seen to prove (the others
   * of `rules` were not asserted, so they are not passed through this check). For a failed or
   * warned check whose broken rules are all leaves (rules.yaml `leaf`): those of its rules, not
   * broken, that assertions named and saw hold.
   */
  proved?: string[];
  /** Every assertion that failed, when there were several (soft assertions): message and rules. */
  failures?: { message: string; broken: string[] }[];
  /** fast-check counterexample after shrinking, as printed by fast-check. */
  counterexample?: string;
  /** The HTTP exchanges that show the failure, secrets redacted. */
  exchange?: Exchange[];
  /** A command line that reruns exactly this check with this seed. */
  reproduce?: string;
  /** For an `expected` check: the reasons of the known deviations (`--expect`) that excuse it. */
  expectedReason?: string;
}

export interface Coverage {
  /** `must` rules the report lists. */
  must: number;
  /** Of those, the ones a check tested (passed, failed or warned; not skipped, untested or errored). */
  mustTested: number;
  /** `--require-coverage`: the run fails when the tested share is below this percentage. */
  required?: number;
}

export interface RuleResult {
  id: string;
  title: string;
  level: Level;
  source: string;
  /** Where the level comes from: `source`, `documented`, or an RFC section. */
  origin: string;
  status: RuleStatus;
  checks: string[];
  /** For a rule listed in `--expect` (status expected or stale): the listed reason. */
  expectedReason?: string;
}

export interface Report {
  tool: 'idp-conformance';
  version: string;
  target: string;
  release: string;
  offering: string;
  seed: number;
  startedAt: string;
  /**
   * Wall-clock time of the whole run, from before the start-up to the report: the start-up's and
   * every check's clean-up included (so at least its checks' durationMs added up). A merge's is
   * the span from its first shard's start to its last shard's end.
   */
  durationMs: number;
  summary: {
    passed: number;
    failed: number;
    warned: number;
    skipped: number;
    errored: number;
    /** Failures excused by `--expect` (present when the run had an expect file). */
    expected?: number;
  };
  /** Share of the listed `must` rules a check actually tested (suites/report/verdict.ts mustCoverage). */
  coverage?: Coverage;
  /** The run was stopped by this signal; checks it did not reach are skipped. */
  interrupted?: 'SIGINT' | 'SIGTERM' | 'SIGHUP';
  /**
   * The run ended early, not by a signal: the target stopped answering (`silent`) or serving the
   * harness (`rate-limited`), its bot protection refused the harness (`walled`), gateway error pages
   * answered in the provider's place (`unavailable`: maintenance, an upstream down), or the run
   * reached its `--deadline`. Checks it did not reach are skipped; the run is never green (exit code 2).
   */
  stopped?: { reason: 'silent' | 'rate-limited' | 'walled' | 'unavailable' | 'deadline'; message: string };
  /**
   * Requests the target would not serve (429, or a 403 saying its rate limit is spent) even after
   * the waits and retries: each errored the check that sent it. Present when there were any.
   */
  rateLimited?: number;
  /**
   * Answers that took at least half of the per-request timeout (--timeout): a target slow on
   * every request holds each check to its time limit. Present when there were any.
   */
  slowAnswers?: number;
  /**
   * Tokens the target issued to the harness that the clean-ups left unrevoked, to expire on their
   * own: a clean-up's budget (a quarter of the check's time limit), --deadline's grace or a signal's
   * ran out first. A count, never a token. Present when there were any.
   */
  unrevokedTokens?: number;
  /**
   * The flags that pointed the run at its target (reproduce commands; `--rerun-failed` takes only the
   * selection). A merged report (`report merge`) has the one its reports share, and none when they
   * differ (nor when none had one): no single command redoes runs made with different flags.
   */
  invocation?: { args: string[] };
  /** This report covers one slice of the checks (`run --shard index/total`). */
  shard?: { index: number; total: number };
  /** A merged report (`report merge`): the slices it joins (1-based, sorted) of `total`. */
  shards?: { indexes: number[]; total: number };
  rules: RuleResult[];
  checks: CheckResult[];
  /** `idp-conformance diff`: where the target's answers differ from the reference simulator's. */
  diff?: DiffSection;
  /** `idp-conformance proxy`: the client's habits seen in its traffic (not verdicts on the provider). */
  client?: ClientSection;
}

/** One habit of the client behind the proxy (suites/proxy/client.ts), how often, and where. */
export interface ClientHabitSeen {
  habit: string;
  /** What the habit is, in a sentence (the tool's own text). */
  title: string;
  count: number;
  /** Method and path of the first few requests that showed it (from the traffic: rendered inert). */
  where: string[];
  /**
   * The first exchange that showed it: its number (the n-th request the proxy forwarded, from 1)
   * and its method and path. Absent where the numbers are unknown (a tally fed by hand).
   */
  first?: { exchange: number; where: string };
}

export interface ClientSection {
  /** Exchanges the proxy saw; `habits` empty: none of the habits it looks for. */
  exchanges: number;
  habits: ClientHabitSeen[];
  /**
   * The proxy's last line: what was judged, and what was not the provider's to judge or no rule's
   * (requests the target never answered, pages in front of it, clients that left), so a report
   * that judged nothing says why.
   */
  traffic?: string;
}

/** What differs in a pair of normalised exchanges (suites/diff/compare.ts). */
/** `value`: a member whose value breaks what spec/openapi.yaml fixes for it (a const, a bound), where the reference's does not. */
export type DifferenceKind = 'status' | 'error' | 'member' | 'type' | 'value' | 'header' | 'location' | 'exchange';

export interface Difference {
  /** Method and OpenAPI path template, e.g. `POST /oauth/token`. */
  operation: string;
  kind: DifferenceKind;
  /** What differs: `status`, `error`, a JSON member path (`$.scope`), a header name, `location`, `exchange`. */
  subject: string;
  /** The target's side and the reference's, normalised (roles and types, never generated values). */
  target: string;
  reference: string;
  /**
   * Rules the target run broke by an assertion that judged the answer that showed it (or whose
   * sentence names its member or header); empty: allowed, or not covered by any rule.
   */
  rules: string[];
  /**
   * A variation the spec allows: `spec/openapi.yaml` (the answer matches its documented schema) or
   * the rules whose assertions judged that exchange and held (of the first pair that showed it;
   * those naming its member or header where some do), at most three, then `and N more`.
   */
  allowed?: string;
  /**
   * Neither linked nor allowed, at an operation that rules of checks the selection left out
   * (--suite, --rule, --check) concern: those rules (the ones whose sentence names it, else the
   * first few). Not judged by the checks run, which is not "not covered by any rule".
   */
  unjudged?: string[];
  /**
   * The status of the answers that showed it, where that difference at another status is judged
   * otherwise (each status by its own documented answer): a row per status then. Absent: one row.
   */
  status?: string;
  /** Checks that saw it (the first few) and how many pairs showed it. */
  checks: string[];
  count: number;
}

export interface DiffSection {
  /** The reference the target was compared with, e.g. `embedded simulator 17.5 (self-managed)`. */
  reference: string;
  /** What was read from the target to configure the reference (release, flags), or why not. */
  read?: string[];
  /** Exchanges recorded on each side, and how many were paired by check, operation and order. */
  exchanges: { target: number; reference: number; paired: number };
  differences: Difference[];
  /** Differences left out beyond the report's bound. */
  omitted?: number;
  /** Exchanges past the recording's bound, not compared. */
  unrecorded?: number;
  /**
   * Checks one side ran to no verdict (a premise missing: skipped or errored), by reason: their
   * exchanges are not compared, and the operations the other side sent for them are listed here
   * once instead of as differences (one cause, one blame).
   */
  notCompared?: NotCompared[];
}

export interface NotCompared {
  /** Why, in the harness's words: the check's skip or error message, on the side that had no verdict. */
  reason: string;
  checks: string[];
  /** Operations sent for those checks on either side, left uncompared. */
  operations: string[];
}
