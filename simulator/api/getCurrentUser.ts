/** GET /api/v4/user: the authenticated user; read_user (or api) is enough. */
import { apiError, json } from '../http.js';
import { userById } from '../data/users.js';
import { endpoint, USER_READ } from './endpoint.js';
import { renderCurrentUser } from './render.js';

export const getCurrentUser = endpoint(USER_READ, (ctx, caller) => {
  const user = caller && userById(ctx.sim.store, ctx.sim.options.seedSize, caller.user.id);
  if (!user) return apiError(404, '404 User Not Found');
  return json(200, renderCurrentUser(ctx, user));
});
