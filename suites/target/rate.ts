import { setTimeout as delay } from 'node:timers/promises';
import { LOWER_THE_RATE, TransportError } from './types.js';

/**
 * A token bucket: at most `perSecond` requests per second on average, bursts up to the same
 * number. A 429 (waited out) pauses the whole bucket, since the server speaks for every caller.
 */
export interface RateLimiter {
  /** Waits for the bucket and any pause; `stop` (a request's RawRequest.stop) ends the wait at once. */
  take(stop?: AbortSignal): Promise<void>;
  /** The server asked us to wait (429 Retry-After, a reset header, or our backoff), in seconds. */
  pause(seconds: number): void;
  /** How long, in ms, the pause still holds every request (0: none). */
  pausedFor(): number;
}

/** Where time passes: real time, or a test's virtual clock (a wait then costs no real time). */
export interface Clock {
  now: () => number;
  /** Resolves after `ms`, or at once when `cut` aborts (its timer cleared: nothing holds the process). */
  sleep: (ms: number, cut?: AbortSignal) => Promise<void>;
}

/** Node's own abortable timer; its rejection on `cut` is the wait's end, not an error. */
const sleep = (ms: number, cut?: AbortSignal) =>
  delay(ms, undefined, cut ? { signal: cut } : undefined).catch(() => undefined);
export const REAL_CLOCK: Clock = { now: Date.now, sleep };

/**
 * `cut`: the signal that stops every request (the HTTP target's `abort`); it ends every wait too,
 * as a taker's own `stop` ends its wait, so a run interrupted while it sits out a Retry-After stops
 * at once, not when the wait would have ended. The request after the wait is then not sent (the
 * HTTP target refuses it for the same signal).
 */
export function createRateLimiter(
  perSecond: number | undefined,
  now: () => number = Date.now,
  sleepFor: (ms: number, cut?: AbortSignal) => Promise<void> = sleep,
  cut?: AbortSignal,
): RateLimiter {
  let tokens = perSecond ?? 0;
  let last = now();
  let pausedUntil = 0;
  let queue: Promise<void> = Promise.resolve();

  const refill = () => {
    if (!perSecond) return;
    const t = now();
    tokens = Math.min(perSecond, tokens + ((t - last) / 1000) * perSecond);
    last = t;
  };

  const takeOne = async (stop?: AbortSignal): Promise<void> => {
    const ends = stop && cut ? AbortSignal.any([cut, stop]) : (stop ?? cut);
    const wait = (ms: number) => sleepFor(ms, ends);
    const paused = pausedUntil - now();
    if (paused > 0) await wait(paused);
    if (!perSecond) return;
    refill();
    if (tokens < 1) {
      await wait(((1 - tokens) / perSecond) * 1000);
      refill();
    }
    tokens -= 1;
  };

  return {
    // Serialise takers so the bucket's arithmetic stays right under concurrency.
    take(stop) {
      const next = queue.then(() => takeOne(stop));
      queue = next.catch(() => undefined);
      return next;
    },
    pause(seconds) {
      pausedUntil = Math.max(pausedUntil, now() + seconds * 1000);
    },
    pausedFor: () => Math.max(0, pausedUntil - now()),
  };
}

/** Retry-After as seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now: () => number = Date.now): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - now()) / 1000);
}

/**
 * The headers providers give the wait in when Retry-After is absent, in the order read: the IETF
 * httpapi draft and GitLab (`RateLimit-Reset`), GitHub (`X-RateLimit-Reset`), Okta
 * (`X-Rate-Limit-Reset`). None is standard, and the source shows none (Limits: "not shown").
 */
const RESET_HEADERS = ['ratelimit-reset', 'x-ratelimit-reset', 'x-rate-limit-reset'];
/**
 * A reset at least this large is an epoch time in seconds (GitHub, GitLab, Okta), a smaller one
 * delta seconds (the draft): 1e9 s is September 2001 as an epoch, 31 years as a delta.
 */
const EPOCH_FROM = 1e9;

/**
 * The reset in the IETF draft's single `RateLimit` field: `t=` in the structured form of draft -07
 * on (`"default";r=0;t=30`), `reset=` in the list form of drafts -03 to -06 (`limit=600,
 * remaining=0, reset=30`). Delta seconds in both.
 */
const FIELD_RESET = /(?:^|[\s;,])(?:t|reset)=(\d{1,9})(?![\d.])/;

