/**
 * Keyset pagination checks, one pair per row of the keyset support table the target exposes:
 * the protocol (must: parameters, cursor next link, the empty end, no offset headers, other
 * orderings refused) and the rows (should: every record once, in order).
 */
import * as fc from 'fast-check';
import { limits, type RuleId } from '../../spec/index.js';
import type { Check, CheckContext, HttpResponse } from '../types.js';
import { apiHeaders, integerId, projectPath, reachedFixtureProject } from '../shared/api.js';
import { softOnce } from '../shared/rules.js';
import {
  describe,
  pagesPerOrder,
  keysetQuery,
  keysetTable,
  nextOf,
  resolveRow,
  servedKeysetPage,
  walkKeyset,
  walkKeys,
  type KeysetOrder,
  type KeysetRow,
  type KeysetTarget,
  type KeysetWalk,
} from './keyset.js';
import { carriesPaginationLink, numberHeader, parseLinkHeader, resolveLink } from './links.js';
import { effectivePerPage, key, skipWhenPastLastRefused } from './offset.js';
import { readPage, type WalkRules } from './traverse.js';

/** Headers the source reserves for offset pagination (PAG-KEYSET-NO-OFFSET-HEADERS). */
const OFFSET_ONLY = ['x-total', 'x-total-pages', 'x-page', 'x-per-page', 'x-next-page', 'x-prev-page'];
/** A keyset page carries none of the offset headers (shared with the proxy's passive judge). */
export function expectNoOffsetHeaders(t: CheckContext, res: HttpResponse, what: string): void {
  for (const name of OFFSET_ONLY) {
    const value = res.headers.get(name);
    // Nothing reads them on a keyset page: said once each, the keyset protocol still judged.
    softOnce(t, `offset header ${name}`, value === null, `${what} carries the offset header ${name}`, {
      header: name,
      value,
      rules: ['PAG-KEYSET-NO-OFFSET-HEADERS'],
    });
  }
}

/** The empty page that ends a keyset collection carries no Link (PAG-KEYSET-END). */
export function expectEmptyEnd(t: CheckContext, res: HttpResponse, what: string): void {
  t.expect(!carriesPaginationLink(res), `${what}: the empty end page still carries a Link header`, {
    link: res.headers.get('link'),
    rules: ['PAG-KEYSET-END'],
  });
}

/**
 * A keyset next link adds a cursor filter (PAG-KEYSET-NEXT-LINK): a parameter the page's own URL
 * does not carry with that value, other than the ordering asked and the page size. A page number
 * riding along is not forbidden; alone it is no cursor. A link to the page itself adds nothing.
 * Shared with the proxy's passive judge.
 */
export function expectCursorAdded(
  t: CheckContext,
  next: string,
  pageUrl: string,
  asked: Record<string, string | number>,
  where: string,
): void {
  const params = new URL(next, pageUrl).searchParams;
  const own = new URL(pageUrl).searchParams;
  const added = [...new Set(params.keys())].filter(
    (name) => !(name in asked) && name !== 'per_page' && name !== 'page' && own.get(name) !== params.get(name),
  );
  t.expect(
    added.length > 0,
    `${where} adds no cursor filter (id_after, cursor, ...)${params.has('page') ? ', only a page number' : ''}`,
    { rules: ['PAG-KEYSET-NEXT-LINK'] },
  );
}

/** Pages a property run reads: enough to cross two cursors. */
const PREFIX_PAGES = 3;

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Per-page values of property runs: any positive one, including above the maximum. */
function perPageArb(): fc.Arbitrary<number> {
  const { perPageMax } = limits();
  return fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: perPageMax }), weight: 4 },
    { arbitrary: fc.integer({ min: perPageMax + 1, max: perPageMax * 5 }), weight: 1 },
  );
}

/**
 * A protocol walk: a refused first page breaks the row of the support table (the endpoint serves
 * keyset with this ordering); a page behind rel=next refused, or a loop, breaks the cursor link,
 * or the empty end when the link came from the empty page.
 */
function protocolWalk(row: KeysetRow): WalkRules {
  return { start: row.rules, follow: ['PAG-KEYSET-NEXT-LINK'], end: ['PAG-KEYSET-END'] };
}

