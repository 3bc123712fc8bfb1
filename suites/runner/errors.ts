import type { RuleId } from '../../spec/index.js';
import { boundedDetails } from '../shared/bounded.js';
import { TransportError } from '../target/types.js';

/** Typed outcomes a check throws: a failure with a human sentence, or a skip with its reason. */
export class CheckFailure extends Error {
  override name = 'CheckFailure';
  /** The details given, bounded (suites/shared/bounded.ts): they may hold what the target sent. */
  readonly details?: Record<string, unknown>;

  constructor(
    message: string,
    details?: Record<string, unknown>,
    /** fast-check counterexample after shrinking, when a property failed. */
    readonly counterexample?: string,
  ) {
    super(message);
    if (details) this.details = boundedDetails(details);
  }

  /**
   * The rules this failure names as broken (details.rules), if it names any. Typed as rule ids;
   * the runner still checks them against its catalogue, since details may come from a cast.
   */
  get rules(): RuleId[] | undefined {
    const rules = this.details?.rules;
    return Array.isArray(rules) && rules.every((r) => typeof r === 'string') && rules.length
      ? (rules as RuleId[])
      : undefined;
  }
}

/**
 * An answer past the harness's limits (--max-body, the header bound, JSON nested past
 * MAX_JSON_DEPTH): one cause, said once per endpoint (the method and path of `url`, and `grant` at
 * the token endpoint), failed only by the check about the endpoint's own answer, else errored by
 * the first check that meets it (session.ts oversized); the later checks that meet it are untested.
 */
export class OversizedAnswer extends CheckFailure {
  override name = 'OversizedAnswer';
  constructor(
    message: string,
    readonly method: string,
    readonly url: string,
    /** The grant_type of a form the request sent (the token endpoint answers each grant its own way). */
    readonly grant?: string,
  ) {
    super(message);
  }
}

export class CheckSkipped extends Error {
  override name = 'CheckSkipped';
}

/**
 * A check's own request settled an endpoint the start-up was unsure of (a gateway's 401, a
 * redirect) as absent (runner/session.ts, settleUnsure), and every later request there is skipped
 * so. A token oracle that asked it (shared/oauth.ts) reads it as no verdict and lets the others
 * judge the token; any other check is skipped, untested.
 */
export class FoundAbsent extends CheckSkipped {
  override name = 'FoundAbsent';
  constructor(
    message: string,
    /** The source's path of that endpoint (`/oauth/userinfo`). */
    readonly path: string,
  ) {
    super(message);
  }
}

/**
 * The answer to one case says nothing either way (a redirect off the target answering a request
 * the check malformed: its error page or its sign-in going on there). t.property discards the case,
 * as fc.pre would, and the check is skipped with this reason only if no case was decided; a check
 * of several requests goes on with the next. Thrown anywhere else, it skips the check.
 */
export class NoVerdict extends CheckSkipped {
  override name = 'NoVerdict';
}

/**
 * The harness could not do its part: the driver cannot play a page, the provider skipped the step
 * the check needs (a consent it remembered), an oracle endpoint the check leans on is missing. The
 * check is `errored`, never failed: nothing was shown about the provider's conformance. Thrown by
 * the runner itself (a check naming a rule that does not exist), it stops the run: a harness bug.
 */
export class HarnessError extends Error {
  override name = 'HarnessError';
}

/**
 * The target left a request unanswered (`--timeout`), or the run stopped asking it. Not evidence
 * about any rule: the check is errored ("the target did not answer"), and a run of them in a row
 * stops the run (suites/runner/session.ts, SILENT_LIMIT).
 */
export class NoAnswer extends HarnessError {
  override name = 'NoAnswer';
}

/**
 * A page the browser driver loads, left unanswered within --timeout (its main-frame request, which
 * no Http sends): the session takes its endpoint for silent as it does one of its own requests'.
 */
export class UnansweredPage extends NoAnswer {
  override name = 'UnansweredPage';
  constructor(
    message: string,
    readonly request: { method: string; url: string },
  ) {
    super(message);
  }
}

/**
 * The exchange broke off: the target's answer is no HTTP the harness can read (a framing error
 * such as Content-Length beside Transfer-Encoding, a broken chunk, a bad status line), or its
 * connection was refused or reset mid-run. Nothing was seen of the rule the request was for, so
 * the check is errored with that one line, never failed on every rule it holds (one cause, one
 * blame); the report's verdict is then an error, and the line names what the target did.
 */
export class BrokenExchange extends HarnessError {
  override name = 'BrokenExchange';
}

/**
 * A request the run's --deadline cut short (the target's TransportError coded 'deadline'): no
 * answer and no absence of the target's, so a helper that reads its request's errors as "no
 * answer" lets this one through (noAnswer), and the check stops as past the deadline.
 */
export class DeadlineCut extends BrokenExchange {
  override name = 'DeadlineCut';
}

/**
 * A catch that reads any error of its request as no answer, but never a stop of the check: one
 * cut by --deadline (as the Http throws it, or as the target does), any skip (the session's own at
 * its gate once past --deadline or interrupted, session.ts), and a target refusing to serve
 * (RateLimited) are thrown on, never read as an answer (review 18: the deadline's skip was).
 */
export function noAnswer(error: unknown): undefined {
  if (
    error instanceof DeadlineCut ||
    error instanceof CheckSkipped ||
    error instanceof RateLimited ||
    (error instanceof TransportError && error.code === 'deadline')
  )
    throw error;
  return undefined;
}

/**
 * The target went on refusing to serve a request now (429, or GitHub's 403 with
 * x-ratelimit-remaining: 0) after the HTTP target waited and retried (suites/target/http.ts): a
 * missing premise, like a silent target, not an answer any rule judges. The check is errored with
 * the one line the target wrote (what was refused, how often retried, how long waited), and a run
 * of them in a row stops the run (suites/runner/session.ts, RATE_LIMITED_LIMIT).
 */
export class RateLimited extends HarnessError {
  override name = 'RateLimited';
  constructor(
    message: string,
    /** The status of the last refusal (429, 403, or 503 with Retry-After), when the target gave one. */
    readonly status?: number,
    /**
     * The give-up itself, where the session's target never saw it (a page the browser driver
     * loads): the session counts it toward RATE_LIMITED_LIMIT as it counts the HTTP target's.
     */
    readonly unseen?: TransportError,
  ) {
    super(message);
  }
}
