/**
 * The source's keyset support table, read from the `x-keyset` extension of each operation in
 * spec/openapi.yaml: which orderings are allowed, for whom, from which release. The parameter
 * the next link carries follows the source ("id_after or cursor, depending on order_by"):
 * id_after / id_before for order_by=id, an opaque `cursor` for other columns, and page_token
 * where no ordering applies (the repository tree).
 */
import { keysetTable, type KeysetRow, type OperationId } from '../../spec/index.js';

export type CursorParam = 'id_after' | 'id_before' | 'cursor' | 'page_token';

export interface KeysetOrder {
  order_by: string | null;
  sort: 'asc' | 'desc' | null;
  cursor: CursorParam;
}

export interface KeysetSupport extends Omit<KeysetRow, 'orders'> {
  orders: KeysetOrder[];
}

export function cursorParam(orderBy: string | null, sort: 'asc' | 'desc' | null): CursorParam {
  if (orderBy === null) return 'page_token';
  if (orderBy === 'id') return sort === 'desc' ? 'id_before' : 'id_after';
  return 'cursor';
}

let byOperation: Map<OperationId, KeysetSupport> | undefined;

export function keysetSupport(operationId: OperationId): KeysetSupport | undefined {
  byOperation ??= new Map(
    keysetTable().map((row) => [
      row.operationId,
      { ...row, orders: row.orders.map((o) => ({ ...o, cursor: cursorParam(o.order_by, o.sort) })) },
    ]),
  );
  return byOperation.get(operationId);
}

/** Every parameter any next link may carry (dropped from a link before the new one is set). */
export const CURSOR_PARAMS: readonly CursorParam[] = ['id_after', 'id_before', 'cursor', 'page_token'];
