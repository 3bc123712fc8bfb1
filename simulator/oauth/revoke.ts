/**
 * POST /oauth/revoke (oauthRevoke, RFC 7009): 200 with `{}` for any token, known or not; a live
 * token of the authenticated client is revoked together with its pair
 * (spec/machines/revocation.yaml).
 */
import { digest } from '../digest.js';
import { json } from '../http.js';
import type { Sim, Handler } from '../types.js';
import type { AccessToken, Application, RefreshToken } from '../store.js';
import { tokenExpired } from '../credentials.js';
import { tryAuthenticateClient } from './client-auth.js';
import { noStore, OAuthError } from './errors.js';
import { runner } from './machine.js';
import { bodyParams, required } from './params.js';
import { refreshState, revokeAccessToken, revokeRefreshToken } from './tokens.js';

interface Revocation {
  sim: Sim;
  clientError: OAuthError | null;
  app: Application | null;
  access?: AccessToken;
  refresh?: RefreshToken;
}

const revocationMachine = runner<Revocation>('revocation', {
  conditions: {
    client_auth_failed: (x) => x.clientError !== null,
    // A token issued without a client (password grant) belongs to no application: any client may revoke it.
    client_mismatch: (x) => {
      const owner = x.access ? x.access.applicationId : x.refresh!.applicationId;
      return owner !== null && owner !== x.app!.id;
    },
  },
  effects: {
    revoke_token(x) {
      if (x.sim.fault('revoke-ignored')) return;
      if (x.access) x.access.revokedAt ??= x.sim.clock.nowSeconds();
      if (x.refresh) x.refresh.revokedAt ??= x.sim.clock.nowSeconds();
    },
    revoke_paired_token(x) {
      if (x.sim.fault('revoke-ignored')) return;
      if (x.access) revokeAccessToken(x.sim, x.access);
      if (x.refresh) revokeRefreshToken(x.sim, x.refresh);
    },
  },
});

function live(sim: Sim, x: Revocation): boolean {
  if (x.access) return x.access.revokedAt === null && !tokenExpired(sim, x.access);
  return refreshState(x.refresh!) === 'active';
}

export const oauthRevoke: Handler = async (ctx) => {
  const { sim } = ctx;
  const params = await bodyParams(ctx);
  const value = required(params, 'token');
  const { app, clientError } = tryAuthenticateClient(ctx, params);
  const hint = params.get('token_type_hint');
  const access = sim.store.accessTokens.get(digest(value));
  const refresh = sim.store.refreshTokens.get(digest(value));
  const x: Revocation = { sim, clientError, app };
  // RFC 7009 §2.1: the hint only orders the search; personal access tokens are not OAuth tokens.
  if (hint === 'refresh_token' && refresh) x.refresh = refresh;
  else if (access?.kind === 'oauth') x.access = access;
  else if (refresh) x.refresh = refresh;
  if (!x.access && !x.refresh) {
    if (clientError) throw clientError;
    return json(200, {}, noStore(sim));
  }
  // The state is derived from the token (revokedAt, expiry), so nothing is saved.
  await revocationMachine.advance(x, { from: live(sim, x) ? 'live' : 'revoked', trigger: 'revoke' });
  return json(200, {}, noStore(sim));
};
