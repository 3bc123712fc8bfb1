/**
 * Namespaced paths for the encoding checks: generated ones (for targets where the harness may
 * create projects) and the two wire forms of a path parameter.
 */
import * as fc from 'fast-check';
import { GENERATED } from '../shared/generated.js';

/** Characters a path segment may hold: lowercase ASCII, the separators the source names, and non-ASCII letters. */
const EDGE = ['a', 'b', 'z', '0', '7', 'é', 'ü', 'ж', '中'];
const INNER = [...EDGE, '.', '-', '_'];

/**
 * One segment: starts and ends with a letter or digit, never all digits (a bare number is a
 * project id, which would make an unencoded path reach a real resource), no `..`, never `.git`
 * or `.atom` at the end. Lowercase only: paths compare case-insensitively on the real service.
 */
export const segmentArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(...EDGE),
    fc.string({ unit: fc.constantFrom(...INNER), maxLength: 10 }),
    fc.constantFrom(...EDGE),
  )
  .map(([a, middle, b]) => `${a}${middle}${b}`)
  .filter((s) => !/^\d+$/.test(s) && !s.includes('..') && !/\.(git|atom)$/.test(s));

/**
 * `<namespace>/<project>` with one to three namespace levels. The top namespace carries a fixed
 * marker so generated projects never land in groups of the seeded data other checks count.
 */
export const namespacedPathArb: fc.Arbitrary<string> = fc
  .tuple(segmentArb, fc.array(segmentArb, { maxLength: 2 }), segmentArb)
  .map(([top, subgroups, project]) => [`${GENERATED}${top}`, ...subgroups, project].join('/'));

/** The form the source requires: the whole path parameter percent-encoded, `/` as `%2F`. */
export function encodedParam(value: string): string {
  return encodeURIComponent(value);
}

/** The wrong form: each segment encoded as needed for the wire, but the slashes left bare. */
export function unencodedParam(value: string): string {
  return value.split('/').map(encodeURIComponent).join('/');
}
