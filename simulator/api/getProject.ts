/** GET /api/v4/projects/:id, by numeric id or URL-encoded namespaced path. */
import { json } from '../http.js';
import { endpoint, PUBLIC_READ } from './endpoint.js';
import { findProject } from './lookup.js';
import { renderProject } from './render.js';

export const getProject = endpoint(PUBLIC_READ, (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  return json(200, renderProject(ctx, project));
});
