/**
 * A token bucket: at most `perSecond` requests per second on average, bursts up to the same
 * number. A 429 with Retry-After pauses the whole bucket, since the server speaks for every caller.
 */
export interface RateLimiter {
  take(): Promise<void>;
  /** The server asked us to wait (429 Retry-After), in seconds. */
  pause(seconds: number): void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createRateLimiter(perSecond: number | undefined, now: () => number = Date.now): RateLimiter {
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

  const takeOne = async (): Promise<void> => {
    const wait = pausedUntil - now();
    if (wait > 0) await sleep(wait);
    if (!perSecond) return;
    refill();
    if (tokens < 1) {
      await sleep(((1 - tokens) / perSecond) * 1000);
      refill();
    }
    tokens -= 1;
  };

  return {
    // Serialise takers so the bucket's arithmetic stays right under concurrency.
    take() {
      const next = queue.then(takeOne);
      queue = next.catch(() => undefined);
      return next;
    },
    pause(seconds) {
      pausedUntil = Math.max(pausedUntil, now() + seconds * 1000);
    },
  };
}

/** Retry-After as seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now: () => number = Date.now): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - now()) / 1000);
}
