/**
 * GET /api/v4/users: the store's real users, then the generated ones. Keyset by id, name or
 * username (from the release the keyset table names); offset beyond the enforcement limit is
 * refused from the release its rule names.
 */
import { limits } from '../../spec/index.js';
import { filtered, type Seq } from '../data/seq.js';
import { usersSorted, type UserRec } from '../data/users.js';
import { endpoint, PUBLIC_USER_READ } from './endpoint.js';
import { idOrdering, keyOrdering, paginate } from './pagination.js';
import { parsePairs, queryPairs, str } from './params.js';
import { ruleInForce } from '../release.js';
import { renderUser } from './render.js';

export const listUsers = endpoint(PUBLIC_USER_READ, (ctx, caller) => {
  const { store, options } = ctx.sim;
  const id = (u: UserRec) => u.id;
  const params = parsePairs(queryPairs(ctx));
  const username = str(params, 'username')?.toLowerCase();
  const search = str(params, 'search')?.toLowerCase();
  // a filter reads every user (O(n)); unfiltered pages stay O(per_page) or O(log n + per_page)
  const sorted = (order: 'id' | 'name' | 'username'): Seq<UserRec> => {
    const all = usersSorted(store, options.seedSize, order);
    if (username === undefined && search === undefined) return all;
    return filtered(
      all,
      (u) =>
        (username === undefined || u.username.toLowerCase() === username) &&
        (search === undefined || u.username.toLowerCase().includes(search) || u.name.toLowerCase().includes(search)),
    );
  };
  return paginate(
    ctx,
    {
      // getters: only the ordering a request names is built
      orderings: {
        get id() {
          return idOrdering(sorted('id'), id);
        },
        get name() {
          return keyOrdering(sorted('name'), (u) => u.name, id);
        },
        get username() {
          return keyOrdering(sorted('username'), (u) => u.username, id);
        },
      },
      defaultOrder: { orderBy: 'id', sort: 'asc' },
      render: (u) => renderUser(ctx, u),
      offsetRecordLimit: ruleInForce(ctx.sim, 'PAG-USERS-KEYSET-ENFORCED')
        ? limits().usersKeysetEnforcedAbove
        : undefined,
    },
    caller !== null,
  );
});
