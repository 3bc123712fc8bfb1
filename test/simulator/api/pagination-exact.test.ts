/**
 * The pagination module on a small listing whose exact answers are written out: totals that are
 * exact multiples of per_page, per_page=1, keyset walks where the key order differs from the id
 * order and keys tie, every error message, and the specific wrong answer each fault produces.
 */
import { describe, expect, it } from 'vitest';
import { limits } from '../../../spec/index.js';
import { fromArray } from '../../../simulator/data/seq.js';
import {
  idOrdering,
  keyOrdering,
  linkUrl,
  pageParams,
  paginate,
  type Listing,
} from '../../../simulator/api/pagination.js';
import { HttpError } from '../../../simulator/errors.js';
import { links } from './helpers.js';
import type { Ctx, Sim } from '../../../simulator/types.js';

interface Row {
  id: number;
  name: string;
}

// Name order (a,2) (a,4) (b,3) (c,1) (c,5) differs from id order, and names tie.
const ROWS: Row[] = [
  { id: 1, name: 'c' },
  { id: 2, name: 'a' },
  { id: 3, name: 'b' },
  { id: 4, name: 'a' },
  { id: 5, name: 'c' },
  { id: 6, name: 'b' },
];
const byName = [...ROWS].sort((x, y) => (x.name === y.name ? x.id - y.id : x.name < y.name ? -1 : 1));

function listing(rows: Row[] = ROWS, extra: Partial<Listing<Row>> = {}): Listing<Row> {
  return {
    orderings: {
      id: idOrdering(fromArray(rows), (r) => r.id),
      name: keyOrdering(
        fromArray(byName.filter((r) => rows.includes(r))),
        (r) => r.name,
        (r) => r.id,
      ),
    },
    defaultOrder: { orderBy: 'id', sort: 'asc' },
    render: (r) => r.id,
    ...extra,
  };
}

interface Setup {
  faults?: string[];
  offering?: 'self-managed' | 'hosted';
  maxOffset?: number;
  maxUrlLength?: number;
  operationId?: string;
  inForce?: boolean;
}

const ORIGIN = 'http://127.0.0.1:3000';
const PATH = '/api/v4/users';

function ctx(query: string, s: Setup = {}): Ctx {
  const url = new URL(`${ORIGIN}${PATH}${query ? `?${query}` : ''}`);
  const sim = {
    options: {
      offering: s.offering ?? 'self-managed',
      settings: { maxOffset: s.maxOffset ?? 50_000, maxUrlLength: s.maxUrlLength ?? 8192 },
    },
    fault: (name: string) => (s.faults ?? []).includes(name),
    inForce: () => s.inForce ?? true,
  } as unknown as Sim;
  return {
    sim,
    url,
    query: url.searchParams,
    rawPath: PATH,
    origin: ORIGIN,
    op: { operationId: s.operationId ?? 'listUsers' },
  } as unknown as Ctx;
}

/** The answer as core.ts gives it: a thrown HttpError is rendered, as the simulator's one error model does. */
function reply(query: string, s: Setup, l: Listing<Row>, authenticated: boolean) {
  const c = ctx(query, s);
  try {
    return paginate(c, l, authenticated);
  } catch (error) {
    if (error instanceof HttpError) return error.toResponse(c.sim);
    throw error;
  }
}

async function answer(query: string, s: Setup = {}, l = listing(), authenticated = true) {
  const answered = reply(query, s, l, authenticated);
  const res = answered instanceof Response ? answered : answered.toResponse();
  const headers = Object.fromEntries(res.headers.entries());
  delete headers['content-type'];
  return { status: res.status, body: (await res.json()) as unknown, headers };
}

const link = (query: string) => `${ORIGIN}${PATH}?${query}`;

