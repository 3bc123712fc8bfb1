import { timingSafeEqual } from 'node:crypto';

/** Compare a presented secret with the stored one in constant time (no length-by-length leak of content). */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