/**
 * How long a refused request's answer asks us to wait, in seconds, as the server said it:
 * Retry-After first (delta or HTTP date), then the first readable reset header, then the draft's
 * single RateLimit field. Garbage in any of
 * them is ignored; null when none says. The caller compares it with what it is willing to wait.
 */
export function rateLimitWait(headers: Headers, now: () => number = Date.now): number | null {
  const retryAfter = retryAfterSeconds(headers.get('retry-after'), now);
  if (retryAfter !== null) return retryAfter;
  for (const name of RESET_HEADERS) {
    const value = headers.get(name)?.trim() ?? '';
    if (!/^\d+(\.\d+)?$/.test(value)) continue;
    const n = Number(value);
    return n >= EPOCH_FROM ? Math.max(0, n - now() / 1000) : n;
  }
  const field = FIELD_RESET.exec(headers.get('ratelimit') ?? '');
  return field ? Number(field[1]) : null;
}

/**
 * GitHub answers its primary rate limit 403 with this header at 0, its secondary one 403 with
 * Retry-After (a wait no refusal of access names); a plain 403 is an answer to judge.
 * A 503 with Retry-After is a load balancer or CDN saying the service is out for that long (RFC 9110
 * §10.2.3, §15.6.4: HAProxy, Cloudflare, a gateway shielding a busy origin): waited out like a 429,
 * not judged as the provider's answer; a 503 without it is a gateway's page unless its body is JSON
 * (unserved.ts), which is the provider's own answer (ERR-NO-SERVER-ERROR, premises).
 */
export function isRateLimited(status: number, headers: Headers): boolean {
  return (
    status === 429 ||
    (status === 403 && (headers.get('x-ratelimit-remaining')?.trim() === '0' || headers.has('retry-after'))) ||
    (status === 503 && headers.has('retry-after'))
  );
}

/**
 * Waits, in seconds, before each retry of a rate-limited answer that says no wait: short, since
 * nothing says how long, and bounded, so a provider that refuses one path forever costs each
 * request a few seconds, not the run.
 */
export const BACKOFF_SECONDS = [1, 2];
export const DEFAULT_RETRIES_429 = 2;
export const DEFAULT_MAX_RETRY_AFTER = 60;

/**
 * The longest wait, in seconds, the harness sits out with `leftMs` left to wait at all (the
 * check's time limit, --deadline): a sleep cannot be cut short, so a wait ending past them is
 * given up at once (givenUp says it asked longer than this), for the HTTP target and the browser
 * driver alike.
 */
export const waitWithin = (maxWait: number, leftMs: number): number =>
  Math.max(0, Math.min(maxWait, Math.floor(leftMs / 1000)));

/**
 * The wait before retry `attempt` (from 0) of a rate-limited answer: the one it names (`asked`),
 * else our backoff. Only a wait the server named can be past `maxWait`.
 */
export function retryWait(
  headers: Headers,
  attempt: number,
  maxWait: number,
  now: () => number = Date.now,
): { asked: number | null; wait: number } {
  const asked = rateLimitWait(headers, now);
  return { asked, wait: asked ?? Math.min(BACKOFF_SECONDS[Math.min(attempt, BACKOFF_SECONDS.length - 1)], maxWait) };
}

/**
 * A rate-limited request given up (`where`: `METHOD /path`) after `attempt` retries that waited
 * `waited` s, or at once when its answer asked `wait` s past `maxWait`: the one line the check
 * that sent it is errored with (the HTTP target's requests and the browser driver's pages alike).
 */
export function givenUp(
  where: string,
  status: number,
  {
    attempt,
    waited,
    wait,
    maxWait,
    asked,
  }: { attempt: number; waited: number; wait: number; maxWait: number; asked: number | null },
): TransportError {
  const tooLong =
    wait > maxWait ? `; it asked to wait ${Math.ceil(wait)} s, longer than the ${maxWait} s the harness waits` : '';
  // A 503 says the service is out, not that the harness asks too often: --rate is no remedy.
  const [what, remedy] =
    status === 503
      ? ['the target is unavailable for this request', 'run again once it is served']
      : ['the target rate-limited this request', LOWER_THE_RATE];
  return new TransportError(
    `${what} (${where}): ${status} after ${attempt} ${attempt === 1 ? 'retry' : 'retries'}, waited ${Math.round(waited)} s${tooLong}; ${remedy}`,
    'rate-limited',
    asked ?? undefined,
    status,
  );
}
