import { describe, expect, it } from 'vitest';
import { fromAlphabet, hexId, secret } from '../../simulator/random.js';
import { digest, matchesDigest } from '../../simulator/digest.js';

/** Pearson's chi-square of the counts against a uniform spread. */
function chiSquare(counts: Map<string, number>, size: number, n: number): number {
  const expected = n / size;
  let sum = 0;
  for (const count of counts.values()) sum += (count - expected) ** 2 / expected;
  return sum + (size - counts.size) * expected;
}

describe('random', () => {
  it('draws every character of an alphabet equally often (no modulo bias)', () => {
    // 20 letters: 256 % 20 = 16, so a plain `byte % 20` makes 16 letters 13/12 as likely as the
    // other 4; with 400,000 draws that is a chi-square in the thousands, against about 19 for uniform.
    const alphabet = 'BCDFGHJKLMNPQRSTVWXZ';
    const n = 400_000;
    const counts = new Map<string, number>();
    for (const ch of fromAlphabet(n, alphabet)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(alphabet.length);
    // 19 degrees of freedom: 60 is far beyond the 0.9999 quantile (about 50).
    expect(chiSquare(counts, alphabet.length, n)).toBeLessThan(60);
  });

  it('takes alphabets of 1 to 256 characters, and refuses others', () => {
    expect(fromAlphabet(5, 'A')).toBe('AAAAA');
    const all = Array.from({ length: 256 }, (_, i) => String.fromCharCode(0x100 + i)).join('');
    expect(fromAlphabet(1000, all)).toHaveLength(1000);
    expect(() => fromAlphabet(1, '')).toThrow(RangeError);
    expect(() => fromAlphabet(1, all + 'x')).toThrow(RangeError);
  });

  it('never hands out the same identifier twice, also across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) seen.add(hexId(32)).add(secret(32));
    expect(seen.size).toBe(2000);
  });
});

describe('digest', () => {
  it('is a deterministic keyed hash that matches only its own value', () => {
    expect(digest('a secret')).toBe(digest('a secret'));
    expect(digest('a secret')).not.toBe(digest('a secreT'));
    expect(digest('a secret')).toMatch(/^[\w-]{43}$/);
    expect(matchesDigest('a secret', digest('a secret'))).toBe(true);
    expect(matchesDigest('a secret', digest('another'))).toBe(false);
    expect(matchesDigest('a secret', 'short')).toBe(false);
  });

  it('is not the plain SHA-256 of the value (the key stays in the process)', async () => {
    const { createHash } = await import('node:crypto');
    const plain = createHash('sha256').update('a secret').digest('base64url');
    expect(digest('a secret')).not.toBe(plain);
    expect(digest('é')).not.toBe(digest('e'));
  });
});
