/**
 * The source's keyset support table, read from the `x-keyset` extension of each operation in
 * spec/openapi.yaml: which orderings are allowed, for whom, from which release. The parameter
 * the next link carries follows the source ("id_after or cursor, depending on order_by"):
 * id_after / id_before for order_by=id, an opaque `cursor` for other columns, and page_token
 * where no ordering applies (the repository tree).
 */
import { operation } from '../../spec/index.js';

export type Who = 'authenticated' | 'unauthenticated' | 'both';
export type CursorParam = 'id_after' | 'id_before' | 'cursor' | 'page_token';

export interface KeysetOrder {
  order_by: string | null;
  sort: 'asc' | 'desc' | null;
  cursor: CursorParam;
}

export interface KeysetSupport {
  who: Who;
  since?: string;
  until?: string;
  rule?: string;
  orders: KeysetOrder[];
}

interface XKeyset {
  orderBy: string[];
  sort: ('asc' | 'desc')[];
  who: Who;
  since?: string;
  until?: string;
  rule?: string;
}

export function cursorParam(orderBy: string | null, sort: 'asc' | 'desc' | null): CursorParam {
  if (orderBy === null) return 'page_token';
  if (orderBy === 'id') return sort === 'desc' ? 'id_before' : 'id_after';
  return 'cursor';
}

const cache = new Map<string, KeysetSupport | undefined>();

export function keysetSupport(operationId: string): KeysetSupport | undefined {
  if (!cache.has(operationId)) {
    const x = (operation(operationId).raw as Record<string, unknown>)['x-keyset'] as XKeyset | undefined;
    cache.set(
      operationId,
      x && {
        who: x.who,
        since: x.since,
        until: x.until,
        rule: x.rule,
        orders:
          x.orderBy.length === 0
            ? [{ order_by: null, sort: null, cursor: 'page_token' }]
            : x.orderBy.flatMap((o) => x.sort.map((s) => ({ order_by: o, sort: s, cursor: cursorParam(o, s) }))),
      },
    );
  }
  return cache.get(operationId);
}

/** Every parameter any next link may carry (dropped from a link before the new one is set). */
export const CURSOR_PARAMS: readonly CursorParam[] = ['id_after', 'id_before', 'cursor', 'page_token'];
