/**
 * Keyed hashes of stored credentials (AUTH-CREDENTIALS-STORED-HASHED): client secrets, user
 * passwords and tokens are kept as keyed SHA-256 digests under keys that live only in this
 * process, so the store never holds a presented credential and a lookup by token is one Map probe
 * on its digest. A fast keyed hash suffices for a simulator: the point is not to model plaintext storage.
 */
import * as crypto from 'node:crypto';

// Two independent keys, as base64url text: what is hashed is exactly key || value (ASCII key).
const INNER = crypto.randomBytes(32).toString('base64url');
const OUTER = crypto.randomBytes(32).toString('base64url');

/** One-shot SHA-256 (`crypto.hash`, Node ≥ 20.12), or a Hash object where the runtime has none. */
const sha256: (data: string) => string =
  typeof crypto.hash === 'function'
    ? (data) => crypto.hash('sha256', data, 'base64url')
    : (data) => crypto.createHash('sha256').update(data, 'utf8').digest('base64url');

/**
 * H(outer || H(inner || value)), the nested shape of HMAC with two independent keys: a stored
 * digest cannot be extended into another one. Not `createHmac`: it builds a native object per call
 * (about 3 µs here, three of them per device request), two one-shot hashes take about 1 µs.
 */
export function digest(value: string): string {
  return sha256(OUTER + sha256(INNER + value));
}

/** Does `given` hash to `stored`? Constant time in the content (both digests have one length). */
export function matchesDigest(given: string, stored: string): boolean {
  const a = Buffer.from(digest(given));
  const b = Buffer.from(stored);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
