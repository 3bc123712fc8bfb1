/** GET /api/v4/projects/:id/packages; each package carries `pipelines` until its removal release. */
import { dataset } from '../data/index.js';
import { reversed, take } from '../data/seq.js';
import { limits } from '../../spec/index.js';
import { API, endpoint } from './endpoint.js';
import { findProject } from './lookup.js';
import { idOrdering, paginate } from './pagination.js';
import { renderPackage } from './render.js';

export const listProjectPackages = endpoint(API, (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  const { records } = dataset(ctx.sim);
  return paginate(
    ctx,
    {
      orderings: { id: idOrdering(records.packages(project), (p) => p.id) },
      defaultOrder: { orderBy: 'id', sort: 'asc' },
      // the newest pipelines of the package, at most one page of them
      render: (pkg) =>
        renderPackage(ctx, pkg, take(reversed(records.packagePipelines(project, pkg)), 0, limits().perPageDefault)),
    },
    caller !== null,
  );
});
