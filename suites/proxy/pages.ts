/**
 * Keyset pages as the client walks them, held to the keyset support table (spec/openapi.yaml
 * `x-keyset`) and to the page before: the keyset checks' own assertions (suites/pagination).
 */
import { inRelease, keysetTable, limits, operation, type KeysetRow } from '../../spec/index.js';
import type { HttpResponse } from '../types.js';
import { jsonValue } from '../shared/json.js';
import { operationOf } from '../diff/operation.js';
import { parseLinkHeader } from '../pagination/links.js';
import { key } from '../pagination/traverse.js';
import type { KeysetOrder } from '../pagination/keyset.js';
import {
  allowsOrdering,
  expectCursorAdded,
  expectOrderingRefused,
  expectRowsOnceInOrder,
} from '../pagination/keyset-checks.js';
import type { Flows, KeysetLast, Observed } from './flows.js';
import { linkedKeys, pageKey } from './urls.js';
import { judgeWith, type Verdict } from './recorder.js';

/** A remembered order key longer than this is not kept (a target chooses it): that page is not judged. */
const MAX_VALUE = 256;

let rows: Map<string, KeysetRow> | undefined;

/** The support table's row of a request path at `release`, by its operation's `GET /template`. */
function keysetRowOf(path: string, release: string): KeysetRow | undefined {
  rows ??= new Map(keysetTable().map((row) => [`GET ${operation(row.operationId).path}`, row]));
  const row = rows.get(operationOf('GET', path));
  // A row not yet (or no longer) in force is no offer: the endpoint may serve offset pages.
  return row && inRelease(row, release) ? row : undefined;
}

/** The ordering a request asks, as the table writes one; only an explicit order_by with sort asc or desc. */
function askedOrder(url: URL): KeysetOrder {
  const orderBy = url.searchParams.get('order_by');
  const sort = url.searchParams.get('sort');
  return orderBy && (sort === 'asc' || sort === 'desc') ? { order_by: orderBy, sort } : { order_by: null, sort: null };
}

/** The last row reduced to what identifies it and orders it; undefined when that is not a few short values. */
function lastRow(row: Record<string, unknown>, order: KeysetOrder): KeysetLast['row'] | undefined {
  const kept: KeysetLast['row'] = {};
  for (const field of ['id', 'path', 'name', ...(order.order_by ? [order.order_by] : [])]) {
    const value = row[field];
    if (typeof value === 'number' || (typeof value === 'string' && value.length <= MAX_VALUE)) kept[field] = value;
    else if (value !== undefined) return undefined;
  }
  // A row known by its whole body (no id, path or name) cannot be recognised from a part of it.
  return key(kept) === key(row) ? kept : undefined;
}

/**
 * The support table's row that offers keyset pages for this request at `release`, if one does:
 * its endpoint has a row in force and the ordering asked (if any) is one the row allows. Elsewhere
 * `pagination=keyset` may be ignored and offset pages served (the source allows that), so no
 * keyset judgement applies.
 */
export function keysetOffer(url: URL, release: string): KeysetRow | undefined {
  const row = keysetRowOf(url.pathname, release);
  if (!row) return undefined;
  const order = askedOrder(url);
  const offered =
    order.order_by === null ||
    row.orders.some((o) => o.order_by === null) ||
    allowsOrdering(row, order.order_by, order.sort!);
  return offered ? row : undefined;
}

/**
 * An ordering the row of the table does not allow, served as keyset (2xx, no offset page) where
 * the source prescribes a 4xx refusal, breaks PAG-KEYSET-SELECTED-ENDPOINTS; one it allows,
 * served, holds to it. Offset pages (x-page) are not judged: they answer an endpoint that ignored
 * the parameter. A row not in force at the release judges nothing.
 */
function judgeOrdering(ex: Observed, url: URL, res: HttpResponse, release: string): Verdict[] {
  const row = keysetRowOf(url.pathname, release);
  const order = askedOrder(url);
  // Where the table gives no ordering (the repository tree) no ordering is refused.
  if (!row || order.order_by === null || row.orders.some((o) => o.order_by === null)) return [];
  const served = ex.status >= 200 && ex.status < 300 && res.headers.get('x-page') === null;
  const refused = ex.status >= 400 && ex.status < 500;
  if (allowsOrdering(row, order.order_by, order.sort!))
    return served
      ? judgeWith((t) =>
          t.soft(true, `keyset ${row.operationId} served an ordering of the table`, {
            rules: ['PAG-KEYSET-SELECTED-ENDPOINTS'],
          }),
        )
      : [];
  return served || refused
    ? judgeWith((t) => expectOrderingRefused(t, row, order.order_by!, order.sort!, ex.status))
    : [];
}

/**
 * A keyset page's rows, after the last row of the page whose forwarded next link led here, once
 * each and in the order asked (PAG-KEYSET-ROWS); its next link adds a cursor (PAG-KEYSET-NEXT-LINK:
 * a page answering with a link to itself does not). The next link is remembered with this page's
 * last row, for the page it leads to.
 */
function judgeRows(ex: Observed, url: URL, res: HttpResponse, flows: Flows): Verdict[] {
  // Offset pages (x-page) answer an endpoint that ignored the parameter: a page number is their link.
  if (res.status !== 200 || !ex.responseBody || res.headers.get('x-page') !== null) return [];
  const body = jsonValue(res);
  if (!Array.isArray(body) || body.length === 0) return []; // the empty end is PAG-KEYSET-END's
  const items = body.filter((r): r is Record<string, unknown> => r !== null && typeof r === 'object');
  if (items.length !== body.length) return [];
  const what = `GET ${url.pathname} (keyset)`;
  const order = askedOrder(url);
  const ordering = `${order.order_by} ${order.sort}`;
  const before = flows.keysetLast.get(pageKey(url), ex.at);
  // A link that changed the ordering is PAG-LINK-FOLLOW's: its page is not this walk's continuation.
  // A page over the cap is PAG-PER-PAGE-MAX's; the rows beyond it are not compared (bounded work).
  const walked = [...(before?.ordering === ordering ? [before.row] : []), ...items.slice(0, limits().perPageMax + 1)];
  const verdicts = walked.length > 1 ? judgeWith((t) => expectRowsOnceInOrder(t, walked, order, what)) : [];
  const next = parseLinkHeader(res.headers.get('link'))?.next?.[0];
  if (next === undefined) return verdicts; // a page of rows without next: the protocol check's
  let linked: URL;
  try {
    linked = new URL(next, url);
  } catch {
    return verdicts; // a malformed target leads nowhere: PAG-LINK-HEADER judges the header
  }
  const asked = Object.fromEntries(
    ['pagination', 'order_by', 'sort'].flatMap((p) => (url.searchParams.has(p) ? [[p, url.searchParams.get(p)!]] : [])),
  );
  verdicts.push(...judgeWith((t) => expectCursorAdded(t, linked.href, url.href, asked, `${what}: its rel=next link`)));
  const last = lastRow(items[items.length - 1], order);
  if (last)
    for (const key of linkedKeys(linked, flows.basePath)) flows.keysetLast.set(key, ex.at, { ordering, row: last });
  return verdicts;
}

/** A request asking for keyset pagination (pagination=keyset), judged against the table and the page before. */
export function judgeKeysetWalk(ex: Observed, url: URL, res: HttpResponse, flows: Flows): Verdict[] {
  if (ex.method !== 'GET' || url.searchParams.get('pagination') !== 'keyset') return [];
  return [...judgeOrdering(ex, url, res, flows.release), ...judgeRows(ex, url, res, flows)];
}