/** The protocol of every page of a walk (see the module comment). */
function assertKeysetProtocol(
  t: CheckContext,
  target: KeysetTarget,
  order: KeysetOrder,
  walk: KeysetWalk,
  perPage: number,
): void {
  const what = describe(target, order);
  const asked = keysetQuery(order);
  const served = new Set<string>();
  walk.pages.forEach((page, i) => {
    for (const item of page.items) served.add(key(item));
    const index = i + 1;
    expectNoOffsetHeaders(t, page.response, `${what}: page ${index}`);
    // The cap both paginations share, judged on its own so a page within it proves it.
    t.soft(
      page.items.length <= limits().perPageMax,
      `${what}: page ${index} holds ${page.items.length} records, more than the maximum per_page ${limits().perPageMax}`,
      { page: index, rules: ['LIM-PER-PAGE'] },
    );
    t.expect(
      page.items.length <= perPage,
      `${what}: page ${index} holds ${page.items.length} records, more than per_page ${perPage}`,
      { page: index, rules: ['PAG-KEYSET-PARAMS'] },
    );
    const next = nextOf(t, page);
    if (page.items.length > 0) {
      // No Link at all breaks "each response carries Link" (PAG-LINK-HEADER), and on a keyset page
      // the Link is the only way to the next page. A Link without rel=next marks this page as the
      // end, which is an empty page (PAG-KEYSET-END). So does a page shorter than per_page with
      // no way on, after pages that had one: the server says the end is reached (GitLab's keyset
      // pager does), one cause. Alone, a first page like it is no different from Link never sent.
      const linkless = !carriesPaginationLink(page.response);
      const short = page.items.length < perPage && i > 0 && carriesPaginationLink(walk.pages[i - 1].response);
      t.expect(
        next !== undefined,
        `${what}: page ${index} holds ${short ? `${page.items.length} records, fewer than per_page ${perPage},` : 'records'} but has ${linkless ? 'no Link header' : 'no rel=next'}; the end of a keyset collection is an empty page`,
        {
          page: index,
          rules: short
            ? ['PAG-KEYSET-END']
            : linkless
              ? ['PAG-LINK-HEADER', 'PAG-KEYSET-NEXT-LINK']
              : ['PAG-KEYSET-END', 'PAG-KEYSET-NEXT-LINK'],
        },
      );
      const params = new URL(next, page.response.url).searchParams;
      for (const [name, value] of Object.entries(asked)) {
        t.expect(
          params.get(name) === String(value),
          `${what}: the rel=next link of page ${index} does not keep ${name}=${value}`,
          { page: index, parameter: name, inLink: params.get(name), rules: ['PAG-LINK-FOLLOW'] },
        );
      }
      expectCursorAdded(t, next, page.response.url, asked, `${what}: the rel=next link of page ${index}`);
      // Only behind a sound next link is the following page the rest of the collection; records
      // served again there are PAG-KEYSET-ROWS' (keyset-rows), not more records following.
      const following = walk.pages[i + 1];
      if (following && following.items.some((item) => !served.has(key(item)))) {
        // Full pages are the real service's habit, not the source's sentence (PAG-KEYSET-FULL-PAGES).
        t.soft(
          page.items.length === perPage,
          `${what}: page ${index} holds ${page.items.length} records though more follow; expected ${perPage}`,
          { page: index, rules: ['PAG-KEYSET-FULL-PAGES'] },
        );
      }
    } else expectEmptyEnd(t, page.response, what);
  });
}