describe('pageParams', () => {
  const { perPageDefault, perPageMax } = limits();
  const params = (query: string, faults: string[] = []) => pageParams(ctx(query, { faults }));

  it('reads per_page=1, the maximum and a value around it exactly', () => {
    expect(params('per_page=1&page=1')).toEqual({ perPage: 1, page: 1 });
    expect(params(`per_page=${perPageMax}`)).toEqual({ perPage: perPageMax, page: 1 });
    expect(params(`per_page=${perPageMax - 1}`)).toEqual({ perPage: perPageMax - 1, page: 1 });
    expect(params(`per_page=${perPageMax + 1}`)).toEqual({ perPage: perPageMax, page: 1 });
    expect(params(`per_page=${perPageMax + 1}`, ['per-page-not-clamped'])).toEqual({
      perPage: perPageMax + 1,
      page: 1,
    });
  });

  it('accepts a plus sign and surrounding spaces, nothing else', () => {
    expect(params('per_page=%2B7&page=%203%20')).toEqual({ perPage: 7, page: 3 });
    for (const bad of ['7a', 'a7', '7 7', '0', '-1', '2.5', '', '9007199254740993', '1e2', '0x10']) {
      expect(params(`per_page=${encodeURIComponent(bad)}`), bad).toEqual({ perPage: perPageDefault, page: 1 });
      expect(params(`page=${encodeURIComponent(bad)}`), bad).toEqual({ perPage: perPageDefault, page: 1 });
    }
    expect(params('page=2')).toEqual({ perPage: perPageDefault, page: 2 });
  });
});

