/**
 * Keyset pagination: the source's keyset support table (the `x-keyset` extension of each
 * operation in spec/openapi.yaml), resolved against a target (its fixtures and release), and walks
 * that follow rel=next to the empty end.
 */
import { inRelease, keysetTable, operation, type KeysetRow } from '../../spec/index.js';
import { apiHeaders, reachedFixtureProject } from '../shared/api.js';
import { fillPath } from './collections.js';
import type { CheckContext, HttpResponse } from '../types.js';
import { key } from './offset.js';
import { parseLinkHeader, resolveLink } from './links.js';
import { followNext, redact, rel, type Page, type WalkRules } from './traverse.js';

export type KeysetOrder = KeysetRow['orders'][number];
export { keysetTable, type KeysetRow };

/**
 * Pages one row's walks at per_page = max may read in all, shared by its orderings; a walk that
 * runs out settles for a prefix. Enough to reach the end of every fixture collection but the
 * huge ones (instance and group audit events, users), whose end other rows prove.
 */
const ROW_PAGE_BUDGET = 32;

export function pagesPerOrder(row: KeysetRow): number {
  return Math.max(4, Math.floor(ROW_PAGE_BUDGET / row.orders.length));
}

/** A row as this target exposes it: a concrete path and the credentials its Who column asks for. */
export interface KeysetTarget {
  row: KeysetRow;
  path: string;
  headers: Record<string, string>;
}

/**
 * Fill the operation's path from the target's fixtures; skip (with the reason) when the row is
 * not in force at this release or the target names no fixture for one of its parameters.
 */
export async function resolveRow(t: CheckContext, row: KeysetRow): Promise<KeysetTarget> {
  const op = operation(row.operationId);
  if (!inRelease(row, t.release) || !inRelease(op, t.release))
    t.skip(`keyset on ${row.operationId} is not in force at release ${t.release}`);
  const filled = fillPath(t, op);
  if ('missing' in filled) t.skip(filled.missing);
  const { path } = filled;
  // A project's collection is reached by the project's encoded path: refused, that is ENC-NAMESPACED-PATH's.
  if (op.path.startsWith('/api/v4/projects/{id}')) await reachedFixtureProject(t);
  const headers = row.who === 'unauthenticated' ? {} : await apiHeaders(t);
  return { row, path, headers };
}

export function keysetQuery(order: KeysetOrder, perPage?: number | string): Record<string, string | number> {
  const query: Record<string, string | number> = { pagination: 'keyset' };
  if (perPage !== undefined) query.per_page = perPage;
  if (order.order_by !== null) query.order_by = order.order_by;
  if (order.sort !== null) query.sort = order.sort;
  return query;
}

export function describe(target: KeysetTarget, order: KeysetOrder): string {
  const ordering = order.order_by === null ? 'no ordering' : `order_by=${order.order_by}&sort=${order.sort}`;
  return `keyset ${target.row.operationId} (${ordering})`;
}

export async function firstKeysetPage(
  t: CheckContext,
  target: KeysetTarget,
  order: KeysetOrder,
  perPage?: number | string,
): Promise<HttpResponse> {
  return t.http.get(target.path, { headers: target.headers, query: keysetQuery(order, perPage) });
}

export interface KeysetWalk {
  pages: Page[];
  /** The last page read had no rel=next. */
  complete: boolean;
}

export async function walkKeyset(
  t: CheckContext,
  target: KeysetTarget,
  order: KeysetOrder,
  perPage: number | undefined,
  maxPages: number,
  rules: WalkRules,
): Promise<KeysetWalk> {
  const first = await servedKeysetPage(t, target, order, perPage, rules);
  return followNext(t, first, { maxPages, headers: target.headers, what: describe(target, order), rules });
}

/** The first page of a keyset walk, once it shows the endpoint serves keyset (else failed or skipped). */
export async function servedKeysetPage(
  t: CheckContext,
  target: KeysetTarget,
  order: KeysetOrder,
  perPage: number | undefined,
  rules: WalkRules,
): Promise<HttpResponse> {
  const first = await firstKeysetPage(t, target, order, perPage);
  const what = describe(target, order);
  // The premise of every keyset rule of the row: the endpoint serves keyset. Not served is the
  // row's failure, reported once by the protocol walk (its start rules are the row's); what else
  // walks it (the rows check) is untested, not failed on its own rules.
  const why = notServed(first);
  if (why) {
    const message = `${what} ${why}`;
    if (rules.start.every((r) => target.row.rules.includes(r)))
      t.fail(message, { url: redact(first.url), status: first.status, rules: target.row.rules });
    t.skip(
      `${message}; the endpoint serves no keyset pages (the protocol check reports it on ${target.row.rules.join(', ')})`,
    );
  }
  return first;
}

/**
 * Why a first keyset page shows the endpoint does not serve keyset, or undefined: refused, or
 * answered as offset pages (an instance where keyset is off for the resource ignores the
 * parameter): `x-page` and a rel=next that only turns the page, adding no cursor. A keyset page
 * that merely carries a stray offset header still adds its cursor (PAG-KEYSET-NO-OFFSET-HEADERS).
 */
function notServed(first: HttpResponse): string | undefined {
  if (first.status !== 200) return `answered ${first.status}, expected 200`;
  const page = first.headers.get('x-page');
  const next = page === null ? undefined : parseLinkHeader(first.headers.get('link'))?.next?.[0];
  if (next === undefined) return undefined;
  const to = new URL(resolveLink(next, first.url)).searchParams;
  const own = new URL(first.url).searchParams;
  const cursor = [...to.keys()].some(
    (name) => name !== 'page' && name !== 'per_page' && to.get(name) !== own.get(name),
  );
  if (cursor) return undefined;
  return `answered offset pages (x-page ${page}, rel=next to page ${to.get('page') ?? '?'} adds no cursor): pagination=keyset was ignored`;
}

/** Keys of every record of a walk, in the order served. */
export function walkKeys(walk: KeysetWalk): string[] {
  return walk.pages.flatMap((p) => p.items.map(key));
}

/** The next link of a page, or undefined. */
export function nextOf(t: CheckContext, page: Page): string | undefined {
  return rel(t, page, 'next');
}
