/**
 * Offset pagination: walking a collection from its first page and reading what each page says
 * about itself (x-* headers, Link relations). Checks assert on the observation; the walk itself
 * only fails on what makes every observation meaningless (not 200, not an array, broken Link).
 */
import { limits, type OperationId, type RuleId } from '../../spec/index.js';
import { apiHeaders, jsonValue } from '../shared/api.js';
import { fillPath, paginatedOperations } from './collections.js';
import { numberHeader } from './links.js';
import type { CheckContext } from '../types.js';
import {
  expectKeepsParams,
  followNext,
  key,
  followLink,
  readPage,
  rel,
  type Page,
  type WalkRules,
} from './traverse.js';

export { key };

/** Pages read by rel=next before a walk stops and jumps to rel=last: keeps every run short. */
export const MAX_WALK_PAGES = 8;
/** Pages read to learn a collection whole at per_page = max (the reference order). */
const MAX_REFERENCE_PAGES = 30;

export interface OffsetCollection {
  name: string;
  path: string;
  /**
   * Parameters every request of a walk carries: a non-default ordering, so a Link that drops
   * the request's parameters (instead of keeping them) shows in the records it leads to.
   */
  query: Record<string, string>;
  /** Headers that authenticate the requests (empty for anonymous collections). */
  headers: Record<string, string>;
}

/**
 * Extra parameters of some collections: a non-default ordering, so a Link that drops the
 * request's parameters shows in the records it leads to (and in the Link itself).
 */
const ORDERED: Partial<Record<OperationId, Record<string, string>>> = {
  listProjectIssues: { order_by: 'created_at', sort: 'asc' },
  listGroups: { order_by: 'id', sort: 'desc' },
};

/**
 * The offset collections the checks walk: every paginated operation this target exposes (its
 * fixtures fill the path, and its first page answers 200 to the API credentials), the fixture
 * project's issues first.
 */
export async function offsetCollections(t: CheckContext): Promise<OffsetCollection[]> {
  const headers = await apiHeaders(t);
  const found: OffsetCollection[] = [];
  const empty: string[] = [];
  for (const op of paginatedOperations(t)) {
    const filled = fillPath(t, op);
    if ('missing' in filled) continue;
    const collection = { name: op.operationId, path: filled.path, query: ORDERED[op.operationId] ?? {}, headers };
    const probe = await t.http.get(collection.path, { headers, query: { ...collection.query, per_page: 1, page: 1 } });
    if (probe.status !== 200) continue;
    // An empty collection has no page to walk: what a walk of it passed would be unseen.
    const items = jsonValue(probe);
    if (Array.isArray(items) && items.length > 0) found.push(collection);
    else empty.push(op.operationId);
  }
  found.sort((a, b) => Number(b.name === 'listProjectIssues') - Number(a.name === 'listProjectIssues'));
  if (found.length === 0)
    t.skip(
      empty.length
        ? `every paginated collection of this target that answers the API credentials is empty (${empty.join(', ')})`
        : 'no paginated collection of this target answers the API credentials',
    );
  return found;
}

/** The per_page a server should apply: the default when absent, capped at the maximum. */
export function effectivePerPage(perPage: number | undefined): number {
  const { perPageDefault, perPageMax } = limits();
  return perPage === undefined ? perPageDefault : Math.min(perPage, perPageMax);
}

export interface OffsetWalk {
  /** Pages 1..n read through rel=next. */
  pages: Page[];
  /** Page n had no rel=next. */
  complete: boolean;
  /** When the walk stopped early: the page behind page 1's rel=last (if it had one). */
  last?: Page;
}

export async function walkOffset(
  t: CheckContext,
  collection: OffsetCollection,
  query: Record<string, string | number>,
  rules: WalkRules,
  maxPages = MAX_WALK_PAGES,
  jumpToLast = true,
): Promise<OffsetWalk> {
  const first = await t.http.get(collection.path, {
    headers: collection.headers,
    query: { ...collection.query, ...query },
  });
  const walk = await followNext(t, first, { maxPages, headers: collection.headers, what: collection.name, rules });
  if (walk.complete || !jumpToLast) return walk;
  // Above the totals limit there is no rel=last to follow (PAG-TOTALS-OMITTED, judged by
  // totals-omitted); one sent there may lead past the maximum offset, which says nothing of this walk.
  const total = numberHeader(first, 'x-total');
  if (total !== null && total > limits().paginationTotalsMax) return walk;
  const lastUrl = rel(t, walk.pages[0], 'last');
  if (lastUrl === undefined) return walk;
  expectKeepsParams(t, lastUrl, first.url, `rel=last of ${collection.name}`);
  const last = readPage(
    t,
    await followLink(t, lastUrl, `rel=last of ${collection.name}`, collection.headers),
    `rel=last of ${collection.name}`,
    rules.follow,
  );
  return { ...walk, last };
}

