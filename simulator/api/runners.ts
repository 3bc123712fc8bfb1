/**
 * The deprecated runner registration endpoints. They work (marked deprecated) until 410 Gone, on
 * two timelines: registration with a registration token in a future major release (setting
 * runnerRegistrationGone), the registration token resets in a future release (runnerResetTokenGone).
 */
import { ApiError } from '../errors.js';
import { json } from '../http.js';
import { secret } from '../random.js';
import type { Ctx, Handler } from '../types.js';
import { API, endpoint } from './endpoint.js';
import { findGroup, findProject } from './lookup.js';
import { readParams, str } from './params.js';

const DEPRECATED = { deprecation: 'true' };

function refuseIfGone(ctx: Ctx, setting: 'runnerRegistrationGone' | 'runnerResetTokenGone'): void {
  if (ctx.sim.options.settings[setting])
    throw new ApiError(
      410,
      '410 Gone: runner registration tokens are removed; create runners with an authentication token',
    );
}

export const registerRunner: Handler = endpoint({ required: false, scopes: [] }, async (ctx) => {
  refuseIfGone(ctx, 'runnerRegistrationGone');
  const params = await readParams(ctx);
  if (!str(params, 'token')) throw new ApiError(400, 'token is missing');
  const state = ctx.sim.state('api.runners', () => ({ next: 1 }));
  return json(201, { id: state.next++, token: secret(20, 'glrt-'), token_expires_at: null }, DEPRECATED);
});

/** `scope` throws when the caller may not reset this token (after the 410, as before). */
function resetToken(scope: (ctx: Ctx, caller: Parameters<typeof findProject>[2]) => void): Handler {
  return endpoint(API, (ctx, caller) => {
    refuseIfGone(ctx, 'runnerResetTokenGone');
    scope(ctx, caller);
    return json(201, { token: secret(20, 'GR1348941'), token_expires_at: null }, DEPRECATED);
  });
}

export const resetRunnerRegistrationToken = resetToken((_ctx, caller) => {
  if (!caller?.user.admin) throw new ApiError(403, '403 Forbidden');
});
export const resetProjectRunnerRegistrationToken = resetToken((ctx, caller) => {
  findProject(ctx, ctx.params.id, caller);
});
export const resetGroupRunnerRegistrationToken = resetToken((ctx, caller) => {
  findGroup(ctx, ctx.params.id, caller);
});
