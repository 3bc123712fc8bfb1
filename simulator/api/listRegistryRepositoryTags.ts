/** GET /api/v4/projects/:id/registry/repositories/:repository_id/tags: by name, keyset asc or desc. */
import { apiError } from '../http.js';
import { dataset } from '../data/index.js';
import { API, endpoint } from './endpoint.js';
import { findProject } from './lookup.js';
import { keyOrdering, paginate } from './pagination.js';
import { renderTag } from './render.js';

export const listRegistryRepositoryTags = endpoint(API, (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  const { records } = dataset(ctx.sim);
  if (ctx.params.repository_id !== String(records.registryRepositoryId(project)))
    return apiError(404, '404 Repository Not Found');
  return paginate(
    ctx,
    {
      orderings: {
        name: keyOrdering(
          records.registryTags(project),
          (t) => t.name,
          (t) => t.name,
        ),
      },
      defaultOrder: { orderBy: 'name', sort: 'asc' },
      render: renderTag,
    },
    caller !== null,
  );
});