describe('offset pagination, exact headers', () => {
  it('a total that is an exact multiple of per_page: the last full page has no next page', async () => {
    expect(await answer('per_page=3&page=2')).toEqual({
      status: 200,
      body: [4, 5, 6],
      headers: {
        'x-page': '2',
        'x-per-page': '3',
        'x-next-page': '',
        'x-prev-page': '1',
        'x-total': '6',
        'x-total-pages': '2',
        link: [
          `<${link('per_page=3&page=1')}>; rel="prev"`,
          `<${link('per_page=3&page=1')}>; rel="first"`,
          `<${link('per_page=3&page=2')}>; rel="last"`,
        ].join(', '),
      },
    });
  });

  it('one record short of a multiple: page 1 of 2 has a next page and no previous one', async () => {
    expect(await answer('per_page=3', {}, listing(ROWS.slice(0, 5)))).toEqual({
      status: 200,
      body: [1, 2, 3],
      headers: {
        'x-page': '1',
        'x-per-page': '3',
        'x-next-page': '2',
        'x-prev-page': '',
        'x-total': '5',
        'x-total-pages': '2',
        link: [
          `<${link('per_page=3&page=2')}>; rel="next"`,
          `<${link('per_page=3&page=1')}>; rel="first"`,
          `<${link('per_page=3&page=2')}>; rel="last"`,
        ].join(', '),
      },
    });
  });

  it('per_page=1 in the middle: x-prev-page beyond page 1 and both neighbours', async () => {
    const r = await answer('page=3&per_page=1&order_by=name&sort=desc');
    expect(r.body).toEqual([6]);
    expect(r.headers).toEqual({
      'x-page': '3',
      'x-per-page': '1',
      'x-next-page': '4',
      'x-prev-page': '2',
      'x-total': '6',
      'x-total-pages': '6',
      link: [
        `<${link('page=2&per_page=1&order_by=name&sort=desc')}>; rel="prev"`,
        `<${link('page=4&per_page=1&order_by=name&sort=desc')}>; rel="next"`,
        `<${link('page=1&per_page=1&order_by=name&sort=desc')}>; rel="first"`,
        `<${link('page=6&per_page=1&order_by=name&sort=desc')}>; rel="last"`,
      ].join(', '),
    });
  });

  it('a page beyond the last: empty, prev points at the last page, one total page for an empty list', async () => {
    const beyond = await answer('per_page=4&page=5');
    expect(beyond.body).toEqual([]);
    expect(beyond.headers['x-prev-page']).toBe('4');
    expect(beyond.headers.link).toBe(
      [
        `<${link('per_page=4&page=2')}>; rel="prev"`,
        `<${link('per_page=4&page=1')}>; rel="first"`,
        `<${link('per_page=4&page=2')}>; rel="last"`,
      ].join(', '),
    );
    const empty = await answer('', {}, listing([]));
    expect(empty.body).toEqual([]);
    expect(empty.headers['x-total']).toBe('0');
    expect(empty.headers['x-total-pages']).toBe('1');
    expect(empty.headers['x-next-page']).toBe('');
  });

  it('orders by name ascending and descending, ties broken by id', async () => {
    expect((await answer('order_by=name')).body).toEqual([2, 4, 3, 6, 1, 5]);
    expect((await answer('order_by=name&sort=desc')).body).toEqual([5, 1, 6, 3, 4, 2]);
    expect((await answer('sort=desc')).body).toEqual([6, 5, 4, 3, 2, 1]);
  });

  it('names the invalid order_by, sort and pagination exactly', async () => {
    // Refused by throwing the REST 400 the core answers (the simulator's one error model).
    const refused = (query: string) => () => paginate(ctx(query), listing(), true);
    expect(refused('order_by=size')).toThrow(/^order_by does not have a valid value \(one of id, name\)$/);
    expect(refused('sort=up')).toThrow(/^sort does not have a valid value \(asc or desc\)$/);
    expect((await answer('pagination=pages')).body).toEqual({
      message: 'pagination does not have a valid value (offset or keyset)',
    });
    expect((await answer('pagination=offset&per_page=2')).body).toEqual([1, 2]);
  });

  it('hides totals and rel=last for a hosted offering and above the totals limit', async () => {
    const hosted = await answer('per_page=2', { offering: 'hosted' });
    expect(hosted.headers['x-total']).toBeUndefined();
    expect(hosted.headers['x-total-pages']).toBeUndefined();
    expect(hosted.headers.link).toBe(
      [`<${link('per_page=2&page=2')}>; rel="next"`, `<${link('per_page=2&page=1')}>; rel="first"`].join(', '),
    );
    const { paginationTotalsMax } = limits();
    const many = (n: number) => {
      const l = listing();
      l.orderings.id = idOrdering({ length: n, at: (pos) => ({ id: pos + 1, name: 'x' }) }, (r) => r.id);
      return l;
    };
    expect((await answer('', {}, many(paginationTotalsMax))).headers['x-total']).toBe(String(paginationTotalsMax));
    expect((await answer('', {}, many(paginationTotalsMax + 1))).headers['x-total']).toBeUndefined();
    expect(
      (await answer('', { faults: ['totals-not-omitted'] }, many(paginationTotalsMax + 1))).headers['x-total'],
    ).toBe(String(paginationTotalsMax + 1));
  });

  it('serves an offset of exactly the maximum and refuses one record beyond, with the message', async () => {
    expect((await answer('per_page=2&page=3', { maxOffset: 4 })).status).toBe(200);
    expect(await answer('per_page=2&page=4', { maxOffset: 4 })).toEqual({
      status: 400,
      body: {
        message:
          'Offset pagination has a maximum allowed offset of 4. Use keyset pagination, or narrow the query, to read further.',
      },
      headers: {},
    });
    expect((await answer('per_page=2&page=4', { maxOffset: 4, faults: ['max-offset-ignored'] })).status).toBe(200);
  });

  it('serves up to the record limit and refuses a page reaching one record beyond it', async () => {
    const limited = listing(ROWS, { offsetRecordLimit: 4 });
    expect((await answer('per_page=2&page=2', {}, limited)).body).toEqual([3, 4]);
    expect(await answer('per_page=3&page=2', {}, limited)).toEqual({
      status: 400,
      body: {
        message:
          'Offset pagination is limited to 4 records for this endpoint. Use keyset pagination (pagination=keyset) for the remaining records.',
      },
      headers: {},
    });
  });
});