function protocolCheck(row: KeysetRow): Check {
  return {
    id: `pagination.keyset-${kebab(row.operationId)}`,
    suite: 'pagination',
    needs: ['restApi'],
    title: `keyset pagination of ${row.operationId}: cursor next links, an empty end without Link, no offset headers, other orderings refused`,
    rules: [
      ...row.rules,
      'PAG-KEYSET-PARAMS',
      'PAG-KEYSET-FULL-PAGES',
      'PAG-KEYSET-NEXT-LINK',
      'PAG-LINK-FOLLOW',
      'PAG-KEYSET-END',
      'PAG-KEYSET-NO-OFFSET-HEADERS',
      // Other orderings are refused only where the table gives orderings (not the repository tree).
      ...(row.orders.some((o) => o.order_by === null) ? [] : ['PAG-KEYSET-SELECTED-ENDPOINTS' as const]),
      'LIM-PER-PAGE',
    ],
    async run(t: CheckContext) {
      const target = await resolveRow(t, row);
      // Once keyset is seen served (the row's premise), what its first page and other orderings
      // show, softly and before the walks: none depends on them, and a walk's failure (a link that
      // leads elsewhere) must not hide them.
      const first = await servedKeysetPage(t, target, row.orders[0], undefined, protocolWalk(row));
      expectNoOffsetHeaders(t, first, `${describe(target, row.orders[0])}: page 1`);
      await assertOtherOrderingsRefused(t, target);
      const { perPageMax } = limits();
      for (const order of row.orders) {
        // Once per ordering, as far as the bound allows (to the empty end on all but huge collections).
        const walk = await walkKeyset(t, target, order, perPageMax, pagesPerOrder(row), protocolWalk(row));
        // An empty collection has no cursor to follow: its protocol would pass unseen.
        if (walk.pages[0].items.length === 0) t.skip(`${describe(target, order)} is empty on this target`);
        assertKeysetProtocol(t, target, order, walk, perPageMax);
      }
      await t.property(
        fc.constantFrom(...row.orders),
        fc.option(perPageArb(), { nil: undefined }),
        async (order, perPage) => {
          assertKeysetProtocol(
            t,
            target,
            order,
            await walkKeyset(t, target, order, perPage, PREFIX_PAGES, protocolWalk(row)),
            effectivePerPage(perPage),
          );
        },
      );
      if (row.who === 'both') {
        const anonymous = await t.http.get(target.path, { query: keysetQuery(row.orders[0]) });
        t.expect(
          anonymous.status === 200,
          `${describe(target, row.orders[0])} without authentication answered ${anonymous.status}; the table allows both`,
          { status: anonymous.status, rules: row.rules },
        );
      }
    },
  };
}

/** The row of the keyset support table allows this ordering. */
export function allowsOrdering(row: KeysetRow, orderBy: string, sort: string): boolean {
  return row.orders.some((o) => o.order_by === orderBy && o.sort === sort);
}

/** An ordering outside the row's is refused with a 4xx (PAG-KEYSET-SELECTED-ENDPOINTS); shared with the proxy. */
export function expectOrderingRefused(
  t: CheckContext,
  row: KeysetRow,
  orderBy: string,
  sort: string,
  status: number,
): void {
  softOnce(
    t,
    'ordering refused',
    status >= 400 && status < 500,
    `keyset ${row.operationId} with order_by=${orderBy}&sort=${sort} (not in the keyset table) answered ${status}, expected a 4xx refusal`,
    { orderBy, sort, status, rules: ['PAG-KEYSET-SELECTED-ENDPOINTS'] },
  );
}

const CANDIDATE_ORDER_BY = ['id', 'name', 'username', 'created_at', 'updated_at', 'path'];

