/**
 * The one pagination module every REST list goes through: offset and keyset, their headers and
 * the Link header (absolute URLs that keep the request's other parameters; never `Links`).
 *
 * Out-of-range values (rule PAG-INVALID-PARAMS, PAG-PER-PAGE-MAX): per_page above
 * limits().perPageMax is clamped to it; a per_page that is not a positive integer (abc, 0, -5,
 * 2.5) falls back to limits().perPageDefault; a page that is not a positive integer falls back to
 * 1. The real service clamps per_page the same way and reads page <= 0 as the first page; for
 * garbage values we follow the team's rule (fall back, never fail), which keeps a sloppy client
 * working.
 *
 * Costs: an offset page reads `per_page` records by position, O(per_page); a keyset page finds
 * its cursor by binary search over the ordered sequence, O(log n + per_page) at any depth.
 */
import { limits } from '../../spec/index.js';
import { apiError, json, jsonText, type Answer } from '../http.js';
import { ApiError } from '../errors.js';
import { lowerBound, reversed, take, type Seq } from '../data/seq.js';
import type { Ctx } from '../types.js';
import { CURSOR_PARAMS, cursorParam, keysetSupport, type KeysetOrder } from './keyset-table.js';
import { ParamError } from './params.js';

export type SortDir = 'asc' | 'desc';

/** The position of a record in an ordering: its key, then a unique tie-breaker. */
export interface Cursor {
  k: string | number;
  id: string | number;
}

export interface Ordering<T> {
  /** Records ascending by (key, tie). */
  seq: Seq<T>;
  cursorOf(item: T): Cursor;
}

export interface Listing<T> {
  /** Orderings by order_by value. */
  orderings: Record<string, Ordering<T>>;
  /** The ordering of a request that names none. */
  defaultOrder: { orderBy: string; sort: SortDir };
  render: (item: T) => unknown;
  /** The item's JSON text, where it is kept rendered (then `render` is not called). */
  renderText?: (item: T) => string;
  /** Offset requests reaching beyond this many records are refused (the /users rule from 17.0). */
  offsetRecordLimit?: number;
}

export interface Pagination {
  perPage: number;
  page: number;
}