describe('offset faults give their specific wrong answer', () => {
  it('x-page-zero-based: page 1 is announced as 0, page 2 as 1; nothing else changes', async () => {
    const right = await answer('per_page=3&page=2');
    const wrong = await answer('per_page=3&page=2', { faults: ['x-page-zero-based'] });
    expect(wrong.headers['x-page']).toBe('1');
    expect({ ...wrong.headers, 'x-page': right.headers['x-page'] }).toEqual(right.headers);
    expect((await answer('per_page=3', { faults: ['x-page-zero-based'] })).headers['x-page']).toBe('0');
  });

  it('page-default-not-first: no page serves page 2 and says so; an explicit page is untouched', async () => {
    const second = await answer('per_page=3&page=2');
    expect(await answer('per_page=3', { faults: ['page-default-not-first'] })).toEqual(second);
    expect(second.body).toEqual([4, 5, 6]);
    expect(await answer('per_page=3&page=1', { faults: ['page-default-not-first'] })).toEqual(
      await answer('per_page=3'),
    );
    const invalid = await answer('per_page=3&page=x', { faults: ['page-default-not-first'] });
    expect([invalid.headers['x-page'], invalid.body]).toEqual(['1', [1, 2, 3]]);
  });

  it('x-total-off-by-one: one more than the records, the page count untouched', async () => {
    const wrong = await answer('per_page=3', { faults: ['x-total-off-by-one'] });
    expect(wrong.headers['x-total']).toBe('7');
    expect(wrong.headers['x-total-pages']).toBe('2');
    expect(wrong.body).toEqual([1, 2, 3]);
  });

  it('link-header-dropped, links-header-present and link-drops-params', async () => {
    expect((await answer('per_page=3', { faults: ['link-header-dropped'] })).headers.link).toBeUndefined();
    const both = await answer('per_page=3', { faults: ['links-header-present'] });
    expect(both.headers.links).toBe(both.headers.link);
    expect(both.headers.links).toContain('rel="next"');
    const dropped = await answer('order_by=name&per_page=3', { faults: ['link-drops-params'] });
    expect(dropped.headers.link).toBe(
      [
        `<${link('page=2&per_page=3')}>; rel="next"`,
        `<${link('page=1&per_page=3')}>; rel="first"`,
        `<${link('page=2&per_page=3')}>; rel="last"`,
      ].join(', '),
    );
  });

  it('linkUrl replaces and drops parameters in place, keeping the order of the others', () => {
    const c = ctx('a=1&page=2&b=2&cursor=x');
    expect(linkUrl(c, { page: '3' }, ['cursor'])).toBe(link('a=1&page=3&b=2'));
    expect(linkUrl(c, {})).toBe(link('a=1&page=2&b=2&cursor=x'));
  });

  it('linkUrl keeps the other parameters as the request spelled them, and only the first of a repeated one it sets', () => {
    const c = ctx('q=a+b&r=%7E&s=!&page=2&toString=1&page=5&t=(x)&&u');
    expect(linkUrl(c, { page: '3', per_page: '7' })).toBe(link('q=a+b&r=%7E&s=!&page=3&toString=1&t=(x)&u&per_page=7'));
    expect(linkUrl(c, { s: 'x y' }, ['page', 'u'])).toBe(link('q=a+b&r=%7E&s=x+y&toString=1&t=(x)'));
    expect(linkUrl(ctx(''), { page: '1' })).toBe(link('page=1'));
  });
});

/** Follow rel=next to the end: the ids of every page and the cursor each link carried. */
async function walk(query: string, s: Setup = {}, l = listing(), authenticated = true) {
  const pages: unknown[] = [];
  const cursors: string[] = [];
  let next: string | undefined = query;
  for (let guard = 0; next !== undefined && guard < 20; guard++) {
    const r = await answer(next, s, l, authenticated);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.headers['x-total']).toBeUndefined();
    expect(r.headers['x-per-page']).toBeUndefined();
    pages.push(r.body);
    const m = r.headers.link ? /^<([^>]*)>; rel="next"$/.exec(r.headers.link) : null;
    next = m ? new URL(m[1]).search.slice(1) : undefined;
    if (m) cursors.push(next!);
  }
  return { pages, cursors };
}

