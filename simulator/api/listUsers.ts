/**
 * GET /api/v4/users: the store's real users, then the generated ones. Keyset by id, name or
 * username (from the release the keyset table names); offset beyond the enforcement limit is
 * refused from the release its rule names.
 */
import { limits } from '../../spec/index.js';
import { usersSorted, type UserRec } from '../data/users.js';
import { endpoint, PUBLIC_USER_READ } from './endpoint.js';
import { idOrdering, keyOrdering, paginate } from './pagination.js';
import { ruleInForce } from './release.js';
import { renderUser } from './render.js';

export const listUsers = endpoint(PUBLIC_USER_READ, (ctx, caller) => {
  const { store, options } = ctx.sim;
  const id = (u: UserRec) => u.id;
  return paginate(
    ctx,
    {
      // getters: only the ordering a request names is built
      orderings: {
        get id() {
          return idOrdering(usersSorted(store, options.seedSize, 'id'), id);
        },
        get name() {
          return keyOrdering(usersSorted(store, options.seedSize, 'name'), (u) => u.name, id);
        },
        get username() {
          return keyOrdering(usersSorted(store, options.seedSize, 'username'), (u) => u.username, id);
        },
      },
      defaultOrder: { orderBy: 'id', sort: 'asc' },
      render: (u) => renderUser(ctx, u),
      offsetRecordLimit: ruleInForce(ctx.sim, 'PAG-USERS-KEYSET-ENFORCED') ? limits().usersKeysetEnforcedAbove : undefined,
    },
    caller !== null,
  );
});
