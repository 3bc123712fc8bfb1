/** DELETE /api/v4/projects/:id/share/:group_id: unshares a project with a group (204). */
import { API, endpoint } from './endpoint.js';
import { findGroup, findProject } from './lookup.js';
import { isAnswer, Reply } from '../http.js';

export const deleteProjectShare = endpoint(API, (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  if (isAnswer(project)) return project;
  const group = findGroup(ctx, ctx.params.group_id, caller);
  if (isAnswer(group)) return group;
  return new Reply(204, null);
});