describe('keyset pagination, exact walks', () => {
  it('by id ascending with per_page=2: id_after cursors and an empty last page without a link', async () => {
    expect(await walk('pagination=keyset&order_by=id&sort=asc&per_page=2')).toEqual({
      pages: [[1, 2], [3, 4], [5, 6], []],
      cursors: [
        'pagination=keyset&order_by=id&sort=asc&per_page=2&id_after=2',
        'pagination=keyset&order_by=id&sort=asc&per_page=2&id_after=4',
        'pagination=keyset&order_by=id&sort=asc&per_page=2&id_after=6',
      ],
    });
  });

  it('by id descending: id_before cursors', async () => {
    const { pages, cursors } = await walk('pagination=keyset&order_by=id&sort=desc&per_page=4');
    expect(pages).toEqual([[6, 5, 4, 3], [2, 1], []]);
    expect(cursors[0]).toBe('pagination=keyset&order_by=id&sort=desc&per_page=4&id_before=3');
  });

  it('by name ascending with per_page=1: ties and a key order unlike the id order', async () => {
    const { pages, cursors } = await walk('pagination=keyset&order_by=name&sort=asc&per_page=1');
    expect(pages).toEqual([[2], [4], [3], [6], [1], [5], []]);
    const first = new URLSearchParams(cursors[0]).get('cursor')!;
    expect(JSON.parse(Buffer.from(first, 'base64url').toString('utf8'))).toEqual({ k: 'a', id: 2 });
  });

  it('by name descending with per_page=3: the page boundary splits a tie', async () => {
    expect((await walk('pagination=keyset&order_by=name&sort=desc&per_page=3')).pages).toEqual([
      [5, 1, 6],
      [3, 4, 2],
      [],
    ]);
    expect((await walk('pagination=keyset&order_by=name&sort=desc&per_page=2')).pages).toEqual([
      [5, 1],
      [6, 3],
      [4, 2],
      [],
    ]);
  });

  it('a cursor between records starts at the first record strictly beyond it', async () => {
    const cursor = (c: unknown) => Buffer.from(JSON.stringify(c)).toString('base64url');
    const at = async (c: unknown, sort = 'asc') =>
      (await answer(`pagination=keyset&order_by=name&sort=${sort}&cursor=${cursor(c)}`)).body;
    expect(await at({ k: 'a', id: 3 })).toEqual([4, 3, 6, 1, 5]);
    expect(await at({ k: 'a', id: 4 })).toEqual([3, 6, 1, 5]);
    expect(await at({ k: 'b', id: 0 })).toEqual([3, 6, 1, 5]);
    expect(await at({ k: 'c', id: 1 }, 'desc')).toEqual([6, 3, 4, 2]);
    expect(await at({ k: 'c', id: 2 }, 'desc')).toEqual([1, 6, 3, 4, 2]);
    expect((await answer('pagination=keyset&order_by=id&sort=asc&id_after=3')).body).toEqual([4, 5, 6]);
  });

  it('refuses a cursor that is not one, naming the parameter', async () => {
    const bad = (c: string) => Buffer.from(c).toString('base64url');
    for (const [query, param] of [
      ['order_by=id&sort=asc&id_after=x2', 'id_after'],
      ['order_by=id&sort=asc&id_after=2x', 'id_after'],
      ['order_by=id&sort=desc&id_before=-1', 'id_before'],
      [`order_by=name&sort=asc&cursor=${bad('not json')}`, 'cursor'],
      [`order_by=name&sort=asc&cursor=${bad('null')}`, 'cursor'],
      [`order_by=name&sort=asc&cursor=${bad('{"k":"a"}')}`, 'cursor'],
      [`order_by=name&sort=asc&cursor=${bad('{"id":1}')}`, 'cursor'],
      [`order_by=name&sort=asc&cursor=${bad('{"k":{},"id":1}')}`, 'cursor'],
      [`order_by=name&sort=asc&cursor=${bad('{"k":"a","id":true}')}`, 'cursor'],
    ]) {
      expect(await answer(`pagination=keyset&${query}`), query).toEqual({
        status: 400,
        body: { message: `${param} is invalid` },
        headers: {},
      });
    }
    const numeric = Buffer.from('{"k":2,"id":"b"}').toString('base64url');
    expect((await answer(`pagination=keyset&order_by=name&sort=asc&cursor=${numeric}`)).status).toBe(200);
  });

  it('names what keyset does not support, word for word', async () => {
    expect((await answer('pagination=keyset&order_by=name&sort=up')).body).toEqual({
      message:
        'This combination of order_by and sort is not supported with keyset pagination here; allowed: order_by=id&sort=asc, order_by=id&sort=desc, order_by=name&sort=asc, order_by=name&sort=desc, order_by=username&sort=asc, order_by=username&sort=desc',
    });
    expect((await answer('pagination=keyset&order_by=id&sort=asc', { operationId: 'getProject' })).body).toEqual({
      message: 'Keyset pagination is not supported for this endpoint (see the keyset support table)',
    });
    expect((await answer('pagination=keyset&order_by=id&sort=asc', { inForce: false })).body).toEqual({
      message: 'Keyset pagination is not supported for this endpoint (see the keyset support table)',
    });
    expect(
      (await answer('pagination=keyset&order_by=id&sort=desc', { operationId: 'listProjectJobs' }, listing(), false))
        .body,
    ).toEqual({
      message: 'Keyset pagination is available on this endpoint to authenticated requests only',
    });
    expect((await answer('pagination=keyset&order_by=name&sort=asc', { operationId: 'listGroups' })).body).toEqual({
      message: 'Keyset pagination is available on this endpoint to unauthenticated requests only',
    });
    expect(
      (await answer('pagination=keyset&order_by=name&sort=asc', { operationId: 'listGroups' }, listing(), false))
        .status,
    ).toBe(200);
  });

  it('without order_by where the table allows none: page_token cursors in the default order', async () => {
    expect(await walk('pagination=keyset&per_page=4', { operationId: 'listRepositoryTree' })).toEqual({
      pages: [[1, 2, 3, 4], [5, 6], []],
      cursors: [
        `pagination=keyset&per_page=4&page_token=${Buffer.from('{"k":4,"id":4}').toString('base64url')}`,
        `pagination=keyset&per_page=4&page_token=${Buffer.from('{"k":6,"id":6}').toString('base64url')}`,
      ],
    });
    expect(
      (await answer('pagination=keyset&order_by=&per_page=4', { operationId: 'listRepositoryTree' })).body,
    ).toEqual([1, 2, 3, 4]);
    expect((await answer('pagination=keyset&order_by=id&sort=asc', { operationId: 'listRepositoryTree' })).status).toBe(
      400,
    );
  });
});

