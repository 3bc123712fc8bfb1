/**
 * GET and POST /oauth/userinfo (oauthUserinfo, oauthUserinfoPost; OpenID Connect Core §5.3):
 * the user's claims for a token holding `openid`; 401 for a missing or bad token, 403
 * insufficient_scope without openid.
 */
import { json, type Answer } from '../http.js';
import type { Ctx, Handler } from '../types.js';
import { bearerToken } from './bearer.js';
import { userinfoClaims } from './claims.js';
import { InsufficientScope } from './errors.js';
import { issuer } from './issuer.js';
import { bodyParams } from './params.js';

async function userinfo(ctx: Ctx, bodyToken?: string): Promise<Answer> {
  const { token, user } = bearerToken(ctx, bodyToken);
  if (!token.scopes.includes('openid')) throw InsufficientScope('The access token was not granted the openid scope');
  return json(200, userinfoClaims(user, issuer(ctx)), { 'cache-control': 'no-store' });
}

export const oauthUserinfo: Handler = (ctx) => userinfo(ctx);

/** RFC 6750 §2.2: a POST may carry the token as the form parameter access_token. */
export const oauthUserinfoPost: Handler = async (ctx) => userinfo(ctx, (await bodyParams(ctx)).get('access_token'));
