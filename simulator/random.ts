import { randomFillSync, randomInt } from 'node:crypto';

// CSPRNG bytes drawn 4 KiB at a time: one system call per 128 tokens instead of one per token.
// Each byte is handed out once and the pool is overwritten before reuse.
const POOL = Buffer.alloc(4096);
let used = POOL.length;

function random(bytes: number, encoding: 'hex' | 'base64url'): string {
  if (bytes > POOL.length) return randomFillSync(Buffer.alloc(bytes)).toString(encoding);
  if (used + bytes > POOL.length) {
    randomFillSync(POOL);
    used = 0;
  }
  const out = POOL.toString(encoding, used, used + bytes);
  used += bytes;
  return out;
}

/** A CSPRNG secret as URL-safe base64, optionally behind a readable prefix (e.g. `gloas-`). */
export function secret(bytes = 32, prefix = ''): string {
  return prefix + random(bytes, 'base64url');
}

/** A CSPRNG hex identifier (Application IDs are 64 hex characters in the real service). */
export function hexId(bytes = 32): string {
  return random(bytes, 'hex');
}

/** A CSPRNG string of `length` characters drawn uniformly from `alphabet` (device user codes). */
export function fromAlphabet(length: number, alphabet: string): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}
