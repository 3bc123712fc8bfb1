import type { TargetConfig } from '../types.js';

/** A request as the harness writes it: the URL string goes on the wire untouched. */
export interface RawRequest {
  method: string;
  /** Absolute URL, raw: percent-encoding and dot segments exactly as written. */
  url: string;
  headers: Headers;
  body?: string;
  /**
   * The latest instant (epoch ms) its answer is waited for, in place of the run's --deadline the
   * target cuts every request at: revocation's (session.ts revoke), its budget or the grace past
   * --deadline (REVOKE_GRACE_MS) or a signal (STOP_REVOKE_MS), whichever ends first.
   */
  until?: number;
  /**
   * Ctrl-C for a check's request (SessionOptions.stop): it ends the request's wait for the target's
   * rate limit at once, and the request is then not sent. One already sent gets its answer.
   */
  stop?: AbortSignal;
}

/**
 * What the harness reads of an answer. A Fetch Response is one (the HTTP target's); the embedded
 * target answers a lighter one, with no stream to read the body through.
 */
export interface TargetResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The whole body, decoded as UTF-8 (a leading byte order mark dropped, as Fetch's text() does). */
  text(): Promise<string>;
}

/**
 * The target did not answer in time or refused the connection, or (`deadline`) the run's
 * --deadline came before its answer did (the target's silence is not what that says), or (`untrusted`) its TLS
 * certificate is not trusted (tls.ts); or (`rate-limited`) it went on
 * refusing to serve the request now, past the retries (http.ts); or (`unserved`) a bot wall or a
 * gateway's error page answered instead of the provider (unserved.ts): no answer to what it asked.
 */
export class TransportError extends Error {
  override name = 'TransportError';
  constructor(
    message: string,
    readonly code:
      'timeout' | 'unreachable' | 'untrusted' | 'protocol' | 'too-large' | 'rate-limited' | 'unserved' | 'deadline',
    /** A rate-limited request: in how many seconds the server said it serves again, when it said. */
    readonly resetIn?: number,
    /** A rate-limited or unserved request: the status of the last refusal (429, 403, or 503 with Retry-After; a wall's, a gateway's). */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** What a user can do about a target's rate limit (the flag that exists for it). */
export const LOWER_THE_RATE = 'lower --rate, or run again once its limit resets';

/** The one line a run stops with when the target's first answers fail at the transport. */
export function transportStop(baseUrl: string, error: TransportError): string {
  // An answer past a limit did come: saying "does not answer" would send the reader to the network.
  const what =
    error.code === 'too-large'
      ? 'answers more than the harness reads'
      : error.code === 'rate-limited' || error.code === 'unserved'
        ? 'does not serve the harness now'
        : error.code === 'untrusted'
          ? 'is not trusted'
          : 'does not answer';
  return `target ${baseUrl} ${what}: ${error.message}`;
}

/** An answer that took at least this share of the per-request timeout is slow (Target.slowAnswers). */
export const SLOW_SHARE = 0.5;

/**
 * Where requests go: the simulator in this process, or a base URL over HTTP. Redirects are never
 * followed.
 */
export interface Target {
  readonly kind: 'embedded' | 'http';
  /** What the report names as the target. */
  readonly name: string;
  readonly baseUrl: string;
  /** The target config: loaded from a file, or asked from the simulator's control API. */
  readonly config: TargetConfig;
  /** How long a request's answer is waited for (--timeout; the HTTP target): the browser driver's page loads' too. */
  readonly timeoutMs?: number;
  send(request: RawRequest): Promise<TargetResponse>;
  /**
   * The target's rate limit holding requests now, in words (the HTTP target, while it waits one
   * out): a check that runs out of time meanwhile says so rather than "did not answer".
   */
  rateLimitHold?(): string | undefined;
  /**
   * Answers that took at least SLOW_SHARE of the per-request timeout (the HTTP target): in a row
   * now and in all, with that timeout. A target that answers every request so is never silent,
   * yet holds each check to its time limit.
   */
  slowAnswers?(): { inARow: number; total: number; timeoutMs: number };
  close(): Promise<void>;
}
