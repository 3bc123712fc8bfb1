/**
 * A session: one target, its detected capabilities and driver, ready to run checks one by one.
 * The CLI runner and the vitest glue both run checks through here, so they agree on every verdict.
 */
import { leftUnrevoked, plural } from '../report/words.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { profiles } from '../../spec/index.js';
import type { Offering, RuleId } from '../../spec/index.js';
import type { CheckResult, CheckStatus, Exchange, Report } from '../report/model.js';
import { HarnessInputError, TargetError } from '../errors.js';
import type {
  Capabilities,
  Capability,
  Check,
  CheckTime,
  CoreCapability,
  Driver,
  DriverKind,
  EndpointCapability,
  HttpResponse,
} from '../types.js';
import {
  LOWER_THE_RATE,
  SLOW_SHARE,
  TransportError,
  transportStop,
  type RawRequest,
  type Target,
} from '../target/types.js';
import { screen, UnservedAnswer } from '../target/unserved.js';
import { GATEWAY_ERRORS, restStartupTrouble } from '../shared/rest-tokens.js';
import { createDriver } from '../drivers/index.js';
import { devicePageUrl } from '../drivers/form.js';
import { AUTHORIZE_DEVICE_PATH, AUTHORIZE_PATH, readMetadata, TOKEN_PATH, USERINFO_PATH } from '../shared/oauth.js';
import { refusalOf, refusedAuthorizations, refusedClients, type RefusedApps } from './app-premise.js';
import {
  absentBy,
  clockMoves,
  CORE_ENDPOINTS,
  type CoreEndpoint,
  type EndpointPremise,
  NEEDED_ENDPOINTS,
  detectCapabilities,
  detectDevice,
  deviceRole,
  driverCannotMoveClock,
  detectControl,
  REFUSED_PREMISES,
} from './capabilities.js';
import { createCheckContext, createEvidence, MAX_UNSHOWN, type Evidence, type SessionGround } from './context.js';
import { reportsIt, type ReportsIt } from './reported-by.js';
import {
  BrokenExchange,
  DeadlineCut,
  CheckFailure,
  CheckSkipped,
  FoundAbsent,
  HarnessError,
  NoAnswer,
  OversizedAnswer,
  RateLimited,
  UnansweredPage,
} from './errors.js';
import { endpointsElsewhere, shownUrl, type Elsewhere } from './endpoints.js';
import { basicPair, createHttp, createRecorder } from './http.js';
import { createOAuthFlows, type TrackedFlows } from './oauth.js';
import { createRandom } from './random.js';
import { createExchangeBudget, createRedactor, scalarsOf, type Redactor } from './redact.js';
import { describeFailure, oneLine } from '../report/cut.js';
import { commandLine } from '../report/command.js';
import { flagsFor, inForceOf, ruleCatalogue, rulesInForce, whyNotInForce, type RuleInfo } from './rules.js';

/** Why a check the run did not finish is skipped. */
export const INTERRUPTED = 'the run was interrupted';
/** Why the checks after the run's --deadline are skipped. */
export const DEADLINE_REACHED = 'the run reached its --deadline';
/**
 * Requests in a row the target may leave unanswered (each after --timeout) before the run stops:
 * one is a hiccup, three with no answer between them is a target that stopped answering.
 */
export const SILENT_LIMIT = 3;
/** Why a check may send nothing more once the target fell silent. */
export const STOPPED_ANSWERING = `the target stopped answering after ${SILENT_LIMIT} requests in a row got no answer`;
/**
 * Requests in a row the target may refuse to serve (rate-limited, each given up by the HTTP target
 * after its retries) before the run stops, as SILENT_LIMIT for silence. Each give-up is already
 * three refusals across the waits the target named (or 1 s and 2 s of backoff), or one naming a
 * wait past 60 s: three in a row, nothing served between them, is a spent quota, not a busy second.
 * A path refused for good must not stop the run, yet checks that each start at it (the token
 * endpoint: up to 5 in a row in a whole run) give it up in a row with nothing asked between. So
 * the last of the three is the harness's own question elsewhere (`reachability`: GET /, as at start-up),
 * asked when the checks' requests were refused one short of the limit: a target that serves it
 * refuses a path, not the harness, and its answer resets the count.
 * The first give-up naming a reset past the longest wait does not stop the run at once: that reset
 * speaks for the bucket of the refused request (Okta keeps one per endpoint, GitHub one per
 * resource), not for every request; and such a refusal is given up with no wait, so the next
 * request and the question elsewhere confirm a spent quota at the cost of two requests.
 */
export const RATE_LIMITED_LIMIT = 3;
/**
 * Answers in a row that took at least half of --timeout (SLOW_SHARE) before the run says, once,
 * that the target is slow: such a target is never silent, so nothing stops the run early, and
 * each check may run to its time limit. One slow answer is a cold cache; five in a row is a pace.
 */
export const SLOW_LIMIT = 5;
/**
 * The line said once when the target answers slowly: how long the run may take at this pace (each
 * check up to its time limit), and what bounds it.
 */
export function slowTarget(timeoutMs: number, checkLimitMs: number, checksLeft: number, deadline?: number): string {
  const pace = `the target answers slowly: ${SLOW_LIMIT} requests in a row each took ${SLOW_SHARE * 100} % of --timeout (${timeoutMs} ms) or more, so none timed out and the run goes on`;
  // Each check's clean-up (revoking its tokens) comes after its limit, with its own budget.
  const revokeMs = revokeBudgetMs(checkLimitMs);
  const all = `each check may take its ${Math.round(checkLimitMs / 1000)} s time limit and ${Math.round(revokeMs / 1000)} s more to revoke its tokens, about ${Math.ceil((checksLeft * (checkLimitMs + revokeMs)) / 60_000)} min for the ${checksLeft} checks left`;
  const bound = deadline === undefined ? 'bound the run with --deadline' : 'the run stops at its --deadline';
  return `${pace}; ${all}; ${bound}`;
}
/**
 * The line said once per endpoint the target leaves unanswered within --timeout while it answers
 * elsewhere (`why`: the HTTP target's words, with the timeout), and what to do if it is only slow.
 */
export function silentEndpoint(where: string, why: string, reporter: string, deadline?: number): string {
  const bound = deadline === undefined ? 'bound the run with --deadline' : 'the run stops at its --deadline';
  return `the target does not answer ${where} (${why}; ${reporter} reports it): ${laterUntested(where)}; if it is only slow, raise --timeout; ${bound}`;
}
/** What a silent endpoint costs the rest of the run, as its reporter and the progress line say it. */
const laterUntested = (where: string) => `${where} is not asked again, and the later checks that need it are untested`;
/** Why the run stops when the target refused RATE_LIMITED_LIMIT requests in a row; `resetIn`: seconds, if it named them. */
export const stoppedServing = (resetIn?: number) =>
  `the target stopped serving the harness: ${RATE_LIMITED_LIMIT} requests in a row were rate-limited` +
  (resetIn === undefined ? '' : `; its limit resets in ${Math.ceil(resetIn)} s`);
/**
 * Why the run stops when RATE_LIMITED_LIMIT requests in a row were answered by something standing in
 * for the provider (target/unserved.ts), nothing served between them: a bot wall (`wall`, its
 * vendor) or gateway error pages (`statuses`, as seen: 502/503/504, a maintenance window, an
 * upstream gone), a 503 given up after its Retry-After among them.
 */
export const stoppedBy = (wall: string | undefined, statuses: readonly number[]) =>
  wall
    ? `the target's bot protection refuses the harness: ${RATE_LIMITED_LIMIT} requests in a row were answered by ${wall}, not by the provider`
    : `the target stopped serving: ${RATE_LIMITED_LIMIT} requests in a row answered ${[...new Set(statuses)].sort().join('/')}, a gateway's or maintenance page, not the provider's`;
/** Why the run stopped early, and the one line it says. */
export type StopReason = NonNullable<Report['stopped']>;
/** The rule whose window says whether the password grant still exists at a release. */
const PASSWORD_RULE: RuleId = 'GRANT-PASSWORD-PARAMS';
/** A check that has not finished after this long is failed, so one hang cannot stall a run. */
export const DEFAULT_CHECK_TIMEOUT_MS = 60_000;
/**
 * The most a single real-time wait the target asks for (`--slow`: a device code's `expires_in`, an
 * `interval`) moves a check's time limit on: RFC 8628's examples are 1,800 s (30 minutes). A target
 * naming more holds the check to its limit, which judges no rule (test/hostile/long-waits.test.ts).
 */
export const REAL_WAIT_GRANT_MS = 30 * 60_000;
/** Why a check that ran past its time limit may send nothing more. */
export const PAST_ITS_END = 'the check ran past its end; its later requests are refused';

/** One message for a check's failures: each numbered when there are several, and how many more were not kept. */
function failureMessage(each: readonly { message: string }[], unshown: number): string {
  const listed =
    each.length === 1 ? each[0].message : each.map((f, i) => `(${i + 1}/${each.length}) ${f.message}`).join('\n');
  return unshown
    ? `${listed}\n(+${unshown >= MAX_UNSHOWN ? 'at least ' : ''}${plural(unshown, 'more failure')} of this check not shown)`
    : listed;
}

/** A status that said an endpoint answering JSON only is absent, in words: a success was a web page (absentBy). */
const absentStatus = (status: number) =>
  status < 300 ? `${status} with a web page, not JSON` : status < 400 ? `${status}, a redirect` : String(status);

