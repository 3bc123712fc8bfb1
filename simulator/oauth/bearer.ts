/**
 * The OAuth access token a resource request presents (Bearer header or access_token parameter),
 * checked with the same lookup the REST API uses (credentials.ts). Personal access tokens are
 * not OAuth tokens and are refused here.
 */
import type { Ctx } from '../types.js';
import type { AccessToken, User } from '../store.js';
import { checkAccessToken, presentedToken, TOKEN_PROBLEM } from '../credentials.js';
import { InvalidToken } from './errors.js';

export function bearerToken(ctx: Ctx, fallback?: string): { token: AccessToken; user: User } {
  const presented = presentedToken(ctx.request, ctx.url);
  const value = presented && presented.via !== 'private-token' ? presented.token : fallback;
  if (!value) throw InvalidToken(TOKEN_PROBLEM.missing);
  const check = checkAccessToken(ctx.sim, value);
  if (!check.ok) throw InvalidToken(TOKEN_PROBLEM[check.reason]);
  if (check.token.kind !== 'oauth') throw InvalidToken(TOKEN_PROBLEM.unknown);
  return check;
}
