/**
 * What the proxy remembers of the protocol's state between exchanges: codes that were answered
 * with tokens, refresh tokens that were redeemed or revoked, access tokens that should be dead.
 * Keys are SHA-256 digests of the secrets (a heap dump holds no credential), each kept for the
 * protocol's own lifetime, and never more than `max` entries (the oldest go first), so long
 * sessions and many clients stay within bounded memory.
 */
import { createHash } from 'node:crypto';

export const digest = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

export interface Remembered<V = true> {
  /** The value kept for this digest, if it is still remembered at `now` (ms). */
  get(key: string, now: number): V | undefined;
  /** Remember a value for a digest until `now + ttlMs`. */
  set(key: string, now: number, value: V): void;
  readonly size: number;
}

export function remembered<V = true>(ttlMs: number, max: number): Remembered<V> {
  // Insertion order is expiry order (one ttl per memory): the oldest are at the front.
  const kept = new Map<string, { until: number; value: V }>();
  const sweep = (now: number) => {
    for (const [key, entry] of kept) {
      if (entry.until > now && kept.size <= max) break;
      kept.delete(key);
    }
  };
  return {
    get(key, now) {
      sweep(now);
      return kept.get(key)?.value;
    },
    set(key, now, value) {
      kept.delete(key);
      kept.set(key, { until: now + ttlMs, value });
      sweep(now);
    },
    get size() {
      return kept.size;
    },
  };
}
