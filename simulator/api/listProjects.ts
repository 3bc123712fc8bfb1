/**
 * GET /api/v4/projects. Anonymous callers see public projects only. `search` filters by name or
 * path (this is where `+` versus `%2B` shows: `search=C%2B%2B` finds "C++ Tools", `search=C++`
 * searches for "C  "). Keyset by id, both directions.
 */
import { dataset, type ProjectRec } from '../data/index.js';
import { filtered } from '../data/seq.js';
import { endpoint, PUBLIC_READ } from './endpoint.js';
import { idOrdering, paginate } from './pagination.js';
import { bool, parsePairs, queryPairs, str } from './params.js';
import { projectJson, renderProject } from './render.js';

export const listProjects = endpoint(PUBLIC_READ, (ctx, caller) => {
  const params = parsePairs(queryPairs(ctx));
  const search = str(params, 'search')?.toLowerCase();
  const archived = bool(params, 'archived');
  const visibility = str(params, 'visibility');
  const { projects } = dataset(ctx.sim).catalog;
  let seq = projects.byId;
  const filters = search !== undefined || archived !== undefined || visibility !== undefined;
  if (!caller && !filters) {
    // the anonymous view, kept until a project is created
    const cache = ctx.sim.state('api.publicProjects', () => ({ count: -1, seq }));
    if (cache.count !== projects.count)
      Object.assign(cache, { count: projects.count, seq: filtered(seq, (p: ProjectRec) => p.visibility === 'public') });
    seq = cache.seq;
  } else if (filters) {
    // a filter reads every project: projects are few (hundreds per seed-size unit)
    seq = filtered(
      seq,
      (p: ProjectRec) =>
        (caller !== null || p.visibility === 'public') &&
        (search === undefined || p.name.toLowerCase().includes(search) || p.path.toLowerCase().includes(search)) &&
        (archived === undefined || p.archived === archived) &&
        (visibility === undefined || p.visibility === visibility),
    );
  }
  return paginate(
    ctx,
    {
      orderings: { id: idOrdering(seq, (p) => p.id) },
      defaultOrder: { orderBy: 'id', sort: 'desc' },
      render: (p) => renderProject(ctx, p),
      renderText: (p) => projectJson(ctx, p),
    },
    caller !== null,
  );
});
