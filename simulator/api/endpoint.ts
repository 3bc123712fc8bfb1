/**
 * The frame of every /api/v4 handler: authenticate with the operation's need, run, and turn a
 * parameter error into a clear 400 (never a 500).
 */
import { apiError, isAnswer, type Answer } from '../http.js';
import type { Ctx, Handler } from '../types.js';
import { authenticate, SCOPES, type Caller, type Need } from './auth.js';
import { ParamError } from './params.js';

export function endpoint(need: Need, run: (ctx: Ctx, caller: Caller | null) => Answer | Promise<Answer>): Handler {
  return async (ctx) => {
    const caller = authenticate(ctx, need);
    if (isAnswer(caller)) return caller;
    try {
      return await run(ctx, caller);
    } catch (error) {
      if (error instanceof ParamError) return apiError(400, error.message);
      throw error;
    }
  };
}

/** Public reads: anonymous allowed, a presented token needs `api` (read_user is not enough). */
export const PUBLIC_READ: Need = { required: false, scopes: SCOPES.api };
/** Authenticated reads and every write. */
export const API: Need = { required: true, scopes: SCOPES.api };
/** User reads: read_user is enough. */
export const USER_READ: Need = { required: true, scopes: SCOPES.readUser };
export const PUBLIC_USER_READ: Need = { required: false, scopes: SCOPES.readUser };
