/** The Link header parser the pagination checks rely on: it must read what servers write, and never throw. */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLinkHeader } from '../../suites/pagination/links.js';

const SEED = 20_240_517;

/** URLs as servers put them in Link: any characters but `>` (commas and semicolons included). */
const url = fc.webUrl({ withQueryParameters: true }).map((u) => `${u}${u.includes('?') ? '&' : '?'}a=1,2;b=3`);
const relName = fc.constantFrom('next', 'prev', 'first', 'last');

describe('parseLinkHeader', () => {
  it('reads back every link of a header written with quoted, unquoted and multiple rels', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(url, fc.uniqueArray(relName, { minLength: 1, maxLength: 2 }), fc.boolean()), {
          maxLength: 4,
        }),
        (entries) => {
          const header = entries
            .map(
              ([u, rels, quoted]) =>
                `<${u}>; ${quoted || rels.length > 1 ? `rel="${rels.join(' ')}"` : `rel=${rels[0]}`}; title="x, y"`,
            )
            .join(', ');
          const expected: Record<string, string[]> = {};
          for (const [u, rels] of entries) for (const r of rels) (expected[r] ??= []).push(u);
          expect(parseLinkHeader(header)).toEqual(expected);
        },
      ),
      { seed: SEED },
    );
  });

  it('answers null for a malformed header instead of throwing', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseLinkHeader(text);
        expect(parsed === null || typeof parsed === 'object').toBe(true);
      }),
      { seed: SEED },
    );
    expect(parseLinkHeader('<http://x/?page=2; rel="next"')).toBeNull();
    expect(parseLinkHeader('http://x/?page=2>; rel="next"')).toBeNull();
    expect(parseLinkHeader('')).toEqual({});
    expect(parseLinkHeader(null)).toEqual({});
  });
});
