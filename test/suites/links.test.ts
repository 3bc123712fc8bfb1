/** The Link header parser the pagination checks rely on: it must read what servers write, and never throw. */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLinkHeader, resolveLink, urlKey } from '../../suites/pagination/links.js';

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

describe('parseLinkHeader reads every way RFC 8288 and RFC 9110 let a server write a Link', () => {
  it('escaped quotes in quoted strings, empty list elements, parameter names in any case', () => {
    expect(
      parseLinkHeader(
        '<http://x/?page=2>; title="a \\"b\\", c"; REL=next, , <http://x/?page=1>;rel="first prev"; hreflang=en,',
      ),
    ).toEqual({ next: ['http://x/?page=2'], first: ['http://x/?page=1'], prev: ['http://x/?page=1'] });
  });

  it('counts only the first rel of a link (RFC 8288 §3.3) and keeps links without one out', () => {
    expect(parseLinkHeader('<http://x/a>; rel=next; rel=last, <http://x/b>; title="no rel"')).toEqual({
      next: ['http://x/a'],
    });
  });

  it('still refuses what is broken', () => {
    expect(parseLinkHeader('<http://x/a>; rel="next')).toBeNull();
    expect(parseLinkHeader('<http://x/a> rel=next')).toBeNull();
  });
});

describe('resolveLink and urlKey', () => {
  const base = 'http://idp.test/api/v4/projects/a%2Fb/issues?page=1&per_page=2';
  it('resolves path-absolute and query-only references against the response URL, keeps absolute ones as written', () => {
    expect(resolveLink('/api/v4/users?page=2', base)).toBe('http://idp.test/api/v4/users?page=2');
    expect(resolveLink('?page=2&per_page=2', base)).toBe(
      'http://idp.test/api/v4/projects/a%2Fb/issues?page=2&per_page=2',
    );
    expect(resolveLink('http://other.test/x?a=%7e', base)).toBe('http://other.test/x?a=%7e');
  });

  it('equates what RFC 3986 §6 equates, and parameters in another order; not other pages', () => {
    const key = urlKey('http://idp.test/api/v4/x?page=2&order_by=created_at');
    expect(urlKey('HTTP://IDP.test:80/api/v4/x?order_by=created%5Fat&page=2')).toBe(key);
    expect(urlKey('http://idp.test/api/v4/./x?order_by=created_at&page=2')).toBe(key);
    expect(urlKey('http://idp.test/api/v4/x?order_by=created_at&page=3')).not.toBe(key);
    expect(urlKey('http://idp.test/api/v4/projects/a%2fb')).toBe(urlKey('http://idp.test/api/v4/projects/a%2Fb'));
    expect(urlKey('http://idp.test/api/v4/projects/a%2Fb')).not.toBe(urlKey('http://idp.test/api/v4/projects/a/b'));
  });
});
