/**
 * The frame of every /api/v4 handler: authenticate with the operation's need, then run. Errors
 * (401/403, a bad parameter, a missing project) are thrown as ApiError and answered by core.ts.
 */
import type { Ctx, Handler } from '../types.js';
import { authenticate, SCOPES, type Caller, type Need } from './auth.js';
import type { Answer } from '../http.js';

export function endpoint(need: Need, run: (ctx: Ctx, caller: Caller | null) => Answer | Promise<Answer>): Handler {
  return (ctx) => run(ctx, authenticate(ctx, need));
}

/** Public reads: anonymous allowed, a presented token needs `api` (read_user is not enough). */
export const PUBLIC_READ: Need = { required: false, scopes: SCOPES.api };
/** Authenticated reads and every write. */
export const API: Need = { required: true, scopes: SCOPES.api };
/** User reads: read_user is enough. */
export const USER_READ: Need = { required: true, scopes: SCOPES.readUser };
export const PUBLIC_USER_READ: Need = { required: false, scopes: SCOPES.readUser };
