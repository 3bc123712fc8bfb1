/**
 * Authentication and scopes on /api/v4. The token comes from the shared lookup in
 * simulator/credentials.ts (Bearer header, access_token query, PRIVATE-TOKEN), so the REST API,
 * /oauth/token/info and Git over HTTPS agree on what a valid token is.
 *
 * - a presented token that is unknown, expired or revoked: 401 invalid_token, even on an endpoint
 *   that needs no authentication (a client must learn its token is dead);
 * - no token on an endpoint that needs one: 401;
 * - a token without any of the endpoint's scopes: 403 insufficient_scope naming them.
 */
import { checkAccessToken, presentedToken, TOKEN_PROBLEM } from '../credentials.js';
import { ApiError } from '../errors.js';
import type { AccessToken, User } from '../store.js';
import type { Ctx } from '../types.js';

/** Scopes that let a request through: `api` grants everything. */
export const SCOPES = {
  readUser: ['read_user', 'api'],
  api: ['api'],
} as const;

export interface Need {
  /** anonymous requests are refused */
  required: boolean;
  /** any one of these scopes is enough */
  scopes: readonly string[];
}

export interface Caller {
  user: User;
  token: AccessToken;
}

function challenge(extra = ''): Record<string, string> {
  return { 'www-authenticate': `Bearer realm="api"${extra}` };
}

const UNAUTHORIZED = '401 Unauthorized';

function unauthorized(reason: keyof typeof TOKEN_PROBLEM): ApiError {
  if (reason === 'missing')
    return new ApiError(401, UNAUTHORIZED, challenge(), {
      message: UNAUTHORIZED,
      error_description: TOKEN_PROBLEM.missing,
    });
  return new ApiError(
    401,
    UNAUTHORIZED,
    challenge(`, error="invalid_token", error_description="${TOKEN_PROBLEM[reason]}"`),
    { message: UNAUTHORIZED, error: 'invalid_token', error_description: TOKEN_PROBLEM[reason] },
  );
}

/** RFC 6750 §3.1: the body names the error as OAuth does, with no `message`. */
function insufficientScope(scopes: readonly string[]): ApiError {
  const scope = scopes.join(' ');
  const description = 'The request requires higher privileges than provided by the access token.';
  return new ApiError(403, description, challenge(`, error="insufficient_scope", scope="${scope}"`), {
    error: 'insufficient_scope',
    error_description: description,
    scope,
  });
}

/** The caller (null when anonymous and allowed); a 401/403 is thrown. */
export function authenticate(ctx: Ctx, need: Need): Caller | null {
  const presented = presentedToken(ctx.request, ctx.url);
  if (!presented) {
    if (need.required) throw unauthorized('missing');
    return null;
  }
  const check = checkAccessToken(ctx.sim, presented.token);
  if (!check.ok) {
    // fault: a dead token on a public endpoint is read as no token at all
    if (!need.required && ctx.sim.fault('invalid-token-anonymous')) return null;
    throw unauthorized(check.reason);
  }
  if (
    need.scopes.length > 0 &&
    !need.scopes.some((s) => check.token.scopes.includes(s)) &&
    !ctx.sim.fault('scope-not-checked')
  ) {
    throw insufficientScope(need.scopes);
  }
  return { user: check.user, token: check.token };
}
