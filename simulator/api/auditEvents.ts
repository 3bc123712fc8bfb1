/** The three audit event lists share one listing: newest first, keyset by id desc. */
import type { Seq } from '../data/seq.js';
import type { AuditEventRec } from '../data/records.js';
import type { Ctx } from '../types.js';
import { idOrdering, paginate } from './pagination.js';
import { renderAuditEvent } from './render.js';
import type { Answer } from '../http.js';

export function auditEventPage(ctx: Ctx, events: Seq<AuditEventRec>, authenticated: boolean): Answer {
  return paginate(
    ctx,
    {
      orderings: { id: idOrdering(events, (e) => e.id) },
      defaultOrder: { orderBy: 'id', sort: 'desc' },
      render: renderAuditEvent,
    },
    authenticated,
  );
}