async function assertOtherOrderingsRefused(t: CheckContext, target: KeysetTarget): Promise<void> {
  const orders = target.row.orders;
  if (orders.some((o) => o.order_by === null)) return; // no ordering applies: nothing to refuse
  for (const orderBy of CANDIDATE_ORDER_BY) {
    for (const sort of ['asc', 'desc'] as const) {
      if (allowsOrdering(target.row, orderBy, sort)) continue;
      const res = await t.http.get(target.path, {
        headers: target.headers,
        query: { pagination: 'keyset', order_by: orderBy, sort },
      });
      expectOrderingRefused(t, target.row, orderBy, sort, res.status);
    }
  }
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Records served in one walk, in the order served: none twice, each after the one before by
 * order_by and sort (PAG-KEYSET-ROWS). Shared with the proxy, which holds a page to the last row
 * of the page whose next link led to it.
 */
export function expectRowsOnceInOrder(
  t: CheckContext,
  items: Record<string, unknown>[],
  order: KeysetOrder,
  what: string,
): void {
  const seen = new Set<string>();
  const repeated = items.map(key).find((k) => seen.size === seen.add(k).size);
  t.expect(repeated === undefined, `${what}: a record appears twice`, { record: repeated, rules: ['PAG-KEYSET-ROWS'] });
  if (order.order_by === null) return;
  const field = order.order_by;
  const sign = order.sort === 'desc' ? -1 : 1;
  // An id is an integer however written (a decimal string too: integerId); other fields as served.
  const value = (item: Record<string, unknown>) => (field === 'id' ? (integerId(item.id) ?? item.id) : item[field]);
  const at = items.findIndex((item, i) => i > 0 && sign * compare(value(items[i - 1]), value(item)) > 0);
  t.expect(at < 0, `${what}: records ${at} and ${at + 1} are out of order by ${field} ${order.sort}`, {
    before: at > 0 ? items[at - 1][field] : null,
    after: at > 0 ? items[at][field] : null,
    rules: ['PAG-KEYSET-ROWS'],
  });
}

/**
 * The total an offset request reports for the same collection, when it reports one the headers
 * agree on: at per_page=1, x-total-pages must say the same. A total they contradict proves nothing
 * about the keyset rows (the header is PAG-OFFSET-HEADERS', judged by pagination.offset-headers).
 */
async function offsetTotal(t: CheckContext, target: KeysetTarget): Promise<number | null> {
  const res = await t.http.get(target.path, { headers: target.headers, query: { per_page: 1, page: 1 } });
  if (res.status !== 200) return null;
  const total = numberHeader(res, 'x-total');
  const pages = numberHeader(res, 'x-total-pages');
  return total !== null && Number.isInteger(total) && (pages === total || (total === 0 && pages === 1)) ? total : null;
}

function rowsCheck(row: KeysetRow): Check {
  return {
    id: `pagination.keyset-rows-${kebab(row.operationId)}`,
    suite: 'pagination',
    needs: ['restApi'],
    title: `keyset pagination of ${row.operationId} visits every record once, ordered by order_by and sort, for any per_page`,
    rules: ['PAG-KEYSET-ROWS'],
    async run(t: CheckContext) {
      const target = await resolveRow(t, row);
      const { perPageMax } = limits();
      const references = new Map<KeysetOrder, { keys: string[]; complete: boolean }>();
      const rules: RuleId[] = ['PAG-KEYSET-ROWS'];
      for (const order of row.orders) {
        const what = describe(target, order);
        // A next link on the empty end page is PAG-KEYSET-END's (the protocol check's), not the rows'.
        const walk = await walkKeyset(t, target, order, perPageMax, pagesPerOrder(row), {
          start: rules,
          follow: rules,
          end: ['PAG-KEYSET-END'],
        });
        const items = walk.pages.flatMap((p) => p.items);
        const keys = items.map(key);
        expectRowsOnceInOrder(t, items, order, what);
        // Counted against the whole only where the walk reached the keyset end, an empty page: a
        // page with records and no next link is the protocol check's (PAG-KEYSET-NEXT-LINK / END).
        const ended = walk.complete && walk.pages[walk.pages.length - 1].items.length === 0;
        if (ended) {
          const total = await offsetTotal(t, target);
          if (total !== null)
            t.expect(
              keys.length === total,
              `${what}: the keyset walk saw ${keys.length} records, offset pagination counts ${total}`,
              { seen: keys.length, total },
            );
        }
        references.set(order, { keys, complete: ended });
      }
      await t.property(fc.constantFrom(...row.orders), perPageArb(), async (order, perPage) => {
        const keys = walkKeys(
          await walkKeyset(t, target, order, perPage, PREFIX_PAGES, {
            start: rules,
            follow: rules,
            end: ['PAG-KEYSET-END'],
          }),
        );
        const { keys: reference, complete } = references.get(order)!;
        // Past the end of a reference walk that stopped early there is nothing to compare with.
        const at = (complete ? keys : keys.slice(0, reference.length)).findIndex((k, i) => k !== reference[i]);
        t.expect(
          at < 0,
          `${describe(target, order)} at per_page=${perPage}: record ${at + 1} differs from the same walk at per_page=${perPageMax}`,
          {
            position: at + 1,
            got: keys[at] ?? null,
            expected: reference[at] ?? null,
          },
        );
      });
    },
  };
}

const keysetUnsupported: Check = {
  id: 'pagination.keyset-unsupported-endpoint',
  suite: 'pagination',
  needs: ['restApi'],
  title: 'keyset pagination is not served on an endpoint outside the keyset support table (refused, or offset pages)',
  rules: ['PAG-KEYSET-SELECTED-ENDPOINTS'],
  async run(t: CheckContext) {
    const path = `${projectPath(await reachedFixtureProject(t))}/issues`;
    // A refusal of keyset says something only where the same list is served without it.
    const plain = await t.http.get(path, { headers: await apiHeaders(t) });
    // A crash is the provider's; any other refusal leaves nothing to compare (often the fixture named in the config).
    t.expect(plain.status < 500, `the issues of the fixture project answered ${plain.status} without keyset`, {
      status: plain.status,
      rules: ['ERR-NO-SERVER-ERROR'],
    });
    if (plain.status !== 200)
      t.harness(
        `the issues of the fixture project answered ${plain.status} without keyset, so a refusal of keyset would prove nothing (is fixtures.project readable?)`,
      );
    const asked = { pagination: 'keyset', order_by: 'id', sort: 'desc', per_page: '1' };
    const res = await t.http.get(path, { headers: await apiHeaders(t), query: asked });
    // "Selected endpoints only": keyset is not served here. Refusing (4xx) conforms, and so does
    // ignoring the parameter and serving offset pages as without it; the source says neither.
    const refused = res.status >= 400 && res.status < 500;
    t.expect(
      refused || res.status === 200,
      `keyset pagination of project issues (not in the keyset table) answered ${res.status}, expected a 4xx refusal or offset pages`,
      { status: res.status, rules: ['PAG-KEYSET-SELECTED-ENDPOINTS'] },
    );
    if (refused) return;
    // Offset pages say so: x-page, or a rel=next that moves to page 2. A rel=next that does not is a cursor.
    const next = parseLinkHeader(res.headers.get('link'))?.next?.[0];
    const nextPage = next === undefined ? null : new URL(resolveLink(next, res.url)).searchParams.get('page');
    const offset = res.headers.get('x-page') !== null || nextPage === '2';
    t.expect(
      offset || next === undefined,
      `keyset pagination of project issues (not in the keyset table) was served: 200 without offset headers, rel=next not to page 2`,
      { status: res.status, next: next ?? null, rules: ['PAG-KEYSET-SELECTED-ENDPOINTS'] },
    );
    if (!offset)
      t.harness(
        'project issues with pagination=keyset answered 200 with neither offset headers nor a rel=next link: whether keyset was served cannot be told (does the fixture project hold two issues?)',
      );
  },
};

const usersKeysetEnforced: Check = {
  id: 'pagination.users-offset-limit',
  suite: 'pagination',
  needs: ['restApi'],
  title: 'from 17.0 offset pagination of /users stops at 50,000 records; keyset reaches beyond',
  rules: ['PAG-USERS-KEYSET-ENFORCED'],
  async run(t: CheckContext) {
    if (!t.inForce('PAG-USERS-KEYSET-ENFORCED'))
      t.skip(`PAG-USERS-KEYSET-ENFORCED is not in force at release ${t.release}`);
    const { perPageMax, usersKeysetEnforcedAbove } = limits();
    const headers = await apiHeaders(t);
    const lastAllowed = Math.floor(usersKeysetEnforcedAbove / perPageMax);
    const within = await t.http.get('/api/v4/users', { headers, query: { per_page: perPageMax, page: lastAllowed } });
    if (within.status >= 400 && within.status < 500)
      await skipWhenPastLastRefused(
        t,
        { path: '/api/v4/users', headers, query: {}, perPage: perPageMax },
        usersKeysetEnforcedAbove,
        '/users',
      );
    t.expect(
      within.status === 200,
      `/users at page ${lastAllowed} of ${perPageMax} (within ${usersKeysetEnforcedAbove} records) answered ${within.status}, expected 200`,
      { status: within.status },
    );
    readPage(t, within, '/users within the offset limit', ['PAG-USERS-KEYSET-ENFORCED']);
    const beyond = await t.http.get('/api/v4/users', {
      headers,
      query: { per_page: perPageMax, page: lastAllowed + 1 },
    });
    t.expect(
      beyond.status >= 400 && beyond.status < 500,
      `/users at page ${lastAllowed + 1} of ${perPageMax} (beyond ${usersKeysetEnforcedAbove} records) answered ${beyond.status}, expected a 4xx asking for keyset`,
      {
        status: beyond.status,
      },
    );
    const keyset = await t.http.get('/api/v4/users', {
      headers,
      query: { pagination: 'keyset', order_by: 'id', sort: 'asc', per_page: perPageMax },
    });
    t.expect(keyset.status === 200, `/users with pagination=keyset answered ${keyset.status}, expected 200`, {
      status: keyset.status,
    });
  },
};

export const keysetChecks: Check[] = [
  ...keysetTable().flatMap((row) => [protocolCheck(row), rowsCheck(row)]),
  keysetUnsupported,
  usersKeysetEnforced,
];
