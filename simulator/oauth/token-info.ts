/**
 * GET /oauth/token/info (oauthTokenInfo): the token information response, with its deprecated
 * aliases `scopes` and `expires_in_seconds`; 401 invalid_token for an unknown, expired or revoked
 * token.
 */
import { json } from '../http.js';
import { secondsLeft } from '../credentials.js';
import { applicationById } from './accounts.js';
import { bearerToken } from './bearer.js';
import { endpoint, noStore } from './errors.js';

export const oauthTokenInfo = endpoint((ctx) => {
  const { sim } = ctx;
  const { token } = bearerToken(ctx);
  const app = applicationById(sim, token.applicationId);
  // The fault answers the full lifetime as if no time had passed.
  const expiresIn = sim.fault('token-info-expires-in-frozen') ? token.expiresIn : secondsLeft(sim, token);
  const body: Record<string, unknown> = {
    resource_owner_id: token.userId,
    scope: [...token.scopes],
    expires_in: expiresIn,
    // Doorkeeper's shape: an application-less token (password grant without client) says uid null.
    application: { uid: app?.uid ?? null },
    created_at: token.createdAt,
  };
  if (!sim.fault('token-info-no-aliases')) {
    body.scopes = [...token.scopes];
    body.expires_in_seconds = expiresIn;
  }
  return json(200, body, noStore(sim));
});