/** What the start-up asked a core endpoint, and what it answered (`status`, when known) that said it is absent. */
const askedAtStartUp = (e: EndpointPremise, shown = (path: string) => path, status?: number) =>
  e.method === 'POST'
    ? `an empty POST ${shown(e.path)} answered ${status ?? '404, 405 or a redirect'} at start-up`
    : `GET ${shown(e.path)} answered ${status === undefined ? '404 or 405' : absentStatus(status)} at start-up`;

/** Why what needs an absent core endpoint is skipped: what the start-up asked, and who reports it. */
const whyAbsent = (e: CoreEndpoint, said: ReportsIt, shown?: (path: string) => string, status?: number) =>
  `the target has no ${e.name}: ${askedAtStartUp(e, shown, status)} ${said(e.reporter, e.rule)}`;

/** Who reports a needed endpoint family absent, and on which rule: "(X reports it on R)". */
const saidFor = (c: EndpointCapability, said: ReportsIt) => {
  const e = NEEDED_ENDPOINTS.find((n) => n.capability === c)!;
  return said(e.reporter, e.rule);
};

/** The families asked like a core endpoint (absentAnswers) are said as one: whyCapabilityMissing. */
type AskedFamily = 'tokenInfo' | 'userinfo';
const WHY_MISSING: Record<
  Exclude<Capability, CoreCapability | AskedFamily>,
  string | ((said: ReportsIt, status?: number) => string)
> = {
  control: 'the simulator control API does not answer',
  clock: 'the target offers no clock control',
  settings: 'the target offers no control of its instance settings',
  device: 'the device authorization grant is not available (release, flag, or endpoint)',
  passwordGrant:
    'the password grant is not available to the configured user (release, setting, no user configured, or a refusal at start-up: a wrong password, a second factor)',
  pat: 'no personal access token is configured',
  writable: 'the harness may not create data on this target',
  oidc: 'no application with the openid scope is configured',
  restApi: (said, status = 404) =>
    `the target has no REST API: GET /api/v4/user answered ${absentStatus(status)} ${saidFor('restApi', said)}`,
  introspection: "discovery advertises no introspection endpoint on the target's origins",
};

/**
 * Why a check needing capability c is skipped, its reporter named as the run's plan has it;
 * `answered`: what each absent core endpoint answered at start-up.
 */
function whyCapabilityMissing(
  c: Capability,
  said: ReportsIt,
  shown?: (path: string) => string,
  answered?: Capabilities['absentAnswers'],
): string {
  const core = CORE_ENDPOINTS.find((e) => e.capability === c);
  if (core) return whyAbsent(core, said, shown, answered?.[core.capability]);
  const family = c === 'tokenInfo' || c === 'userinfo' ? NEEDED_ENDPOINTS.find((e) => e.capability === c) : undefined;
  if (family)
    return `the target has no ${family.name}: ${askedAtStartUp(family, shown, answered?.[family.capability])} ${said(family.reporter, family.rule)}`;
  const why = WHY_MISSING[c as Exclude<Capability, CoreCapability | AskedFamily>];
  return typeof why === 'string' ? why : why(said, c === 'restApi' ? answered?.restApi : undefined);
}

/** The check that says the REST API's start-up premise (absent, down, the token refused) when it runs. */
const REST_PREMISE_REPORTER = 'versioning.api-prefix';

/** Why the REST checks are untested when the REST API answered a gateway error at start-up. */
const restApiDown = (status: number, reporter = REST_PREMISE_REPORTER) =>
  `the REST API is unreachable: GET /api/v4/user answered ${status}, a gateway error, at start-up (${reporter} reports it)`;

/** Why the REST checks are untested when the REST API refused the configured personal access token at start-up. */
const restPatRefused = (status: number, reporter = REST_PREMISE_REPORTER) =>
  `the REST API refuses the configured personal access token: GET /api/v4/user answered ${status} at start-up (${reporter} reports it)`;

export interface SessionOptions {
  target: Target;
  /** Overrides of the config's release and offering (command-line flags). */
  release?: string;
  offering?: Offering;
  seed: number;
  numRuns: number;
  slow?: boolean;
  /** The rule catalogue; spec/rules.yaml unless a test hands one in. */
  rules?: RuleInfo[];
  /** Arguments that point `idp-conformance run` at this same target (for reproduce commands). */
  reproduceArgs?: string[];
  checkTimeoutMs?: number;
  /**
   * Asked before each check and each request a check sends: a signal (or true) stops the run
   * (Ctrl-C). The running check stops at its next request and is skipped, its tokens still revoked.
   */
  stopRequested?: () => 'SIGINT' | 'SIGTERM' | 'SIGHUP' | boolean | undefined;
  /**
   * Aborted with the first signal, as stopRequested says it: a check's request waiting out the
   * target's rate limit stops waiting at once and is not sent (RawRequest.stop). Housekeeping
   * (revocation) still waits, STOP_REVOKE_MS at most from the signal.
   */
  stop?: AbortSignal;
  /** When the whole run must end (epoch ms, `--deadline`): later checks are skipped, the running one stopped. */
  deadline?: number;
  /**
   * Sees every exchange the session records, unredacted: the caller keeps no secret of it.
   * `housekeeping`: the harness revoking the tokens it was handed, not a request of a check.
   * `mask`: the run's redactor on a text, every secret learned so far masked (this exchange's too):
   * what the caller keeps of the exchange, the names the target chose included, goes through it.
   */
  tap?: (exchange: Exchange, housekeeping: boolean, mask: (text: string) => string) => void;
  /** Sees every assertion of a check: the rules it names (the check's when it names none) and whether it held. */
  judged?: (rules: readonly string[], held: boolean) => void;
  /** Told once, with the per-request timeout, when SLOW_LIMIT answers in a row were slow (Target.slowAnswers). */
  onSlow?: (timeoutMs: number) => void;
  /**
   * Told once per endpoint (method and path) a check found silent (no answer, or no whole answer,
   * within --timeout): what it is, the target's words, and the check that reports it.
   */
  onSilentEndpoint?: (where: string, why: string, reporter: string) => void;
}

/** `inForce` counts unknown ids as in force, so a typo cannot hide a check. */
export interface Session extends SessionGround {
  readonly target: Target;
  readonly redactor: Redactor;
  readonly catalogue: RuleInfo[];
  runCheck(check: Check): Promise<CheckResult>;
  /** The ids of the checks this run will run, in order: whose premise their reporter will not say is said by one of them. */
  plan(ids: readonly string[]): void;
  /**
   * The verdict of check `id` when its run is over and its clean-up (revoking its tokens) is under
   * way: a run that must leave now keeps it rather than skip the check.
   */
  earned(id: string): CheckResult | undefined;
  /**
   * Tokens the clean-ups left unrevoked so far (their budget, the deadline's or a signal's grace ran
   * out), and those the clean-up under way still holds.
   */
  unrevoked(): number;
  /** Requests the target refused to serve (rate-limited) after the retries, so far. */
  rateLimited(): number;
  /** Answers that took at least half of the per-request timeout, so far. */
  slowAnswers(): number;
  /**
   * Why the run must not start another check (the target fell silent or stopped serving it, the
   * deadline passed), if it must not.
   */
  stopReason(): StopReason | undefined;
  close(): Promise<void>;
}

export function reproduceCommand(checkId: string, seed: number, args: string[] = []): string {
  return commandLine(['run', '--check', checkId, '--seed', String(seed), ...args]);
}

/** A request as its refusal names it: method and path, never the query (it may carry a secret). */
function shownRequest(raw: RawRequest): string {
  try {
    return `${raw.method} ${new URL(raw.url).pathname.slice(0, 200)}`;
  } catch {
    return raw.method;
  }
}

/** Why the run stops after a row of refusals: a wall among them, else gateway errors, else a rate limit. */
function stopFor(refusals: readonly TransportError[]): StopReason {
  const last = refusals[refusals.length - 1];
  const walls = refusals.filter((r): r is UnservedAnswer => r instanceof UnservedAnswer && r.unserved.kind === 'wall');
  if (walls.length) return { reason: 'walled', message: stoppedBy(walls[walls.length - 1].unserved.what, []) };
  const statuses = refusals.map((r) => r.status ?? 0).filter((s) => GATEWAY_ERRORS.has(s));
  if (statuses.length === refusals.length) return { reason: 'unavailable', message: stoppedBy(undefined, statuses) };
  return { reason: 'rate-limited', message: stoppedServing(last.resetIn) };
}

/** No answer came: none within --timeout, or the connection refused or reset (http.ts 'unreachable'). */
const isUnanswered = (error: unknown) =>
  error instanceof TransportError && (error.code === 'timeout' || error.code === 'unreachable');

/** The first question of a run, whose answer says the target serves at all. */
const reachability = (target: Target) => ({ method: 'GET', url: `${target.baseUrl}/`, headers: new Headers() });

async function assertReachable(target: Target): Promise<void> {
  try {
    await target.send(reachability(target));
  } catch (error) {
    // Cut short by --deadline, the question says nothing of the target: the run ends STOPPED, with its reports.
    if (error instanceof TransportError && error.code === 'deadline') return;
    if (error instanceof TransportError) throw new TargetError(transportStop(target.baseUrl, error));
    throw error;
  }
}

/**
 * The harness's own work on the run's thread that makes a check's time its trouble, not the
 * target's: a loaded machine holds the thread tens of milliseconds, not half a second.
 */