describe('keyset faults give their specific wrong answer', () => {
  it('keyset-duplicate-row: every page after the first repeats the last row of the page before', async () => {
    expect(
      (
        await walk('pagination=keyset&order_by=name&sort=asc&per_page=2', { faults: ['keyset-duplicate-row'] })
      ).pages.slice(0, 3),
    ).toEqual([
      [2, 4],
      [4, 3],
      [3, 6],
    ]);
    const cursor = Buffer.from('{"k":"a","id":0}').toString('base64url');
    expect(
      (
        await answer(`pagination=keyset&order_by=name&sort=asc&per_page=2&cursor=${cursor}`, {
          faults: ['keyset-duplicate-row'],
        })
      ).body,
    ).toEqual([2, 4]);
  });

  it('keyset-end-next-link: the empty page past the end links to itself', async () => {
    const r = await answer('pagination=keyset&order_by=id&sort=asc&id_after=6', { faults: ['keyset-end-next-link'] });
    expect(r.body).toEqual([]);
    expect(r.headers.link).toBe(
      `<${link('pagination=keyset&order_by=id&sort=asc&id_after=6&per_page=20')}>; rel="next"`,
    );
    const first = await answer('pagination=keyset&order_by=id&sort=asc&per_page=6', {
      faults: ['keyset-end-next-link'],
    });
    expect(first.headers.link).toBe(
      `<${link('pagination=keyset&order_by=id&sort=asc&per_page=6&id_after=6')}>; rel="next"`,
    );
  });

  it('keyset-offset-headers: x-per-page, and only it, appears on a keyset page', async () => {
    const r = await answer('pagination=keyset&order_by=id&sort=asc&per_page=2', { faults: ['keyset-offset-headers'] });
    expect(r.headers['x-total']).toBeUndefined();
    expect(r.headers['x-per-page']).toBe('2');
  });

  it('keyset-any-order: an ordering the table lacks is served, with its cursor parameter', async () => {
    const l = listing();
    expect(
      (
        await answer(
          'pagination=keyset&order_by=name&sort=asc&per_page=2',
          { operationId: 'listProjects', faults: ['keyset-any-order'] },
          l,
        )
      ).headers.link,
    ).toBe(
      `<${link(`pagination=keyset&order_by=name&sort=asc&per_page=2&cursor=${Buffer.from('{"k":"a","id":4}').toString('base64url')}`)}>; rel="next"`,
    );
    for (const q of ['order_by=name&sort=up', 'order_by=size&sort=asc', 'sort=asc']) {
      expect(
        (await answer(`pagination=keyset&${q}`, { operationId: 'listProjects', faults: ['keyset-any-order'] }, l))
          .status,
        q,
      ).toBe(400);
    }
  });
});

