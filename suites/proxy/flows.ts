/**
 * What the proxy remembers of the protocol's state between exchanges: codes that were answered
 * with tokens, refresh tokens that were redeemed. Only SHA-256 digests are kept (a heap dump
 * holds no credential), each for the protocol's own lifetime, and never more than `max` entries
 * (the oldest go first), so long sessions and many clients stay within bounded memory.
 */
import { createHash } from 'node:crypto';

export const digest = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

export interface Remembered {
  /** Has this secret been seen (and not forgotten) at `now` (ms)? */
  has(secret: string, now: number): boolean;
  /** Remember a secret until `now + ttlMs`. */
  add(secret: string, now: number): void;
  readonly size: number;
}

export function remembered(ttlMs: number, max: number): Remembered {
  // Insertion order is expiry order (one ttl per set): the oldest are at the front.
  const until = new Map<string, number>();
  const sweep = (now: number) => {
    for (const [key, end] of until) {
      if (end > now && until.size <= max) break;
      until.delete(key);
    }
  };
  return {
    has(secret, now) {
      sweep(now);
      return until.has(digest(secret));
    },
    add(secret, now) {
      const key = digest(secret);
      until.delete(key);
      until.set(key, now + ttlMs);
      sweep(now);
    },
    get size() {
      return until.size;
    },
  };
}
