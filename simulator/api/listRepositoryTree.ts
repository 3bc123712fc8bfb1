/**
 * GET /api/v4/projects/:id/repository/tree. A path that does not exist is 404 from the release of
 * ERR-TREE-MISSING-PATH-404 and 200 [] before it. Keyset pagination (no ordering; the next link
 * carries page_token) from the release the keyset table names.
 */
import { apiError } from '../http.js';
import { dataset } from '../data/index.js';
import { fromArray } from '../data/seq.js';
import { treeEntries } from '../data/tree.js';
import { endpoint, PUBLIC_READ } from './endpoint.js';
import { findProject } from './lookup.js';
import { keyOrdering, paginate } from './pagination.js';
import { bool, parsePairs, queryPairs, str } from './params.js';
import { ruleInForce } from '../release.js';
import { filesOf, refExists } from './repository.js';

export const listRepositoryTree = endpoint(PUBLIC_READ, (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  const params = parsePairs(queryPairs(ctx));
  const ref = str(params, 'ref') ?? 'main';
  if (!refExists(ref)) return apiError(404, '404 Tree Not Found');
  const path = (str(params, 'path') ?? '').replace(/^\/+|(?<!\/)\/+$/g, '');
  const recursive = bool(params, 'recursive') ?? false;
  let entries = treeEntries(filesOf(ctx, project), dataset(ctx.sim).seed, project.id, path, recursive);
  if (entries === null) {
    if (ruleInForce(ctx.sim, 'ERR-TREE-MISSING-PATH-404') && !ctx.sim.fault('tree-missing-path-200')) {
      return apiError(404, '404 Tree Not Found');
    }
    entries = [];
  }
  const ordering = keyOrdering(
    fromArray(entries),
    (e) => `${e.type === 'tree' ? 0 : 1}${e.path}`,
    (e) => e.path,
  );
  return paginate(
    ctx,
    { orderings: { path: ordering }, defaultOrder: { orderBy: 'path', sort: 'asc' }, render: (e) => e },
    caller !== null,
  );
});
