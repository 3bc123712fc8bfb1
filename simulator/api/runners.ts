/**
 * The deprecated runner registration endpoints. They work (marked deprecated) until 410 Gone, on
 * two timelines: registration with a registration token in a future major release (setting
 * runnerRegistrationGone), the registration token resets in a future release (runnerResetTokenGone).
 */
import { apiError, json } from '../http.js';
import { secret } from '../random.js';
import type { Ctx, Handler } from '../types.js';
import { API, endpoint } from './endpoint.js';
import { findGroup, findProject } from './lookup.js';
import { readParams, str } from './params.js';

const DEPRECATED = { deprecation: 'true' };

function gone(ctx: Ctx, setting: 'runnerRegistrationGone' | 'runnerResetTokenGone'): Response | null {
  return ctx.sim.options.settings[setting]
    ? apiError(410, '410 Gone: runner registration tokens are removed; create runners with an authentication token')
    : null;
}

export const registerRunner: Handler = endpoint({ required: false, scopes: [] }, async (ctx) => {
  const refused = gone(ctx, 'runnerRegistrationGone');
  if (refused) return refused;
  const params = await readParams(ctx);
  if (!str(params, 'token')) return apiError(400, 'token is missing');
  const state = ctx.sim.state('api.runners', () => ({ next: 1 }));
  return json(201, { id: state.next++, token: secret(20, 'glrt-'), token_expires_at: null }, DEPRECATED);
});

function resetToken(scope: (ctx: Ctx, caller: Parameters<typeof findProject>[2]) => Response | null): Handler {
  return endpoint(API, (ctx, caller) => {
    const refused = gone(ctx, 'runnerResetTokenGone') ?? scope(ctx, caller);
    if (refused) return refused;
    return json(201, { token: secret(20, 'GR1348941'), token_expires_at: null }, DEPRECATED);
  });
}

export const resetRunnerRegistrationToken = resetToken((_ctx, caller) =>
  caller?.user.admin ? null : apiError(403, '403 Forbidden'),
);
export const resetProjectRunnerRegistrationToken = resetToken((ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  return project instanceof Response ? project : null;
});
export const resetGroupRunnerRegistrationToken = resetToken((ctx, caller) => {
  const group = findGroup(ctx, ctx.params.id, caller);
  return group instanceof Response ? group : null;
});
