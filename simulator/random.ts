import { randomFillSync } from 'node:crypto';

// CSPRNG bytes drawn 4 KiB at a time: one system call per 128 tokens instead of one per token.
// Each byte is handed out once and the pool is overwritten before reuse.
const POOL = Buffer.alloc(4096);
let used = POOL.length;

/** The next `bytes` unused bytes of the pool (refilled when spent), as their offset into POOL. */
function take(bytes: number): number {
  if (used + bytes > POOL.length) {
    randomFillSync(POOL);
    used = 0;
  }
  used += bytes;
  return used - bytes;
}

function random(bytes: number, encoding: 'hex' | 'base64url'): string {
  if (bytes > POOL.length) return randomFillSync(Buffer.alloc(bytes)).toString(encoding);
  const at = take(bytes);
  return POOL.toString(encoding, at, at + bytes);
}

/** A CSPRNG secret as URL-safe base64, optionally behind a readable prefix (e.g. `gloas-`). */
export function secret(bytes = 32, prefix = ''): string {
  return prefix + random(bytes, 'base64url');
}

/** A CSPRNG hex identifier (Application IDs are 64 hex characters in the real service). */
export function hexId(bytes = 32): string {
  return random(bytes, 'hex');
}

/**
 * A CSPRNG string of `length` characters drawn uniformly from `alphabet` (device user codes; at
 * most 256 characters): a pool byte is used only below the largest multiple of the alphabet's
 * size (rejection sampling), so no character is likelier than another. From the pool rather than
 * `randomInt` per character (one call each, a tenth of a device authorization's time).
 */
export function fromAlphabet(length: number, alphabet: string): string {
  const size = alphabet.length;
  if (size < 1 || size > 256) throw new RangeError(`an alphabet of ${size} characters`);
  const below = 256 - (256 % size);
  let out = '';
  while (out.length < length) {
    const byte = POOL[take(1)];
    if (byte < below) out += alphabet[byte % size];
  }
  return out;
}
