/**
 * Keyed hashes of stored credentials (AUTH-CREDENTIALS-STORED-HASHED): client secrets, user
 * passwords and tokens are kept as keyed SHA-256 digests under keys that live only in this
 * process, so the store never holds a presented credential and a lookup by token is one Map probe
 * on its digest. A fast keyed hash suffices for a simulator: the point is not to model plaintext storage.
 */
import * as crypto from 'node:crypto';

// One key of 128 bits, as base64url text: what is hashed is exactly key || value || key (ASCII
// key). 22 characters, not 43: a device code (64 hex) is then hashed in two SHA-256 blocks, not three.
const KEY = crypto.randomBytes(16).toString('base64url');

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

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const SIXBITS = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64URL.length; i++) SIXBITS[BASE64URL.charCodeAt(i)] = i;

/**
 * A digest's first 30 bits as a whole number: the key of the two large Maps of digests (device
 * codes and user codes, 100,000 each at the bound, store.ts). A small integer is hashed and
 * compared inside the table, where a digest string is a pointer to follow at each probe: a delete,
 * a missed probe and an insert on a 100,000-entry map took 1.15 µs keyed by digest strings and
 * 0.45 µs keyed by slots (microbenchmark, this VM). The slot is not the key: a map by slot holds
 * at most one record a slot (issuance draws again while it is held), and a look-up compares the
 * record's whole digest, so a presented value that shares a slot finds nothing.
 */
export function slotOf(digest: string): number {
  let slot = 0;
  for (let i = 0; i < 5; i++) slot = (slot << 6) | SIXBITS[digest.charCodeAt(i) & 127];
  return slot;
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