export const BLOCKED_MS = 500;

/** The driver of a start-up the deadline cut short: no check runs to use it. */
function cutShort(kind: DriverKind): Driver {
  const none = () => Promise.reject(new HarnessError(DEADLINE_REACHED));
  return { kind, authorize: none, approveDevice: none, denyDevice: none, advanceClock: none };
}

/** What revocation may take past --deadline: as after SIGINT (cli/signals.ts STOP_GRACE_MS), the tokens left expire. */
export const REVOKE_GRACE_MS = 5000;

/**
 * What revocation may take after the first signal (SIGINT, SIGTERM, SIGHUP): a second less than
 * the run's own grace (cli/signals.ts STOP_GRACE_MS, also 5 s), so a clean-up still under way ends
 * by itself and the run writes its reports before that grace runs out and leaves without them.
 */
export const STOP_REVOKE_MS = REVOKE_GRACE_MS - 1000;

/**
 * The share of a check's time limit that revoking its tokens may take after it (and the start-up's
 * tokens, after the start-up): 15 s at the default 60 s. Revocation asks one request per token, one
 * after the other (a live provider is owed a polite client), so it was bounded only by tokens ×
 * --timeout: a revocation endpoint answering in 1.9 s took 67 s after a check of 2.3 s, and one
 * answering just within the default --timeout would take minutes per property check (review 29).
 * A share of the limit, not the check's own duration, so that a run stays bounded by what its
 * notice says (checks × (limit + this)); a quarter, because a provider that revokes at 100 ms
 * still clears in it 150 tokens, several times what any check mints at the default --runs
 * (grants.pkce-valid-verifier: 34), while one answering at a tarpit's pace is left after 15 s.
 * The tokens left expire on their own; the run says how many, once (unrevokedTokens).
 */
export const REVOKE_SHARE = 0.25;
/** How long revoking one check's tokens may take, for a check time limit of `checkLimitMs`. */
export const revokeBudgetMs = (checkLimitMs: number) => checkLimitMs * REVOKE_SHARE;
/** The line a run says once when its clean-ups left tokens unrevoked: how many, never which. */
export const unrevokedTokens = (count: number, checkLimitMs: number) =>
  `${leftUnrevoked(count)}: revoking a check's tokens may take ${Math.round(revokeBudgetMs(checkLimitMs) / 1000)} s (a quarter of its time limit), and ${REVOKE_GRACE_MS / 1000} s past --deadline, ${STOP_REVOKE_MS / 1000} s after a signal`;

/**
 * A check's time limit measures the target's time: what the harness's own work held the run's
 * thread meanwhile (before it asked, or past the limit) is given back, on the monotonic clock (a
 * wall clock that steps, NTP or a VM paused, is no one's work). Past it, the target was too slow to
 * judge, which judges no rule; while the target's rate limit held the requests (`held`, in words),
 * it says that instead. Own work as long as the limit itself (and over BLOCKED_MS) is the harness's.
 */
