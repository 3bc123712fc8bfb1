/**
 * Keyed hashes of stored credentials (AUTH-CREDENTIALS-STORED-HASHED): client secrets, user
 * passwords and tokens are kept as keyed SHA-256 digests under keys that live only in this
 * process, so the store never holds a presented credential and a lookup by token is one Map probe
 * on its digest. A fast keyed hash suffices for a simulator: the point is not to model plaintext storage.
 */
import * as crypto from 'node:crypto';

// One key, as base64url text: what is hashed is exactly key || value || key (ASCII key).
const KEY = crypto.randomBytes(32).toString('base64url');

/** One-shot SHA-256 (`crypto.hash`, Node ≥ 20.12), or a Hash object where the runtime has none. */
const sha256: (data: string) => string =
  typeof crypto.hash === 'function'
    ? (data) => crypto.hash('sha256', data, 'base64url')
    : (data) => crypto.createHash('sha256').update(data, 'utf8').digest('base64url');

/**
 * H(key || value || key): the key on both sides, so a stored digest cannot be extended into the
 * digest of a longer value (that value would have to end with the key), in one hash. Most digests
 * are lookup keys of random tokens or credentials; the one used as a tag (a session's CSRF token,
 * oauth/session.ts, of 'csrf:' and its nonce) is safe for the same reason: forging it needs the key.
 * HMAC's nested pair buys nothing more here; one call costs half of two (about 1 µs of a device
 * request's three, measured with `npm run bench:profile`). Not `createHmac`: it builds a native
 * object per call (about 3 µs here).
 */
export function digest(value: string): string {
  return sha256(KEY + value + KEY);
}

/**
 * Does `given` hash to `stored`? The comparison reads every character whatever matches (both
 * digests have one length), without the two Buffers `timingSafeEqual` needs (0.7 µs a request).
 */
export function matchesDigest(given: string, stored: string): boolean {
  const mine = digest(given);
  let differ = mine.length ^ stored.length;
  for (let i = 0; i < mine.length; i++) differ |= mine.charCodeAt(i) ^ stored.charCodeAt(i);
  return differ === 0;
}
