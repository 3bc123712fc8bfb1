/**
 * GET /oauth/token/info (oauthTokenInfo): the token information response, with its deprecated
 * aliases `scopes` and `expires_in_seconds`; 401 invalid_token for an unknown, expired or revoked
 * token.
 */
import { json } from '../http.js';
import type { Sim, Handler } from '../types.js';
import type { AccessToken } from '../store.js';
import { secondsLeft } from '../credentials.js';
import { applicationById } from './accounts.js';
import { bearerToken } from './bearer.js';
import { noStore } from './errors.js';

/** Seconds left, null without expiry; the faults answer the full lifetime, or 0 instead of null. */
function expiresInOf(sim: Sim, token: AccessToken): number | null {
  const left = sim.fault('token-info-expires-in-frozen') ? token.expiresIn : secondsLeft(sim, token);
  return left === null && sim.fault('token-info-expiry-never-null') ? 0 : left;
}

export const oauthTokenInfo: Handler = (ctx) => {
  const { sim } = ctx;
  const { token } = bearerToken(ctx);
  const app = applicationById(sim, token.applicationId);
  const expiresIn = expiresInOf(sim, token);
  const body: Record<string, unknown> = {
    resource_owner_id: token.userId,
    scope: [...token.scopes],
    expires_in: expiresIn,
    // The source types uid as a string: a token issued without a client (password grant without
    // client authentication) has no application, so its uid is the empty string, never null.
    application: { uid: app?.uid ?? '' },
    created_at: token.createdAt,
  };
  if (!sim.fault('token-info-no-aliases')) {
    body.scopes = [...token.scopes];
    body.expires_in_seconds = expiresIn;
  }
  return json(200, body, noStore(sim));
};
