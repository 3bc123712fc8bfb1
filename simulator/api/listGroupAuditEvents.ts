/** GET /api/v4/groups/:id/audit_events. */
import { dataset } from '../data/index.js';
import { auditEventPage } from './auditEvents.js';
import { API, endpoint } from './endpoint.js';
import { findGroup } from './lookup.js';

export const listGroupAuditEvents = endpoint(API, (ctx, caller) => {
  const group = findGroup(ctx, ctx.params.id, caller);
  const { records, catalog } = dataset(ctx.sim);
  return auditEventPage(
    ctx,
    records.auditEvents({ kind: 'group', group, count: catalog.groups.auditEvents(group) }),
    true,
  );
});
