/** DELETE /api/v4/projects/:id/share/:group_id: unshares a project with a group (204). */
import { API, endpoint } from './endpoint.js';
import { findGroup, findProject } from './lookup.js';

export const deleteProjectShare = endpoint(API, (ctx, caller) => {
  // Both must exist (and be visible): a miss throws the 404.
  findProject(ctx, ctx.params.id, caller);
  findGroup(ctx, ctx.params.group_id, caller);
  return new Response(null, { status: 204 });
});
