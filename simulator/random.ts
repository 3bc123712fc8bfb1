import { randomBytes, randomInt } from 'node:crypto';

/** A CSPRNG secret as URL-safe base64, optionally behind a readable prefix (e.g. `gloas-`). */
export function secret(bytes = 32, prefix = ''): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

/** A CSPRNG hex identifier (Application IDs are 64 hex characters in the real service). */
export function hexId(bytes = 32): string {
  return randomBytes(bytes).toString('hex');
}

/** A CSPRNG string of `length` characters drawn uniformly from `alphabet` (device user codes). */
export function fromAlphabet(length: number, alphabet: string): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}
