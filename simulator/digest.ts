/**
 * Keyed hashes of stored credentials (AUTH-CREDENTIALS-STORED-HASHED): client secrets, user
 * passwords and tokens are kept as HMAC-SHA256 under a key that lives only in this process, so
 * the store never holds a presented credential and a lookup by token is one Map probe on its
 * digest. A fast keyed hash suffices for a simulator: the point is not to model plaintext storage.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY = randomBytes(32);

export function digest(value: string): string {
  return createHmac('sha256', KEY).update(value, 'utf8').digest('base64url');
}

/** Does `given` hash to `stored`? Constant time in the content (both digests have one length). */
export function matchesDigest(given: string, stored: string): boolean {
  const a = Buffer.from(digest(given));
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}