/**
 * The whole collection in the server's order, at per_page = max; null when it is too big to
 * learn whole (then checks that need it leave that collection out). Fails when it repeats a
 * record: the reference must itself be a partition.
 */
export async function referenceOrder(t: CheckContext, collection: OffsetCollection): Promise<string[] | null> {
  const rules: RuleId[] = ['PAG-OFFSET-ROWS'];
  const walk = await walkOffset(
    t,
    collection,
    { per_page: limits().perPageMax, page: 1 },
    { start: rules, follow: rules },
    MAX_REFERENCE_PAGES,
    // An incomplete reference is dropped anyway: rel=last is not followed (above the totals limit
    // it may lead past the maximum offset, which is no fault of the rows).
    false,
  );
  if (!walk.complete) return null;
  const keys = walk.pages.flatMap((p) => p.items.map(key));
  // One pass with a set: up to MAX_REFERENCE_PAGES × per_page keys, an indexOf per key would be quadratic.
  const seen = new Set<string>();
  const repeated = keys.find((k) => {
    if (seen.has(k)) return true;
    seen.add(k);
    return false;
  });
  t.expect(repeated === undefined, `${collection.name} at per_page=${limits().perPageMax} lists a record twice`, {
    record: repeated,
    rules,
  });
  return keys;
}

/**
 * The collections small enough to learn whole, with their reference order, the first `wanted` of
 * them (a check that walks one need not read every collection whole); skips when there is none.
 */
export async function learnedCollections(
  t: CheckContext,
  collections: OffsetCollection[],
  wanted = Infinity,
): Promise<Array<{ collection: OffsetCollection; reference: string[] }>> {
  const learned = [];
  for (const collection of collections) {
    if (learned.length >= wanted) break;
    const reference = await referenceOrder(t, collection);
    if (reference) learned.push({ collection, reference });
  }
  if (learned.length === 0)
    t.skip(
      `every offset collection holds more than ${MAX_REFERENCE_PAGES} pages of ${limits().perPageMax}; too big to walk whole`,
    );
  return learned;
}

/**
 * The premise of reading a limit from a refusal of a page past the end of a collection (a maximum
 * offset, the /users offset limit): this target serves a page past the last within the limit, as
 * the real service does (200, an empty list; the source does not say). One that refuses such a
 * page refuses alike within the limit and beyond it, which says nothing of where the limit lies:
 * the check is skipped, saying so. Asked only after a refusal within the limit.
 */
export async function skipWhenPastLastRefused(
  t: CheckContext,
  asked: { path: string; headers: Record<string, string>; query: Record<string, string>; perPage: number },
  limit: number,
  what: string,
): Promise<void> {
  const { path, headers, query, perPage } = asked;
  const first = await t.http.get(path, { headers, query: { ...query, per_page: perPage, page: 1 } });
  const pages = first.status === 200 ? numberHeader(first, 'x-total-pages') : null;
  // Past the last and still within the limit, or it proves nothing.
  if (pages === null || Number.isNaN(pages) || pages * perPage > limit) return;
  const past = await t.http.get(path, { headers, query: { ...query, per_page: perPage, page: pages + 1 } });
  if (past.status >= 400 && past.status < 500)
    t.skip(
      `${what} refuses page ${pages + 1} at per_page ${perPage}, past its last page ${pages} and within the limit ${limit} (${past.status}): a refusal at the limit cannot be told from that one (what a page past the last answers is not shown)`,
    );
}

/** Where the spec lets the offering omit pagination headers ("The hosted offering may omit some pagination headers"). */
export function headersMayBeOmitted(t: CheckContext): boolean {
  return t.inForce('PAG-HOSTED-HEADERS-OMITTED');
}