function positiveInt(raw: string | null): number | null {
  // Stryker disable next-line ConditionalExpression: test(null) reads "null", which the pattern refuses too
  if (raw === null || !/^\s*\+?\d+\s*$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 1 ? n : null;
}

export function pageParams(ctx: Ctx): Pagination {
  const { perPageDefault, perPageMax } = limits();
  const asked = positiveInt(ctx.query.get('per_page')) ?? perPageDefault;
  const perPage = ctx.sim.fault('per-page-not-clamped') ? asked : Math.min(asked, perPageMax);
  const pageAsked = ctx.query.get('page');
  // The fault moves only the missing page; an invalid one still falls back to 1 (PAG-INVALID-PARAMS).
  const page = positiveInt(pageAsked) ?? (pageAsked === null && ctx.sim.fault('page-default-not-first') ? 2 : 1);
  return { perPage, page };
}

function compareCursor(a: Cursor, b: Cursor): number {
  // Stryker disable next-line EqualityOperator: < and <= agree once the values differ
  if (a.k !== b.k) return a.k < b.k ? -1 : 1;
  // Stryker disable next-line EqualityOperator: < and <= agree once the values differ
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

/**
 * Absolute URL of this request with some parameters replaced (in place, at their first
 * occurrence) or removed, the others kept in order and as the request spelled them: re-encoding
 * them could triple a query (`!` becomes `%21`) and push the Link of a URL within maxUrlLength past
 * its bound (LIM-RESPONSE-HEADERS-BOUNDED).
 */
export function linkUrl(ctx: Ctx, set: Record<string, string>, drop?: readonly string[]): string {
  const sent = ctx.sim.fault('link-drops-params') ? [] : ctx.url.search.slice(1).split('&');
  const replaced = new Set<string>();
  const params: string[] = [];
  for (const param of sent) {
    const name = new URLSearchParams(param).keys().next().value;
    if (name === undefined || drop?.includes(name)) continue;
    if (!Object.hasOwn(set, name)) params.push(param);
    else if (!replaced.has(name)) {
      replaced.add(name);
      params.push(pair(name, set[name]));
    }
  }
  for (const [name, value] of Object.entries(set)) if (!replaced.has(name)) params.push(pair(name, value));
  return `${ctx.origin}${ctx.rawPath}?${params.join('&')}`;
}

const pair = (name: string, value: string) => new URLSearchParams({ [name]: value }).toString();

/** The Link header of one or more links (every page has at least one). */
function linkHeader(ctx: Ctx, links: [string, string][]): Record<string, string> {
  const value = links.map(([rel, url]) => `<${url}>; rel="${rel}"`).join(', ');
  // LIM-RESPONSE-HEADERS-BOUNDED: the Link echoes the query up to four times; one past the bound
  // is refused before it is sent. LIM-MAX-URL-LENGTH (a must) serves every URL within
  // maxUrlLength, so the bound is never below what four such URLs make.
  const fromUrlLimit = 4 * (ctx.sim.options.settings.maxUrlLength + ctx.origin.length + 64);
  const max = Math.max(limits().responseHeaderMaxBytes, fromUrlLimit);
  if (Buffer.byteLength(value) > max)
    throw new ApiError(
      414,
      `414 Request-URI Too Large: the query is too long to repeat in the Link header (over ${max} bytes); shorten it`,
    );
  return { link: value };
}

function finish<T>(ctx: Ctx, listing: Listing<T>, items: T[], headers: Record<string, string>): Answer {
  if (ctx.sim.fault('link-header-dropped')) delete headers.link;
  if (ctx.sim.fault('links-header-present') && headers.link) headers.links = headers.link;
  // The array's text from each item's (the same bytes JSON.stringify of the whole would give).
  if (listing.renderText) return jsonText(200, `[${items.map(listing.renderText).join(',')}]`, headers);
  return json(200, items.map(listing.render), headers);
}

function orderingOf<T>(ctx: Ctx, listing: Listing<T>): { ordering: Ordering<T>; sort: SortDir } {
  const orderBy = ctx.query.get('order_by') ?? listing.defaultOrder.orderBy;
  const sort = ctx.query.get('sort') ?? listing.defaultOrder.sort;
  const ordering = listing.orderings[orderBy];
  if (!ordering)
    throw new ParamError(`order_by does not have a valid value (one of ${Object.keys(listing.orderings).join(', ')})`);
  if (sort !== 'asc' && sort !== 'desc') throw new ParamError('sort does not have a valid value (asc or desc)');
  return { ordering, sort };
}

function directed<T>(ordering: Ordering<T>, sort: SortDir): Seq<T> {
  return sort === 'asc' ? ordering.seq : reversed(ordering.seq);
}

/** Answer a list request: offset by default, keyset when pagination=keyset. */
export function paginate<T>(ctx: Ctx, listing: Listing<T>, authenticated: boolean): Answer {
  const mode = ctx.query.get('pagination');
  if (mode === 'keyset') return keyset(ctx, listing, authenticated);
  if (mode !== null && mode !== 'offset')
    return apiError(400, 'pagination does not have a valid value (offset or keyset)');
  return offset(ctx, listing);
}

function offset<T>(ctx: Ctx, listing: Listing<T>): Answer {
  const chosen = orderingOf(ctx, listing);
  const { page, perPage } = pageParams(ctx);
  const start = (page - 1) * perPage;
  if (page * perPage > (listing.offsetRecordLimit ?? Infinity)) {
    return apiError(
      400,
      `Offset pagination is limited to ${listing.offsetRecordLimit} records for this endpoint. Use keyset pagination (pagination=keyset) for the remaining records.`,
    );
  }
  const { maxOffset } = ctx.sim.options.settings;
  if (start > maxOffset && !ctx.sim.fault('max-offset-ignored')) {
    return apiError(
      400,
      `Offset pagination has a maximum allowed offset of ${maxOffset}. Use keyset pagination, or narrow the query, to read further.`,
    );
  }
  const seq = directed(chosen.ordering, chosen.sort);
  const total = seq.length;
  const items = take(seq, start, perPage);
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  const hasNext = start + perPage < total;
  const hasPrev = page > 1;
  const hosted = ctx.sim.options.offering === 'hosted';
  const totalsShown = (total <= limits().paginationTotalsMax || ctx.sim.fault('totals-not-omitted')) && !hosted;

  const headers: Record<string, string> = {
    'x-page': String(ctx.sim.fault('x-page-zero-based') ? page - 1 : page),
    'x-per-page': String(perPage),
    'x-next-page': hasNext ? String(page + 1) : '',
    'x-prev-page': hasPrev ? String(page - 1) : '',
  };
  if (totalsShown) {
    headers['x-total'] = String(ctx.sim.fault('x-total-off-by-one') ? total + 1 : total);
    headers['x-total-pages'] = String(totalPages);
  }
  const per = String(perPage);
  const links: [string, string][] = [];
  if (hasPrev) links.push(['prev', linkUrl(ctx, { page: String(Math.min(page - 1, totalPages)), per_page: per })]);
  if (hasNext) links.push(['next', linkUrl(ctx, { page: String(page + 1), per_page: per })]);
  links.push(['first', linkUrl(ctx, { page: '1', per_page: per })]);
  if (totalsShown) links.push(['last', linkUrl(ctx, { page: String(totalPages), per_page: per })]);
  Object.assign(headers, linkHeader(ctx, links));
  return finish(ctx, listing, items, headers);
}

function encodeCursor(order: KeysetOrder, c: Cursor): string {
  if (order.cursor === 'id_after' || order.cursor === 'id_before') return String(c.id);
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeCursor(order: KeysetOrder, raw: string): Cursor | null {
  if (order.cursor === 'id_after' || order.cursor === 'id_before') {
    if (!/^\d+$/.test(raw)) return null;
    const id = Number(raw);
    return { k: id, id };
  }
  try {
    const c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
    const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number';
    return c && scalar(c.k) && scalar(c.id) ? { k: c.k, id: c.id } : null;
  } catch {
    return null;
  }
}

function keyset<T>(ctx: Ctx, listing: Listing<T>, authenticated: boolean): Answer {
  const support = keysetSupport(ctx.op.operationId);
  if (!support || !ctx.sim.inForce(support)) {
    return apiError(400, 'Keyset pagination is not supported for this endpoint (see the keyset support table)');
  }
  if (support.who === 'unauthenticated' && authenticated) {
    return apiError(400, 'Keyset pagination is available on this endpoint to unauthenticated requests only');
  }
  if (support.who === 'authenticated' && !authenticated) {
    return apiError(400, 'Keyset pagination is available on this endpoint to authenticated requests only');
  }
  const orderBy = ctx.query.get('order_by');
  const sort = ctx.query.get('sort');
  let order = support.orders.find((o) =>
    o.order_by === null ? orderBy === null || orderBy === '' : o.order_by === orderBy && o.sort === sort,
  );
  if (
    !order &&
    ctx.sim.fault('keyset-any-order') &&
    orderBy &&
    listing.orderings[orderBy] &&
    (sort === 'asc' || sort === 'desc')
  ) {
    order = { order_by: orderBy, sort, cursor: cursorParam(orderBy, sort) };
  }
  if (!order) {
    const allowed = support.orders
      .map((o) => (o.order_by ? `order_by=${o.order_by}&sort=${o.sort}` : 'no order_by'))
      .join(', ');
    return apiError(
      400,
      `This combination of order_by and sort is not supported with keyset pagination here; allowed: ${allowed}`,
    );
  }
  const ordering = listing.orderings[order.order_by ?? listing.defaultOrder.orderBy];
  const dir: SortDir = order.sort ?? listing.defaultOrder.sort;
  const { perPage } = pageParams(ctx);
  const seq = directed(ordering, dir);

  let start = 0;
  const raw = ctx.query.get(order.cursor);
  if (raw !== null) {
    const cursor = decodeCursor(order, raw);
    if (!cursor) return apiError(400, `${order.cursor} is invalid`);
    const sign = dir === 'asc' ? 1 : -1;
    // first record strictly beyond the cursor in this direction
    start = lowerBound(seq, (item) => sign * compareCursor(ordering.cursorOf(item), cursor) <= 0);
    if (ctx.sim.fault('keyset-duplicate-row') && start > 0) start -= 1;
  }
  const items = take(seq, start, perPage);
  const headers: Record<string, string> = {};
  const last = items[items.length - 1];
  // A next link follows every non-empty page; past the last record the page is empty and carries
  // no Link at all (PAG-KEYSET-END).
  const nextCursor =
    last !== undefined
      ? ordering.cursorOf(last)
      : ctx.sim.fault('keyset-end-next-link') && raw
        ? decodeCursor(order, raw)
        : null;
  if (nextCursor) {
    const url = linkUrl(ctx, { [order.cursor]: encodeCursor(order, nextCursor), per_page: String(perPage) }, [
      ...CURSOR_PARAMS,
      'page',
    ]);
    Object.assign(headers, linkHeader(ctx, [['next', url]]));
  }
  if (ctx.sim.fault('keyset-offset-headers')) {
    // x-per-page alone: the one a keyset page could be mistaken to need (it has a page size).
    headers['x-per-page'] = String(perPage);
  }
  return finish(ctx, listing, items, headers);
}

/** An ordering by a numeric id (the sequence is ascending by id). */
export function idOrdering<T>(seq: Seq<T>, id: (item: T) => number): Ordering<T> {
  return { seq, cursorOf: (item) => ({ k: id(item), id: id(item) }) };
}

/** An ordering by a key with a unique tie-breaker (the sequence is ascending by both). */
export function keyOrdering<T>(
  seq: Seq<T>,
  key: (item: T) => string | number,
  tie: (item: T) => string | number,
): Ordering<T> {
  return { seq, cursorOf: (item) => ({ k: key(item), id: tie(item) }) };
}
