/** GET /api/v4/projects/:id/packages/:package_id/pipelines: newest first, keyset by id desc. */
import { apiError } from '../http.js';
import { dataset } from '../data/index.js';
import { API, endpoint } from './endpoint.js';
import { findProject } from './lookup.js';
import { idOrdering, paginate } from './pagination.js';
import { renderPipeline } from './render.js';

export const listPackagePipelines = endpoint(API, (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  const { records } = dataset(ctx.sim);
  const pkg = /^\d+$/.test(ctx.params.package_id)
    ? records.packageOf(project, Number(ctx.params.package_id))
    : undefined;
  if (!pkg) return apiError(404, '404 Package Not Found');
  return paginate(
    ctx,
    {
      orderings: { id: idOrdering(records.packagePipelines(project, pkg), (p) => p.id) },
      defaultOrder: { orderBy: 'id', sort: 'desc' },
      render: renderPipeline,
    },
    caller !== null,
  );
});