function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
  held?: () => string | undefined,
  /** Milliseconds granted since it was last asked (the check's own real-time waits); 0 for none. */
  granted?: () => number,
): Promise<T> {
  if (!Number.isFinite(ms) || ms <= 0) return promise;
  let timer: NodeJS.Timeout;
  const start = performance.eventLoopUtilization();
  let dueAt = performance.now() + ms;
  // The thread's busy time already given back; less than a tenth of the limit is not worth a timer.
  let givenBack = 0;
  const worth = Math.min(BLOCKED_MS, ms / 10);
  const timeout = new Promise<never>((_, reject) => {
    const moveOn = (more: number) => {
      dueAt = performance.now() + more;
      timer = setTimeout(due, more);
    };
    const due = () => {
      // The timer fired this late only because one turn of the thread held it: the harness's own
      // work (a target's answers come between turns, never inside one), not a silent target.
      const blocked = Math.round(performance.now() - dueAt);
      if (blocked > BLOCKED_MS)
        return reject(
          new HarnessError(
            `${what} did not finish within ${ms} ms: the harness's own work held the run's thread ${blocked} ms past that (not the target's doing)`,
          ),
        );
      // The check waited as the target asked meanwhile: the limit moves on by that.
      const more = granted?.() ?? 0;
      if (more > 0) return moveOn(more);
      // The thread's busy time is given back, at most the limit itself: busy time counts the work
      // the target's own answers cause too (an embedded target, TLS, a browser's events), so a
      // target keeping the thread busy stretches its limit at most twice and is never blamed on us.
      const fresh = Math.min(Math.round(performance.eventLoopUtilization(start).active), ms) - givenBack;
      if (fresh >= worth) {
        givenBack += fresh;
        return moveOn(fresh);
      }
      const late =
        givenBack >= BLOCKED_MS
          ? `${what} did not finish within ${ms} ms of the target's time (the harness's own work held the run's thread ${givenBack} ms more)`
          : `${what} did not finish within ${ms} ms`;
      const hold = held?.();
      reject(
        hold
          ? new RateLimited(`${late}, waiting out the target's rate limit (${hold}); ${LOWER_THE_RATE}`)
          : new NoAnswer(late),
      );
    };
    timer = setTimeout(due, ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The check a piece of async work belongs to: its session's mark and its number there. */
interface CheckScope {
  readonly session: object;
  readonly check: number;
}

/**
 * One store for every session of the process. On Node 20 each AsyncLocalStorage that has run stays
 * on a list walked at every promise's creation, for good: one per session made the thousandth
 * promise of a process that had opened a hundred sessions (a library caller's loop, npm test's
 * workers) cost 18 µs instead of 0.3.
 */
const checkScope = new AsyncLocalStorage<CheckScope>();

export async function openSession(options: SessionOptions): Promise<Session> {
  const { target: given } = options;
  const sessionMark = {};
  await assertReachable(given);
  // Requests in a row the target left unanswered, and refused to serve; any answer resets both.
  let unanswered = 0;
  let refusedInARow = 0;
  // Requests the target would not serve, even after the HTTP target's retries (the report counts them).
  let rateLimited = 0;
  // The refusals of the current row: the last one names the stop (a wall, else gateway statuses, else a rate limit).
  let refusals: TransportError[] = [];
  // Set once the target stopped answering or serving: the run asks it nothing more.
  let gone: StopReason | undefined;
  let askingElsewhere = false;
  let slowSaid = false;
  /** Any answer ends the rows of silence and refusals. */
  const served = () => {
    unanswered = refusedInARow = 0;
    refusals = [];
  };
  /**
   * A request given up (rate-limited) or answered by something standing in for the provider,
   * whether the HTTP target's or a page the browser driver loaded: RATE_LIMITED_LIMIT in a row stop
   * the run, and the one before the last asks the target's front page first, so a provider that
   * refuses one path for good is not taken for one that refuses the harness.
   */
  const refused = async (error: TransportError) => {
    if (error.code === 'rate-limited') rateLimited++;
    else unanswered = 0;
    refusals.push(error);
    if (++refusedInARow >= RATE_LIMITED_LIMIT) gone ??= stopFor(refusals);
    else if (refusedInARow === RATE_LIMITED_LIMIT - 1) await askElsewhere();
  };
  /**
   * The harness's own question away from a path that keeps failing (the front page, as at
   * start-up), through this same send, so its answer (or refusal, or silence) counts as any
   * request's: a target that answers it fails a path, not the harness.
   */
  const askElsewhere = async () => {
    if (askingElsewhere || gone) return;
    askingElsewhere = true;
    try {
      await target.send(reachability(given)).catch(() => undefined);
    } finally {
      askingElsewhere = false;
    }
  };
  // The tokens being revoked (revoke below): its requests are waited for until revokeUntil, which
  // may be past --deadline (within REVOKE_GRACE_MS), never past the revocation's budget.
  let revoking: TrackedFlows | undefined;
  let revokeUntil = () => Infinity;
  const graceEnd = options.deadline === undefined ? Infinity : options.deadline + REVOKE_GRACE_MS;
  // When the first signal came: revocation then has STOP_REVOKE_MS from it, within the run's grace.
  let stoppedAt: number | undefined;
  const onStop = () => (stoppedAt ??= Date.now());
  if (options.stop?.aborted) onStop();
  else options.stop?.addEventListener('abort', onStop, { once: true });
  // Tokens the clean-ups left unrevoked, all the run (Session.unrevoked).
  let unrevoked = 0;
  const target: Target = {
    ...given,
    async send(raw) {
      try {
        const own = checkScope.getStore() === housekeeping;
        const until = own && revoking ? revokeUntil() : Infinity;
        const sent = own
          ? Number.isFinite(until)
            ? { ...raw, until }
            : raw
          : options.stop
            ? { ...raw, stop: options.stop }
            : raw;
        // A wall or a gateway's page in the provider's place is a refusal too, thrown as one.
        const response = await screen(shownRequest(raw), await given.send(sent));
        served();
        const slow = given.slowAnswers?.();
        if (slow && slow.inARow >= SLOW_LIMIT && !slowSaid) {
          slowSaid = true;
          options.onSlow?.(slow.timeoutMs);
        }
        return response;
      } catch (error) {
        // A refused or reset connection is no answer either: a target whose process went away
        // mid-run stops the run as a silent one does (before, each later check errored on it).
        if (isUnanswered(error) && ++unanswered >= SILENT_LIMIT)
          gone ??= { reason: 'silent', message: STOPPED_ANSWERING };
        if (error instanceof TransportError && error.code === 'timeout' && !askingElsewhere) fellSilent(raw, error);
        if (error instanceof TransportError && (error.code === 'rate-limited' || error.code === 'unserved'))
          await refused(error);
        throw error;
      }
    },
    close: () => given.close(),
  };
  const pastDeadline = () => options.deadline !== undefined && Date.now() >= options.deadline;
  const config = target.config;
  const defaults = profiles().defaults;
  const release = options.release ?? config.release ?? defaults.release;
  const offering = options.offering ?? config.offering ?? defaults.offering;
  const flags = flagsFor(release, config.features);
  const catalogue = options.rules ?? ruleCatalogue();
  const known = new Set<string>(catalogue.map((r) => r.id));
  const inForceSet = options.rules
    ? inForceOf(options.rules, release, offering, flags)
    : rulesInForce(release, offering, flags);
  const inForce = (id: string) => !known.has(id) || inForceSet.has(id);

  const redactor = createRedactor(
    [
      config.personalAccessToken,
      config.user?.password,
      ...Object.values(config.applications ?? {}).map((a) => a?.clientSecret),
      // The Basic credential whole, so its encoded form (base64 of `client_id:client_secret`) goes too.
      ...Object.values(config.applications ?? {}).map((a) => a?.clientSecret && basicPair(a.clientId, a.clientSecret)),
    ],
    // What the harness writes of the run itself: a target cannot make these credentials (review 13).
    [options.seed, target.baseUrl, ...scalarsOf(config)],
  );
  const shownExchange = createExchangeBudget();
  // Which check a request comes from, through every await of that check: a check abandoned at its
  // time limit goes on running, and its later requests must not land in the next check's evidence.
  let checkNumber = 0;
  let liveCheck: CheckScope | undefined;
  // Set-up and revocation run outside any check (no scope) and are always current; so is a
  // callback that lost the check's async context (an event of an emitter made before the check),
  // and a request of another session's check (a library caller may nest runs).
  const fromLiveCheck = () => {
    const scope = checkScope.getStore();
    return scope === undefined || scope.session !== sessionMark || scope === liveCheck || scope === housekeeping;
  };
  // The harness's own requests (revocation, the start-up's questions) run in this scope: each is
  // marked by where it began, so one the grace left in flight is still housekeeping when it ends.
  const housekeeping: CheckScope = { session: sessionMark, check: -1 };
  const { tap } = options;
  const recorder = createRecorder(
    undefined,
    fromLiveCheck,
    tap && ((exchange) => tap(exchange, checkScope.getStore() === housekeeping, (text) => redactor.name(text))),
  );
  /**
   * A clean-up: revoke the tokens `flows` was handed, within its budget (REVOKE_SHARE), the
   * deadline's grace and the first signal's (STOP_REVOKE_MS): none is begun after the earliest of
   * them, and one that hangs is left (a slow revocation endpoint took a run 17 s past --deadline,
   * four tokens late; a check's 34 tokens, 67 s after it). A signal during it brings its end closer.
   */
  const revoke = async (flows: TrackedFlows) => {
    const budgetEnd = Date.now() + revokeBudgetMs(options.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS);
    const until = () => Math.min(budgetEnd, graceEnd, stoppedAt === undefined ? Infinity : stoppedAt + STOP_REVOKE_MS);
    let timer: NodeJS.Timeout | undefined;
    let arm = () => undefined as void;
    revokeUntil = until;
    revoking = flows;
    try {
      await Promise.race([
        checkScope.run(housekeeping, () => flows.revokeAll(until)),
        new Promise<void>((resolve) => {
          arm = () => {
            clearTimeout(timer);
            if (Number.isFinite(until())) timer = setTimeout(resolve, Math.max(0, until() - Date.now()));
          };
          arm();
          // After onStop (added first), so the end it sets is the signal's.
          options.stop?.addEventListener('abort', arm, { once: true });
        }),
      ]);
    } finally {
      revoking = undefined;
      clearTimeout(timer);
      options.stop?.removeEventListener('abort', arm);
      unrevoked += flows.unrevoked();
    }
  };
  // Any token response, whoever asked for it, is adopted by the running check for revocation.
  let current: TrackedFlows | undefined;
  // The verdict of the check whose clean-up is under way (Session.earned).
  let earned: { check: string; result: CheckResult } | undefined;
  // A check's own requests stop once the run is interrupted; housekeeping (revocation) never does.
  let checkRunning = false;
  let runningCheck: string | undefined;
  // The core endpoints the start-up found absent (none while it is finding out): the gate below reads them.
  let absentEndpoints: CoreEndpoint[] = [];
  // Those and the endpoint families found absent, each for its reporter to judge (startUpAbsences).
  let reportedAbsent: EndpointPremise[] = [];
  // What the running check's own requests to those were answered: one served, one absent (the first of each).
  let metAtAbsent = new Map<EndpointCapability, { served?: number; absent?: number }>();
  // The endpoints whose start-up question without credentials was refused (401, 403): a check's own request settles them.
  let unsure: EndpointPremise[] = [];
  // Those a check's request found absent: what it was answered, and which check asked.
  const foundAbsent = new Map<EndpointCapability, { premise: EndpointPremise; status: number; by: string }>();
  // Applications whose authorization request the start-up saw refused, and the check that said so.
  let refusedApps: RefusedApps = {};
  const premisesSaid = new Map<string, string>();
  /** The checks the run will run (plan). */
  let planned: ReadonlySet<string> | undefined;
  // Why the running check was stopped (interrupted, or past the deadline); runCheck resets it.
  let stoppedCheck: string | undefined;
  // Endpoints discovery puts on another origin: routed there when trusted, else away (read at start-up).
  const elsewhere: Elsewhere = { routes: new Map(), away: new Map() };
  /** Where a source path's requests go when discovery routes them elsewhere, without its query. */
  const routedTo = (path: string) => elsewhere.routes.get(path)?.split('?')[0];
  /** Where the start-up asked a source path, as a reason names it (discovery may route it elsewhere). */
  const askedAt = (path: string) => shownUrl(http.baseUrl, http.urlOf(path));
  const http = createHttp(
    target,
    recorder,
    redactor,
    (request, response) => {
      // adopt takes only a 200 answer with tokens in it.
      if (current && atEndpoint(request.url, TOKEN_PATH)) current.adopt(response, current.roleOf(request));
      if (checkRunning && reportedAbsent.length && fromLiveCheck()) noteAtAbsent(request, response);
      if (checkRunning && unsure.length && fromLiveCheck()) settleUnsure(request, response);
    },
    (raw) => {
      if (!fromLiveCheck()) throw new HarnessError(PAST_ITS_END);
      skipIfAway(raw.url);
      if (checkRunning && absentEndpoints.length) skipIfAbsent(absentEndpoint(raw.url));
      if (checkRunning && foundAbsent.size) skipIfFoundAbsent(raw.url);
      if (checkRunning) skipIfRefusedApp(raw);
      skipIfInterrupted();
      if (checkRunning && pastDeadline()) {
        stoppedCheck = DEADLINE_REACHED;
        throw new CheckSkipped(DEADLINE_REACHED);
      }
      // Outside a check too: past --deadline, the start-up asks nothing more (revocation has its grace).
      if (!checkRunning && !revoking && pastDeadline())
        throw new NoAnswer(`${DEADLINE_REACHED}; this request was not sent`);
      // A silent target is asked nothing more by the checks (revocation still tries, each try
      // bounded by --timeout); one that stopped serving, nothing at all: each refused revocation
      // would wait out its retries for nothing.
      if (gone?.reason === 'silent' && checkRunning) throw new NoAnswer(gone.message);
      if (gone && gone.reason !== 'silent' && gone.reason !== 'deadline')
        throw new RateLimited(`${gone.message}; this request was not sent`);
      return silentAt.size ? skipIfSilent(raw) : undefined;
    },
    elsewhere.routes,
  );
  /** Ctrl-C: the running check stops at its next request or page visit, skipped as interrupted. */
  const skipIfInterrupted = () => {
    if (!checkRunning || !options.stopRequested?.()) return;
    stoppedCheck = INTERRUPTED;
    throw new CheckSkipped(INTERRUPTED);
  };
  /** The request gate's rule: a check other than its reporter that reaches for an absent endpoint is skipped. */
  const skipIfAbsent = (absent: CoreEndpoint | undefined) => {
    if (checkRunning && absent && absent.reporter !== runningCheck)
      throw new CheckSkipped(whyCapabilityMissing(absent.capability, reportsIt(planned), askedAt, caps.absentAnswers));
  };
  /** A reporter's own request to an endpoint the start-up found absent: what it was answered (startUpAbsences reads it). */
  const noteAtAbsent = (request: RawRequest, response: HttpResponse) => {
    const e = reportedAbsent.find((a) => a.method === request.method && atEndpoint(request.url, a.path));
    if (!e) return;
    const met = metAtAbsent.get(e.capability) ?? {};
    if (absentBy(response, e.method, e.jsonOnly)) met.absent ??= response.status;
    else met.served ??= response.status;
    metAtAbsent.set(e.capability, met);
  };
  /**
   * A check's request to an endpoint that refused the start-up's question without credentials
   * (unsure): an answer other than a refusal settles it there; one that says it is absent (a
   * gateway that asks for sign-in before routing, then the application's 404) settles it absent,
   * as if the start-up had found it so: its capability goes (the checks that need it are skipped,
   * those that can do without it do), every later request there from a check but its reporter is
   * skipped, and so is this check unless it is the reporter, whose own answer fails its rule, or
   * a token oracle, which lets the other oracles judge (FoundAbsent).
   */
  const settleUnsure = (request: RawRequest, response: HttpResponse) => {
    const e = unsure.find((a) => a.method === request.method && atEndpoint(request.url, a.path));
    if (!e) return;
    const absent = absentBy(response, e.method, e.jsonOnly);
    if (!absent && (response.status === 401 || response.status === 403)) return;
    unsure = unsure.filter((u) => u !== e);
    if (!absent) return;
    foundAbsent.set(e.capability, { premise: e, status: response.status, by: runningCheck ?? '' });
    caps[e.capability] = false;
    skipIfFoundAbsent(request.url);
  };
  /** Why a check is skipped that needs an endpoint a check found absent (settleUnsure). */
  const whyFoundAbsent = (c: EndpointCapability) => {
    const { premise: e, status, by } = foundAbsent.get(c)!;
    return `the target has no ${e.name}: ${e.method} ${askedAt(e.path)} answered ${caps.unsureAnswers?.[c]} without credentials at start-up and ${status} with them to ${by} ${reportsIt(planned)(e.reporter, e.rule)}`;
  };
  /** The request gate's rule for those: a check other than its reporter that reaches for one is skipped. */
  const skipIfFoundAbsent = (url: string) => {
    for (const [c, { premise }] of foundAbsent)
      if (checkRunning && premise.reporter !== runningCheck && atEndpoint(url, premise.path))
        throw new FoundAbsent(whyFoundAbsent(c), premise.path);
  };
  /**
   * The driver behind the same gate: its actions are requests too, and the browser driver's page
   * loads do not pass through the harness's Http. An authorization at an absent authorization
   * endpoint, or a device verification where the device endpoint is absent, is skipped before
   * any page loads.
   */
  /**
   * A visit's page the driver gave up (the browser's own loads, which no Http sees) is counted as
   * the HTTP target's give-ups are (a spent quota stops the run once, not each check that signs
   * in), and one it left unanswered as the HTTP target's silences are (said once, not waited on
   * again); a visit that ended was served. One the interruption ended (its wait cut) is the
   * interruption's, whatever it says.
   */
  const counted = async <T>(visit: Promise<T>): Promise<T> => {
    try {
      const outcome = await visit;
      served();
      return outcome;
    } catch (error) {
      skipIfInterrupted();
      if (error instanceof RateLimited && error.unseen) await refused(error.unseen);
      // Not counted toward a silent run (SILENT_LIMIT): the harness's own requests tell a dead target.
      if (error instanceof UnansweredPage) fellSilent(error.request, error);
      throw error;
    }
  };
  const gated = (driver: Driver): Driver => {
    const verification =
      (act: (userCode: string, page?: string) => Promise<void>) => async (userCode: string, page?: string) => {
        skipIfAbsent(absentEndpoints.find((e) => e.capability === 'deviceEndpoint'));
        skipIfInterrupted();
        // The browser loads the verification page itself (the other drivers through Http, or not at all).
        if (driver.kind === 'browser' && silentAt.size)
          await skipIfSilent({ method: 'GET', url: devicePageUrl(http, userCode, page) });
        return act(userCode, page);
      };
    return {
      ...driver,
      async authorize(url, decision, options) {
        skipIfAway(url);
        skipIfAbsent(absentEndpoint(url));
        if (foundAbsent.size) skipIfFoundAbsent(url);
        if (checkRunning) skipIfRefusedApp({ url });
        skipIfInterrupted();
        if (silentAt.size) await skipIfSilent({ method: 'GET', url });
        return counted(driver.authorize(url, decision, options));
      },
      approveDevice: verification((userCode, page) => counted(driver.approveDevice(userCode, page))),
      denyDevice: verification((userCode, page) => counted(driver.denyDevice(userCode, page))),
    };
  };
  const random = createRandom(options.seed);
  const basePath = new URL(target.baseUrl).pathname.replace(/(?<!\/)\/+$/, '');
  /** The path of `url` under the base URL's (undefined when it is not a URL). */
  const pathOf = (url: string) => (URL.canParse(url) ? new URL(url).pathname : undefined);
  /** An endpoint as a premise said once is keyed and named: method and path, never the query. */
  const endpointAt = (method: string, url: string) => `${method} ${pathOf(url) ?? url}`;
  /** Does `url` ask the source's endpoint at `path`: under the base URL, or where discovery routes it? */
  const atEndpoint = (url: string, path: string) =>
    pathOf(url) === basePath + path || url.split('?')[0] === routedTo(path);
  /** The core endpoint a request goes to, when the start-up found it absent (there, or where discovery routes it). */
  const absentEndpoint = (url: string) => absentEndpoints.find((e) => atEndpoint(url, e.path));
  /**
   * One cause, one blame: an endpoint absent at the base URL that discovery puts on an origin the
   * config does not trust leaves every check that reaches for it untested, its reporter too
   * (oidc.discovery reports it, once, on OIDC-DISCOVERY).
   */
  const skipIfAway = (url: string) => {
    const path = pathOf(url);
    const why =
      checkRunning && path?.startsWith(basePath) ? elsewhere.away.get(path.slice(basePath.length)) : undefined;
    if (why) throw new CheckSkipped(why);
  };

  /**
   * One cause, one blame: a request of an application the provider refused at start-up (its
   * authorization request, its client credentials: app-premise.ts) is the config's premise. The
   * first check that sends one is errored saying what to check, once; every later one is skipped.
   */
  const skipIfRefusedApp = (sent: { url: string; headers?: Headers; body?: string }) => {
    const refusal = refusalOf(sent, config, refusedApps, atEndpoint(sent.url, AUTHORIZE_PATH));
    if (!refusal) return;
    const saidBy = premisesSaid.get(refusal.key);
    if (saidBy !== undefined) throw new CheckSkipped(refusal.later(saidBy));
    premisesSaid.set(refusal.key, runningCheck ?? 'a check');
    throw new HarnessError(refusal.first);
  };

  /**
   * One cause, one blame: an endpoint (method and path, keyed as an oversized answer is) that left
   * a request unanswered within --timeout, or its answer unfinished, while the target answers
   * elsewhere (review 22). The check that met it reports it, errored (no sentence of the source
   * bounds the time to answer); it is not asked again, so each later check that reaches it is
   * skipped naming that check, without waiting out another timeout (before: 15 s a check, a run of
   * half an hour). Met outside a check, it is not asked again until the next check begins: by the
   * rest of the start-up's questions (in a row at one silent endpoint, they stopped a run), by the
   * rest of a revocation; the first check to reach it asks once more and reports it. A target silent
   * everywhere still stops the run (SILENT_LIMIT): a skip here sends nothing, and after a request
   * left unanswered it asks the front page first, which a dead target leaves unanswered too.
   */
  const silentAt = new Map<string, string>();
  const silentKey = (where: string) => `silent ${where}`;
  const fellSilent = (raw: Pick<RawRequest, 'method' | 'url'>, error: Error) => {
    const where = endpointAt(raw.method, raw.url);
    // The target's words after the request's own (`POST /oauth/token?…: no answer within 300 ms`).
    const why = error.message.slice(error.message.lastIndexOf(': ') + 2);
    silentAt.set(where, why);
    const inCheck = checkRunning && fromLiveCheck() && checkScope.getStore() !== housekeeping;
    if (!inCheck || runningCheck === undefined || premisesSaid.has(silentKey(where))) return;
    premisesSaid.set(silentKey(where), runningCheck);
    options.onSilentEndpoint?.(redactor.text(where), redactor.text(why), runningCheck);
  };
  /**
   * What no check reported (the start-up's silences, revocation's) is asked again from the next
   * check on: one missed question must not leave every token of the run unrevoked.
   */
  const forgetUnreported = () => {
    for (const where of silentAt.keys()) if (!premisesSaid.has(silentKey(where))) silentAt.delete(where);
  };
  const skipIfSilent = async (raw: Pick<RawRequest, 'method' | 'url'>) => {
    const where = endpointAt(raw.method, raw.url);
    const why = silentAt.get(where);
    if (why === undefined) return;
    const said = `${where}: ${why}`;
    if (!checkRunning) throw new NoAnswer(`${said}; not asked again`);
    const by = premisesSaid.get(silentKey(where));
    if (by === undefined) return;
    if (by === runningCheck) throw new NoAnswer(said);
    if (unanswered > 0) await askElsewhere();
    throw new CheckSkipped(`${said}; not asked again (${by} reports it, once)`);
  };
  /** The silent endpoints a check reported. */
  const silencesOf = (id: string) => [...silentAt.keys()].filter((w) => premisesSaid.get(silentKey(w)) === id);

  // Set-up exchanges are recorded like any other; each check clears the recorder before it runs.
  const control = await detectControl(http);
  const driver = gated(
    await createDriver(http, config, control, given.timeoutMs).catch((error: unknown) => {
      // A driver that needs what the deadline cut short (the control API, a sign-in) is moot too.
      if (pastDeadline() && error instanceof HarnessInputError) return cutShort(config.driver?.kind ?? 'simulator');
      throw error;
    }),
  );
  // Outside a check (the start-up's sign-in, revocation) only --deadline bounds the driver's waits,
  // and Ctrl-C ends them (as it ends the HTTP target's: RawRequest.stop).
  const runTime: CheckTime | undefined =
    options.deadline === undefined && options.stop === undefined
      ? undefined
      : { leftMs: () => (options.deadline ?? Infinity) - Date.now(), stop: options.stop };
  driver.timedBy?.(runTime);
  const setupFlows = createOAuthFlows(http, driver, config, redactor, random);
  current = setupFlows;
  let caps: Capabilities;
  try {
    const discovery = (await readMetadata(http, config.issuer)) ?? null;
    const found = endpointsElsewhere(http, discovery);
    for (const [path, url] of found.routes) elsewhere.routes.set(path, url);
    caps = await detectCapabilities({
      http,
      control,
      config,
      oauth: setupFlows,
      flags,
      passwordInForce: inForce(PASSWORD_RULE),
      discovery,
    });
    absentEndpoints = CORE_ENDPOINTS.filter((e) => !caps[e.capability] && (e.expected?.(caps) ?? true));
    reportedAbsent = [
      ...absentEndpoints,
      ...NEEDED_ENDPOINTS.filter((e) => caps.absentAnswers?.[e.capability] !== undefined),
    ];
    unsure = [...CORE_ENDPOINTS, ...NEEDED_ENDPOINTS].filter((e) => caps.unsureAnswers?.[e.capability] !== undefined);
    // On a config a user wrote (over HTTP): does the provider know its applications? Asked as
    // housekeeping, after the core probes: `diff`'s reference (embedded) asks none of it.
    if (target.kind === 'http') {
      const { clients, ...apps } = await checkScope.run(housekeeping, async () => {
        const authorize = caps.authorizeEndpoint
          ? await refusedAuthorizations(http, config, (role, params) => setupFlows.authorizeUrl(role, params))
          : {};
        const found = caps.tokenEndpoint ? await refusedClients(http, config, discovery ?? undefined) : undefined;
        return { authorize, client: found?.refused ?? {}, clients: found };
      });
      refusedApps = apps;
      // Secrets taken by HTTP Basic alone: the checks authenticate so (runner/oauth.ts), and
      // grants.token-response-fields judges AUTH-CLIENT-BODY on it, once.
      if (clients && Object.keys(clients.bodyOnly).length) caps = { ...caps, clientBodyRefused: clients.bodyOnly };
      // The device probe sent the device app's secret in the body, which the provider refuses: asked
      // again by Basic, as the device checks will ask, before its refusal is read as the grant's.
      const role = deviceRole(config);
      if (role && clients?.bodyOnly[role] !== undefined && (!caps.device || caps.deviceRefused !== undefined)) {
        const { deviceRefused: _stale, ...rest } = caps;
        const byBasic = createOAuthFlows(http, driver, config, redactor, random, caps);
        caps = { ...rest, ...(await detectDevice(byBasic, config, flags)) };
      }
    }
    // Away only where the base URL does not serve it either (one it serves is asked there).
    const absentPaths = new Set([
      ...CORE_ENDPOINTS.filter((e) => !caps[e.capability]).map((e) => e.path),
      ...(caps.userinfo ? [] : [USERINFO_PATH]),
    ]);
    for (const [path, why] of found.away) if (absentPaths.has(path)) elsewhere.away.set(path, why);
    forgetUnreported();
    await revoke(setupFlows);
  } catch (error) {
    await driver.close?.(); // no session to close it later
    throw error;
  }
  current = undefined;

  const levelOf = new Map(catalogue.map((r) => [r.id, r.level]));
  const ruleOf = new Map(catalogue.map((r) => [r.id, r]));
  /** The path of each capability that is one endpoint, for a reason of its own when it is away. */
  const pathOfCapability: Partial<Record<Capability, string>> = {
    ...Object.fromEntries(CORE_ENDPOINTS.map((e) => [e.capability, e.path])),
    device: AUTHORIZE_DEVICE_PATH,
    userinfo: USERINFO_PATH,
  };
  /** Which check said the REST API's start-up trouble, where its reporter does not run (premisesSaid's key). */
  const REST_TROUBLE = 'restApi';
  const restTroubleSaidBy = () => premisesSaid.get(REST_TROUBLE);
  const whyMissing = (c: Capability) =>
    elsewhere.away.get(pathOfCapability[c] ?? '') ??
    (foundAbsent.has(c as EndpointCapability) ? whyFoundAbsent(c as EndpointCapability) : undefined) ??
    (c === 'clock' && caps.clock
      ? driverCannotMoveClock(driver.kind)
      : c !== 'restApi'
        ? whyCapabilityMissing(c, reportsIt(planned), askedAt, caps.absentAnswers)
        : caps.restApiDown !== undefined
          ? restApiDown(caps.restApiDown, restTroubleSaidBy())
          : caps.restPatRefused !== undefined
            ? restPatRefused(caps.restPatRefused, restTroubleSaidBy())
            : whyCapabilityMissing(c, reportsIt(planned), askedAt, caps.absentAnswers));
  /**
   * One cause, said once: the REST API unreachable, or refusing the configured token, is what its
   * reporter says; in a run without it (`--suite scopes`), the first check that needs the REST API
   * says it as errored (the config's or the target's trouble, exit 2), so a refused token is never
   * a run that passes with everything skipped.
   */
  const restTroubleUnsaid = (check: Check) => {
    const trouble = restStartupTrouble(caps);
    if (!trouble || !planned || planned.has(REST_PREMISE_REPORTER) || restTroubleSaidBy()) return undefined;
    if (!check.needs?.includes('restApi')) return undefined;
    premisesSaid.set(REST_TROUBLE, check.id);
    return trouble;
  };
  const gate = (check: Check): string | null => {
    if (!check.rules.some(inForce)) {
      // Each rule here is out of force, so each has a reason.
      const reasons = check.rules.map((id) => whyNotInForce(ruleOf.get(id)!, release, offering, config.features ?? {}));
      return `its rules are not in force: ${[...new Set(reasons)].join('; ')}`;
    }
    // The clock is this run's when the driver in use can move it (the form driver cannot).
    const missing = (check.needs ?? []).filter((c) => !(c === 'clock' ? clockMoves({ caps, driver }) : caps[c]));
    if (missing.length) return `needs ${missing.join(', ')}: ${missing.map(whyMissing).join('; ')}`;
    // One cause, one blame: a grant refused outright is its reporter's failure alone.
    for (const premise of REFUSED_PREMISES) {
      const refused = premise.refused(caps);
      if (refused && check.needs?.includes(premise.need) && check.id !== premise.reporter)
        return `${premise.said(refused)} ${reportsIt(planned)(premise.reporter, premise.rule)}`;
    }
    if (check.slow && !clockMoves({ caps, driver }) && !options.slow)
      return 'waits in real time on this target; run with --slow';
    return null;
  };
  /**
   * The rules a failure broke: those it names (known and in force), else all the check proves.
   * A named rule may lie outside the check's own, as when setting up a revocation check finds the
   * token response itself wrong: the report then blames the sentence really broken. A named id
   * that is no rule at all is the check's bug: the run stops rather than blame all its rules.
   */
  const brokenRules = (check: Check, failure: CheckFailure): string[] => {
    const unknown = failure.rules?.filter((id) => !levelOf.has(id)) ?? [];
    if (unknown.length)
      throw new HarnessError(
        `check ${check.id} failed naming rule${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}, not in the rule catalogue (spec/rules.yaml): fix the check`,
      );
    const named = failure.rules?.filter((id) => inForce(id));
    return named?.length ? named : check.rules.filter(inForce);
  };
  /** The check's rules that assertions named; one naming none speaks for the check's rule when it has one. */
  const seenToHold = (check: Check, named: ReadonlySet<string>, unnamed: boolean): string[] =>
    check.rules.filter((id) => named.has(id) || (unnamed && check.rules.length === 1));
  /** A failure counts as a warning when every rule it broke is only `should` or `info`. */
  const failedStatus = (broken: string[]): CheckStatus => {
    const levels = broken.map((id) => levelOf.get(id));
    return levels.length && levels.every((l) => l === 'should' || l === 'info') ? 'warned' : 'failed';
  };

  /** One result for every failure a check recorded: each names the rules it broke. */
  const failed = (
    check: Check,
    failures: CheckFailure[],
    /** Failures beyond MAX_FAILURES the check's soft assertions counted and did not keep. */
    unshown: number,
    done: (status: CheckStatus, fields: Partial<CheckResult>) => CheckResult,
    evidenceFields: () => Partial<CheckResult>,
    /** Its assertions, of which those that held prove the check's other rules when it broke only leaves. */
    evidence?: Evidence,
  ): CheckResult => {
    const each = failures.map((f) => ({
      message: redactor.text(describeFailure(f, redactor)),
      broken: brokenRules(check, f),
    }));
    const broken = [...new Set(each.flatMap((f) => f.broken))];
    const message = failureMessage(each, unshown);
    const counterexample = failures.find((f) => f.counterexample)?.counterexample;
    // A broken detail does not hide what the rest of the check saw hold, when it is a leaf (rules.yaml
    // `leaf`: a property no other assertion reads). Any other broken rule may be the premise the rest
    // held on (a target failing everything "refuses" every bad request): those stay untested (69d99bf).
    const leavesOnly = broken.every((id) => ruleOf.get(id)?.leaf);
    const proved =
      leavesOnly && evidence
        ? seenToHold(check, evidence.held, evidence.heldUnnamed).filter((id) => !broken.includes(id))
        : [];
    return done(failedStatus(broken), {
      broken,
      ...(proved.length ? { proved } : {}),
      message,
      ...(each.length > 1 ? { failures: each } : {}),
      ...(counterexample ? { counterexample: redactor.text(counterexample) } : {}),
      ...evidenceFields(),
    });
  };
  /**
   * One cause, one blame, said once (review 24): an endpoint the start-up found absent is its
   * reporter's failure on the start-up's answer, whatever the reporter's own requests met, since
   * every other check that needs it was skipped on that answer. A target that answers the
   * start-up 404 and this check 200 answers one endpoint two ways (one refusing only the harness's
   * probes turned a FAIL into a PASS, each reporter passing on its own requests): both answers
   * are named, and the rule is not passed on the second. A reporter's own 404 (a target that truly
   * lacks the endpoint) broke the rule already: its result stands as it was. The same for the
   * endpoint families a check needs (NEEDED_ENDPOINTS) and a grant declared yet refused at start-up
   * (REFUSED_PREMISES).
   */
  const startUpAbsences = (check: Check, result: CheckResult): { message: string; broken: string[] }[] => {
    const unsaid = (reporter: string, rule: RuleId) =>
      reporter === check.id && inForce(rule) && !result.broken?.includes(rule);
    // One discovery puts on an origin the config does not trust is not absent but elsewhere, a premise
    // oidc.discovery reports once (OIDC-DISCOVERY): its 404 at the source path blames nothing.
    const absent = reportedAbsent
      .filter((e) => unsaid(e.reporter, e.rule) && !elsewhere.away.has(e.path))
      .map((e) => {
        const startUp = askedAtStartUp(e, askedAt, caps.absentAnswers?.[e.capability]);
        const met = metAtAbsent.get(e.capability);
        if (met?.served === undefined)
          return {
            message: `the target has no ${e.name}: ${startUp}${met?.absent === undefined ? '' : `, and ${met.absent} to this check`}`,
            broken: [e.rule],
          };
        const own = `this check's ${e.method} ${askedAt(e.path)} answered ${met.served}`;
        // Asked without credentials at start-up and served to a check's token: a provider may hide
        // an endpoint from anonymous callers (as the REST API's start-up allows for its own), so no
        // rule is blamed; but the checks needing it were skipped on the first answer: no pass either.
        return e.anonymous?.(caps)
          ? {
              message: `the target answers its ${e.name} as absent to the start-up's question without credentials (${startUp}) and ${own}: the checks that need it were skipped on the first answer, so this one passes nothing; if it hides itself from anonymous callers, no rule says it may not`,
              broken: [],
            }
          : {
              message: `the target answers its ${e.name} two ways: ${startUp}, as if there were none, and ${own}: the checks that need it were skipped on the start-up's answer, and this one passes nothing on the other`,
              broken: [e.rule],
            };
      });
    // A grant declared available yet refused at start-up is the same premise: a check that passed met it served.
    const refused = REFUSED_PREMISES.flatMap((p) => {
      const refusal = p.refused(caps);
      if (refusal === undefined || !unsaid(p.reporter, p.rule)) return [];
      const served =
        result.status === 'passed' ? "; this check's own requests were served: the target answers it two ways" : '';
      return [
        {
          message: `${p.said(refusal)}, and the checks that need it were skipped on that refusal${served}`,
          broken: [p.rule],
        },
      ];
    });
    return [...absent, ...refused].map((a) => ({ ...a, message: redactor.text(a.message) }));
  };
  /**
   * The check's result with the start-up's premises it reports (startUpAbsences) failed beside what
   * it met itself; a check that went no further (skipped, errored) says why, its other rules untested.
   * `unshown`: its failures counted and not kept; `shown`: its exchanges and reproduce command.
   */
  const withStartUpAbsences = (
    check: Check,
    result: CheckResult,
    unshown: number,
    shown: () => Partial<CheckResult>,
  ): CheckResult => {
    const absences = startUpAbsences(check, result);
    if (!absences.length) return result;
    const judged = result.status === 'failed' || result.status === 'warned';
    // Only a premise no rule judges (an endpoint hidden from anonymous callers): no pass, errored.
    if (absences.every((a) => !a.broken.length)) {
      const said = absences.map((a) => a.message).join('; ');
      if (judged) return { ...result, message: `${result.message ?? ''}\n${said}` };
      const before = result.message && result.status !== 'passed' ? `\n${result.message}` : '';
      return {
        ...result,
        status: 'errored',
        message: `the harness could not complete this check: ${said}${before}`,
        ...shown(),
      };
    }
    const prior = judged ? (result.failures ?? [{ message: result.message ?? '', broken: result.broken ?? [] }]) : [];
    const rest =
      !judged && result.status !== 'passed' && result.message
        ? `; the rest of this check is untested: ${result.message}`
        : '';
    const each = [...prior, ...absences.map((a) => ({ ...a, message: a.message + rest }))];
    const broken = [...new Set(each.flatMap((f) => f.broken))];
    const { id, suite, title, rules, durationMs, counterexample } = result;
    return {
      id,
      suite,
      title,
      rules,
      durationMs,
      status: failedStatus(broken),
      broken,
      message: failureMessage(each, result.failures ? unshown : 0),
      ...(each.length > 1 ? { failures: each } : {}),
      ...(counterexample ? { counterexample } : {}),
      ...shown(),
    };
  };
  /**
   * One cause, one blame: an answer past the harness's limits (--max-body, the header bound, JSON
   * nested past MAX_JSON_DEPTH) is judged once per endpoint (and grant, at the token endpoint). No
   * sentence of the source bounds an answer, so a rule is failed only by the check about that
   * endpoint's answer itself: the endpoint's own rule (CORE_ENDPOINTS, NEEDED_ENDPOINTS; the token
   * endpoint's is the code exchange's) among the check's rules, once, wherever that check runs. The
   * first other check that meets it is errored, no rule blamed (the answer it needed was not read),
   * and every later one is untested, saying who reported it (before, a refresh or userinfo answer
   * failed GRANT-CODE-PARAMS or every rule of whichever check met it first, a revocation check's
   * among them; a userinfo answer too deep, 24 must rules, review 28).
   */
  const oversizedAt = (e: OversizedAnswer) => endpointAt(e.method, e.url);
  const oversizedKey = (e: OversizedAnswer) => `oversized ${oversizedAt(e)}${e.grant ? ` ${e.grant}` : ''}`;
  /** The rule of the endpoint `error` is at, when `check` is about that answer. */
  const ownRuleOf = (check: Check, error: OversizedAnswer) => {
    const owner = [...CORE_ENDPOINTS, ...NEEDED_ENDPOINTS].find(
      (e) => e.method === error.method && atEndpoint(error.url, e.path),
    );
    const own =
      owner &&
      check.rules.includes(owner.rule) &&
      (owner.capability !== 'tokenEndpoint' || error.grant === undefined || error.grant === 'authorization_code');
    return own ? owner.rule : undefined;
  };
  const oversized = (
    check: Check,
    error: OversizedAnswer,
    done: (status: CheckStatus, fields: Partial<CheckResult>) => CheckResult,
    errored: (message: string) => CheckResult,
    evidenceFields: () => Partial<CheckResult>,
  ): CheckResult => {
    const where = oversizedAt(error);
    const key = oversizedKey(error);
    const saidBy = premisesSaid.get(key);
    const rule = ownRuleOf(check, error);
    const message = `${error.message}; the later checks that meet it at ${where} are untested`;
    // Blamed once, by the check about the answer, even after another check erred on it.
    if (rule !== undefined && !premisesSaid.has(`${key} blamed`)) {
      premisesSaid.set(`${key} blamed`, check.id);
      if (saidBy === undefined) premisesSaid.set(key, check.id);
      return failed(check, [new CheckFailure(message, { rules: [rule] })], 0, done, evidenceFields);
    }
    if (saidBy !== undefined)
      return done('skipped', {
        message: redactor.text(
          oneLine(`${error.message}; the answer the check needed is not read (${saidBy} reports it, once)`),
        ),
      });
    premisesSaid.set(key, check.id);
    return errored(`the answer was too large to read, so nothing was seen: ${message}`);
  };
  /**
   * The rules a pass proves: those its assertions named. An assertion naming none speaks for the
   * check's rule only when the check has one; among several it would claim each of them unseen.
   */
  const provedRules = (check: Check, evidence: Evidence): string[] =>
    seenToHold(check, evidence.rules, evidence.unnamed);

  const session: Session = {
    target,
    config,
    release,
    offering,
    caps,
    http,
    driver,
    redactor,
    catalogue,
    seed: options.seed,
    inForce,
    plan(ids) {
      planned = new Set(ids);
    },
    async runCheck(check) {
      const started = Date.now();
      const base = { id: check.id, suite: check.suite, title: check.title, rules: check.rules };
      const reason = gate(check);
      const unsaid = reason?.startsWith('needs ') && !caps.restApi ? restTroubleUnsaid(check) : undefined;
      if (unsaid)
        return {
          ...base,
          status: 'errored',
          durationMs: 0,
          message: `the harness could not complete this check: ${unsaid}`,
        };
      // A reporter the gate stops (its rules out of force, a capability it needs missing: oidc.userinfo
      // without an openid application) judges nothing, the start-up's answer neither: as before.
      if (reason) return { ...base, status: 'skipped', durationMs: 0, message: reason };
      recorder.clear();
      forgetUnreported();
      metAtAbsent = new Map();
      const oauth: TrackedFlows = createOAuthFlows(http, driver, config, redactor, createRandom(options.seed), caps);
      current = oauth;
      const { judged, deadline } = options;
      // Only the live check's: one abandoned at its time limit may still be asserting.
      const evidence = createEvidence(
        judged && ((rules, held) => fromLiveCheck() && judged(rules?.length ? rules : check.rules, held)),
      );
      // The real-time waits of this check (--slow) not yet added to its time limit; never past --deadline.
      let grantedMs = 0;
      // What is left of a grant cut at the deadline stays: a timer that fired a millisecond early (libuv's
      // loop time) moves on to the deadline itself, so the check ends as past it.
      const granted = () => {
        const left = options.deadline === undefined ? Infinity : options.deadline - Date.now();
        const more = Math.max(0, Math.min(grantedMs, left));
        grantedMs -= more;
        return more;
      };
      // Every grant asked, cut or not: the check's limit as far as the driver can tell (checkTime).
      let askedMs = 0;
      const waitingFor = (ms: number) => {
        const grant = Math.max(0, Math.min(ms, REAL_WAIT_GRANT_MS));
        grantedMs += grant;
        askedMs += grant;
      };
      const t = createCheckContext({
        ...session,
        // Read when said: the plan is known before any check runs.
        reportedBy: (check, rule) => reportsIt(planned)(check, rule),
        oauth,
        recorder,
        numRuns: options.numRuns,
        slow: options.slow ?? false,
        waitingFor,
        ...(deadline === undefined ? {} : { deadlineLeftMs: () => deadline - Date.now() }),
        evidence,
      });
      // Results live to the end of the run: copied through JSON (what a report is anyway), so no string in
      // one is a slice that keeps a megabyte answer alive (V8 substrings share their parent's memory).
      const done = (status: CheckStatus, fields: Partial<CheckResult> = {}): CheckResult =>
        JSON.parse(JSON.stringify({ ...base, status, durationMs: Date.now() - started, ...fields })) as CheckResult;
      /** The evidence a reader needs for anything but a pass: exchanges and the reproduce command. */
      const evidenceFields = () => ({
        exchange: recorder.exchanges.map((e) => shownExchange(redactor.exchange(e))),
        // The rerun command repeats the target's URL and config path: a password or token in them is masked too.
        reproduce: redactor.text(reproduceCommand(check.id, options.seed, options.reproduceArgs)),
      });
      // One line, as a failure is (oneLine): the message may quote the target (a page, an answer).
      const errored = (message: string) =>
        done('errored', { message: redactor.text(oneLine(message)), ...evidenceFields() });
      let result: CheckResult;
      checkRunning = true;
      runningCheck = check.id;
      stoppedCheck = undefined;
      // Stryker disable next-line UpdateOperator: counting down tells the checks apart just as well
      const scope: CheckScope = { session: sessionMark, check: ++checkNumber };
      liveCheck = scope;
      /** The result as the run reports it: what the check met beside its own verdict. */
      const settle = (own: CheckResult): CheckResult => {
        // Whatever the check made of its refused requests, an interrupted check proved nothing.
        if (stoppedCheck)
          return { ...base, status: 'skipped', durationMs: Date.now() - started, message: stoppedCheck };
        let result = withStartUpAbsences(check, own, evidence.unshown, evidenceFields);
        // A silence the check met and went on past (read as no answer) is still its to report: the
        // later checks that need the endpoint are skipped on its word, so it is no pass (nor a skip
        // or a warning, which a run may pass with); a failure stands, and says it beside.
        const silences = silencesOf(check.id)
          .filter((w) => !result.message?.includes(laterUntested(w)))
          .map((w) => `${w}: ${silentAt.get(w)}; ${laterUntested(w)}`);
        const unreported = silences.length > 0 && result.status !== 'failed' && result.status !== 'errored';
        if (unreported) {
          const said = `the target did not answer, so nothing was seen: ${silences.join('; ')}`;
          const before = result.message ? `\n${result.message}` : '';
          result = done('errored', { message: redactor.text(said) + before, ...evidenceFields() });
        }
        // What the check said beside its verdict (t.note) follows the verdict's own message.
        const beside = [...(evidence.notes ?? []), ...(unreported ? [] : silences)];
        if (!beside.length) return result;
        const notes = redactor.text(beside.join('\n'));
        return { ...result, message: result.message ? `${result.message}\n${notes}` : notes };
      };
      let verdict: CheckResult;
      try {
        try {
          const limit = driver.kind === 'manual' ? Infinity : (options.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS);
          // The deadline bounds the running check too (at least 1 ms, so an already passed one still stops it).
          const left = options.deadline === undefined ? Infinity : Math.max(1, options.deadline - Date.now());
          const timeoutMs = Math.min(limit, left);
          // The driver's real-time waits (a 429 page) count against the same limit, as the HTTP
          // target's do (they never move it on), never past --deadline.
          const dueAt = performance.now() + timeoutMs;
          driver.timedBy?.({
            leftMs: () =>
              Math.min(
                dueAt + askedMs - performance.now(),
                options.deadline === undefined ? Infinity : options.deadline - Date.now(),
              ),
            stop: options.stop,
          });
          await withTimeout(
            checkScope.run(scope, () => check.run(t)),
            Number.isFinite(timeoutMs) ? timeoutMs : 0,
            `check ${check.id}`,
            () => given.rateLimitHold?.(),
            granted,
          );
          if (evidence.failures.length)
            result = failed(check, evidence.failures, evidence.unshown, done, evidenceFields, evidence);
          else if (recorder.count === 0)
            result = errored('the check made no request to the target: nothing was seen, so nothing is passed');
          else if (evidence.assertions === 0)
            result = errored('the check asserted nothing about the answers it got: nothing is passed');
          else {
            const proved = provedRules(check, evidence);
            result = !proved.length
              ? errored(
                  `no assertion of the check named one of its rules (${check.rules.join(', ')}): nothing is passed`,
                )
              : done('passed', proved.length === check.rules.length ? {} : { proved });
          }
        } catch (error) {
          if (error instanceof OversizedAnswer && evidence.failures.length) {
            // The failures already recorded stand alone; the answer is still said once, for the later checks.
            if (!premisesSaid.has(oversizedKey(error))) premisesSaid.set(oversizedKey(error), check.id);
            result = failed(check, evidence.failures, evidence.unshown, done, evidenceFields, evidence);
          } else if (error instanceof OversizedAnswer) {
            result = oversized(check, error, done, errored, evidenceFields);
          } else if (error instanceof CheckFailure || evidence.failures.length) {
            // Failures already recorded by soft assertions stand, whatever stopped the check after them.
            const all = error instanceof CheckFailure ? [...evidence.failures, error] : evidence.failures;
            result = failed(check, all, evidence.unshown, done, evidenceFields, evidence);
          } else if (error instanceof CheckSkipped) {
            result = done('skipped', { message: redactor.text(oneLine(error.message)) });
          } else if (pastDeadline() || error instanceof DeadlineCut) {
            stoppedCheck = DEADLINE_REACHED;
            result = done('skipped', { message: DEADLINE_REACHED });
          } else if (error instanceof RateLimited) {
            result = errored(error.message);
          } else if (error instanceof NoAnswer) {
            const met = silencesOf(check.id).find((w) => error.message.startsWith(`${w}:`));
            const later = met === undefined ? '' : `; ${laterUntested(met)}`;
            result = errored(`the target did not answer, so nothing was seen: ${error.message}${later}`);
          } else if (error instanceof BrokenExchange) {
            result = errored(`the exchange with the target broke off, so nothing was seen: ${error.message}`);
          } else if (error instanceof HarnessError) {
            result = errored(`the harness could not complete this check: ${error.message}`);
          } else {
            const stack = (error as Error)?.stack?.split('\n').slice(0, 2).join(' ') ?? String(error);
            result = errored(`the check crashed (a defect of the harness, not a verdict on the target): ${stack}`);
          }
        } finally {
          checkRunning = false;
          liveCheck = undefined;
          driver.timedBy?.(runTime);
        }
        verdict = settle(result);
        // Earned before the clean-up: a run that leaves during it (the grace after a signal ran out)
        // keeps it (review 29: a pass became "skipped, interrupted" while its tokens were revoked).
        earned = { check: check.id, result: verdict };
      } finally {
        // The verdict already holds its exchanges: revocation's own are never shown.
        await revoke(oauth);
        current = undefined;
        earned = undefined;
      }
      return verdict;
    },
    earned: (id) => (earned?.check === id ? earned.result : undefined),
    // With those of a clean-up still under way, and of the check (or start-up) still running, whose
    // clean-up never began: a run that leaves then (abandon, a second signal) counts them too (review 31).
    unrevoked: () =>
      unrevoked + (revoking?.unrevoked() ?? 0) + (current && current !== revoking ? current.unrevoked() : 0),
    rateLimited: () => rateLimited,
    slowAnswers: () => given.slowAnswers?.().total ?? 0,
    stopReason() {
      if (gone) return gone;
      if (pastDeadline()) return { reason: 'deadline', message: DEADLINE_REACHED };
      return undefined;
    },
    async close() {
      options.stop?.removeEventListener('abort', onStop);
      try {
        await driver.close?.();
      } finally {
        await target.close();
      }
    },
  };
  return session;
}

// Written where the proxy's report can use it too (suites/report/cut.ts); the run's callers read it here.
export { describeFailure };
