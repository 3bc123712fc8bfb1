/**
 * The deprecated runner registration endpoints. They work (marked deprecated) until the instance
 * plays the announced future major (setting runnerRegistrationGone), then answer 410 Gone.
 */
import { apiError, json, isAnswer, type Answer } from '../http.js';
import { secret } from '../random.js';
import type { Ctx, Handler } from '../types.js';
import { API, endpoint } from './endpoint.js';
import { findGroup, findProject } from './lookup.js';
import { readParams, str } from './params.js';

const DEPRECATED = { deprecation: 'true' };

function gone(ctx: Ctx): Answer | null {
  return ctx.sim.options.settings.runnerRegistrationGone
    ? apiError(410, '410 Gone: runner registration tokens are removed; create runners with an authentication token')
    : null;
}

export const registerRunner: Handler = endpoint({ required: false, scopes: [] }, async (ctx) => {
  const refused = gone(ctx);
  if (refused) return refused;
  const params = await readParams(ctx);
  if (!str(params, 'token')) return apiError(400, 'token is missing');
  const state = ctx.sim.state('api.runners', () => ({ next: 1 }));
  return json(201, { id: state.next++, token: secret(20, 'glrt-'), token_expires_at: null }, DEPRECATED);
});

function resetToken(scope: (ctx: Ctx, caller: Parameters<typeof findProject>[2]) => Answer | null): Handler {
  return endpoint(API, (ctx, caller) => {
    const refused = gone(ctx) ?? scope(ctx, caller);
    if (refused) return refused;
    return json(201, { token: secret(20, 'GR1348941'), token_expires_at: null }, DEPRECATED);
  });
}

export const resetRunnerRegistrationToken = resetToken((_ctx, caller) =>
  caller?.user.admin ? null : apiError(403, '403 Forbidden'),
);
export const resetProjectRunnerRegistrationToken = resetToken((ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  return isAnswer(project) ? project : null;
});
export const resetGroupRunnerRegistrationToken = resetToken((ctx, caller) => {
  const group = findGroup(ctx, ctx.params.id, caller);
  return isAnswer(group) ? group : null;
});