describe('the Link header bound (LIM-RESPONSE-HEADERS-BOUNDED)', () => {
  // A keyset page has one link, `<URL>; rel="next"`; its query is padded to reach an exact length.
  const query = (pad: number) => `pagination=keyset&order_by=id&sort=asc&per_page=2&pad=${'x'.repeat(pad)}`;
  const header = (pad: number) => `<${link(`${query(pad)}&id_after=2`)}>; rel="next"`;
  const refused = (max: number) => ({
    status: 414,
    body: {
      message: `414 Request-URI Too Large: the query is too long to repeat in the Link header (over ${max} bytes); shorten it`,
    },
    headers: {},
  });

  async function edge(max: number, maxUrlLength: number) {
    const pad = max - header(0).length;
    const served = await answer(query(pad), { maxUrlLength });
    expect(served.status).toBe(200);
    expect(served.headers.link).toBe(header(pad));
    expect(Buffer.byteLength(served.headers.link)).toBe(max);
    expect(await answer(query(pad + 1), { maxUrlLength })).toEqual(refused(max));
  }

  it('serves a Link of exactly responseHeaderMaxBytes and refuses one byte more, where that bound is the larger', async () => {
    const { responseHeaderMaxBytes } = limits();
    expect(4 * (100 + ORIGIN.length + 64)).toBeLessThan(responseHeaderMaxBytes);
    await edge(responseHeaderMaxBytes, 100);
  });

  it('where four URLs of maxUrlLength (each with the origin and 64 bytes of page parameters) make more, that is the bound', async () => {
    const maxUrlLength = 4000;
    const bound = 4 * (maxUrlLength + ORIGIN.length + 64);
    expect(bound).toBeGreaterThan(limits().responseHeaderMaxBytes);
    await edge(bound, maxUrlLength);
  });

  it('an offset page of four links whose request target is exactly maxUrlLength is served, whatever its characters', async () => {
    // page=2 of a long list without per_page: every link adds &per_page=20 and sets its page.
    const many = listing();
    many.orderings.id = idOrdering({ length: 100, at: (pos) => ({ id: pos + 1, name: 'x' }) }, (r) => r.id);
    const maxUrlLength = 3000;
    // Characters a form encoder would escape (`!` as `%21`): the links keep them as sent.
    const start = `pad=&page=2`;
    const pad = '!~*()-._'.repeat(400).slice(0, maxUrlLength - PATH.length - start.length - 1);
    const target = `${PATH}?${start.replace('pad=', `pad=${pad}`)}`;
    expect(new URL(`${ORIGIN}${target}`).search.length + PATH.length).toBe(maxUrlLength);
    const r = await answer(target.slice(PATH.length + 1), { maxUrlLength }, many);
    expect(r.status).toBe(200);
    expect(Object.keys(links(r.headers.link))).toEqual(['prev', 'next', 'first', 'last']);
  });
});

describe('keyset links and messages, one input at a time', () => {
  it('the next link drops page and every other cursor parameter, keeping the rest in order', async () => {
    const r = await answer(
      'pagination=keyset&page=3&order_by=id&sort=asc&cursor=abc&per_page=2&page_token=t&id_before=9&q=1',
    );
    expect(r.body).toEqual([1, 2]);
    expect(r.headers.link).toBe(
      `<${link('pagination=keyset&order_by=id&sort=asc&per_page=2&q=1&id_after=2')}>; rel="next"`,
    );
  });

  it('where the table allows no order_by, the refusal says so', async () => {
    expect(
      (await answer('pagination=keyset&order_by=id&sort=asc', { operationId: 'listRepositoryTree' })).body,
    ).toEqual({
      message:
        'This combination of order_by and sort is not supported with keyset pagination here; allowed: no order_by',
    });
  });

  it('keyset-any-order serves an ordering the table lacks in descending order too', async () => {
    const r = await answer('pagination=keyset&order_by=name&sort=desc&per_page=2', {
      operationId: 'listProjects',
      faults: ['keyset-any-order'],
    });
    expect(r.body).toEqual([5, 1]);
    expect(r.headers.link).toBe(
      `<${link(`pagination=keyset&order_by=name&sort=desc&per_page=2&cursor=${Buffer.from('{"k":"c","id":1}').toString('base64url')}`)}>; rel="next"`,
    );
  });
});
