/**
 * PKCE values for the grants checks: the S256 challenge of any string, and arbitraries of
 * verifiers the source allows and of those it does not (too short, too long, a foreign character).
 */
import fc from 'fast-check';
import { limits } from '../../spec/index.js';
import { s256, VERIFIER_ALPHABET as ALLOWED } from '../runner/oauth.js';

const allowedChar = fc.constantFrom(...ALLOWED);

export { s256 };

export function validVerifier(): fc.Arbitrary<string> {
  const { verifierMinLength: min, verifierMaxLength: max } = limits();
  return fc.string({ unit: allowedChar, minLength: min, maxLength: max });
}

/** A character outside the allowed set: the usual suspects of encoding mistakes, or any grapheme. */
const foreignChar = fc
  .oneof(
    fc.constantFrom(' ', '+', '/', '=', '%', '!', '*', '&', '#', '?', ',', ':', '\t'),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  )
  .filter((c) => c.length > 0 && ![...c].every((ch) => ALLOWED.includes(ch)));

export type InvalidVerifier = { kind: 'too-short' | 'too-long' | 'foreign-character'; verifier: string };

/**
 * One verifier outside the length bounds and one with a foreign character: a run that tries both
 * every time sees each rule, where a drawn kind could miss one for a whole (short) run.
 */
export function invalidVerifiers(): fc.Arbitrary<[InvalidVerifier, InvalidVerifier]> {
  const { verifierMinLength: min, verifierMaxLength: max } = limits();
  const tooShort = fc
    .string({ unit: allowedChar, minLength: 1, maxLength: min - 1 })
    .map((verifier) => ({ kind: 'too-short' as const, verifier }));
  const tooLong = fc
    .string({ unit: allowedChar, minLength: max + 1, maxLength: max + 64 })
    .map((verifier) => ({ kind: 'too-long' as const, verifier }));
  const foreign = fc
    .tuple(fc.string({ unit: allowedChar, minLength: min - 1, maxLength: max - 1 }), foreignChar, fc.nat())
    .map(([base, c, at]) => {
      const i = at % (base.length + 1);
      return { kind: 'foreign-character' as const, verifier: base.slice(0, i) + c + base.slice(i) };
    });
  return fc.tuple(fc.oneof(tooShort, tooLong), foreign);
}
