/** GET /api/v4/projects/:id/jobs: newest first; keyset by id desc for authenticated callers. */
import { dataset } from '../data/index.js';
import { API, endpoint } from './endpoint.js';
import { findProject } from './lookup.js';
import { idOrdering, paginate } from './pagination.js';
import { renderJob } from './render.js';

export const listProjectJobs = endpoint(API, (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  return paginate(
    ctx,
    {
      orderings: { id: idOrdering(dataset(ctx.sim).records.jobs(project), (j) => j.id) },
      defaultOrder: { orderBy: 'id', sort: 'desc' },
      render: (j) => renderJob(ctx, project, j),
    },
    caller !== null,
  );
});
