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
import { json, type Answer } from '../http.js';
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

export function unauthorized(reason: keyof typeof TOKEN_PROBLEM): Answer {
  if (reason === 'missing')
    return json(401, { message: '401 Unauthorized', error_description: TOKEN_PROBLEM.missing }, challenge());
  return json(
    401,
    { message: '401 Unauthorized', error: 'invalid_token', error_description: TOKEN_PROBLEM[reason] },
    challenge(`, error="invalid_token", error_description="${TOKEN_PROBLEM[reason]}"`),
  );
}

export function insufficientScope(scopes: readonly string[]): Answer {
  const scope = scopes.join(' ');
  return json(
    403,
    {
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope,
    },
    challenge(`, error="insufficient_scope", scope="${scope}"`),
  );
}

/** The caller (null when anonymous and allowed), or the 401/403 answer. */
export function authenticate(ctx: Ctx, need: Need): Caller | null | Answer {
  const presented = presentedToken(ctx.request, ctx.url);
  if (!presented) return need.required ? unauthorized('missing') : null;
  const check = checkAccessToken(ctx.sim, presented.token);
  if (!check.ok) {
    // fault: a dead token on a public endpoint is read as no token at all
    if (!need.required && ctx.sim.fault('invalid-token-anonymous')) return null;
    return unauthorized(check.reason);
  }
  if (
    need.scopes.length > 0 &&
    !need.scopes.some((s) => check.token.scopes.includes(s)) &&
    !ctx.sim.fault('scope-not-checked')
  ) {
    return insufficientScope(need.scopes);
  }
  return { user: check.user, token: check.token };
}
