/** GET /api/v4/groups: nested namespaces by name; keyset (order_by=name, sort=asc) for anonymous callers. */
import { dataset, type GroupRec } from '../data/index.js';
import { filtered } from '../data/seq.js';
import { endpoint, PUBLIC_READ } from './endpoint.js';
import { idOrdering, keyOrdering, paginate } from './pagination.js';
import { parsePairs, queryPairs, str } from './params.js';
import { renderGroup } from './render.js';

export const listGroups = endpoint(PUBLIC_READ, (ctx, caller) => {
  const { groups } = dataset(ctx.sim).catalog;
  const search = str(parsePairs(queryPairs(ctx)), 'search')?.toLowerCase();
  const keep = (g: GroupRec) =>
    search === undefined || g.name.toLowerCase().includes(search) || g.fullPath.toLowerCase().includes(search);
  const id = (g: GroupRec) => g.id;
  return paginate(
    ctx,
    {
      orderings: {
        get name() {
          return keyOrdering(search === undefined ? groups.byName : filtered(groups.byName, keep), (g) => g.name, id);
        },
        get id() {
          return idOrdering(search === undefined ? groups.byId : filtered(groups.byId, keep), id);
        },
      },
      defaultOrder: { orderBy: 'name', sort: 'asc' },
      render: (g) => renderGroup(ctx, g),
    },
    caller !== null,
  );
});
