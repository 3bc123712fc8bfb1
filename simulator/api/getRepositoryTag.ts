/** GET /api/v4/projects/:id/repository/tags/:tag_name (`release/2024.01` arrives as `release%2F2024.01`). */
import { apiError, json } from '../http.js';
import { TAGS } from '../data/tree.js';
import { endpoint, PUBLIC_READ } from './endpoint.js';
import { findProject } from './lookup.js';
import { commitId } from './repository.js';

export const getRepositoryTag = endpoint(PUBLIC_READ, (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  const name = ctx.params.tag_name;
  if (!TAGS.includes(name)) return apiError(404, '404 Tag Not Found');
  return json(200, {
    name,
    message: `Release ${name}`,
    target: commitId(ctx, project, name),
    commit: { id: commitId(ctx, project, name) },
    release: null,
    protected: false,
  });
});
