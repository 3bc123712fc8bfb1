/** GET /api/v4/projects/:id/feature_flags; the `version` field is gone from its removal release. */
import { dataset } from '../data/index.js';
import { API, endpoint } from './endpoint.js';
import { findProject } from './lookup.js';
import { keyOrdering, paginate } from './pagination.js';
import { renderFeatureFlag } from './render.js';

export const listFeatureFlags = endpoint(API, (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  const flags = dataset(ctx.sim).records.featureFlags(project);
  return paginate(
    ctx,
    {
      orderings: {
        created_at: keyOrdering(
          flags,
          (f) => f.createdAt,
          (f) => f.name,
        ),
      },
      defaultOrder: { orderBy: 'created_at', sort: 'asc' },
      render: (f) => renderFeatureFlag(ctx, f),
    },
    caller !== null,
  );
});
