/** GET /api/v4/projects/:id/audit_events. */
import { dataset } from '../data/index.js';
import { auditEventPage } from './auditEvents.js';
import { API, endpoint } from './endpoint.js';
import { findProject } from './lookup.js';

export const listProjectAuditEvents = endpoint(API, (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  return auditEventPage(ctx, dataset(ctx.sim).records.auditEvents({ kind: 'project', project }), true);
});
