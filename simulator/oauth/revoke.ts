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
import { refreshState } from './tokens.js';

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
  // Each effect does its own part of the row: the named token, then the one issued with it.
  effects: {
    revoke_token(x) {
      if (x.sim.fault('revoke-ignored')) return;
      named(x).revokedAt ??= x.sim.clock.nowSeconds();
    },
    revoke_paired_token(x) {
      if (x.sim.fault('revoke-ignored')) return;
      const { accessTokens, refreshTokens } = x.sim.store;
      const pair = x.access
        ? // Stryker disable next-line ConditionalExpression: Map#get(null) is undefined as well; the test is for the types
          x.access.refreshToken === null
          ? undefined
          : refreshTokens.get(x.access.refreshToken)
        : accessTokens.get(x.refresh!.accessToken);
      if (pair) pair.revokedAt ??= x.sim.clock.nowSeconds();
    },
  },
});

function named(x: Revocation): AccessToken | RefreshToken {
  return x.access ?? x.refresh!;
}

function live(sim: Sim, x: Revocation): boolean {
  if (x.access) return x.access.revokedAt === null && !tokenExpired(sim, x.access);
  return refreshState(x.refresh!) === 'active';
}

export const oauthRevoke: Handler = async (ctx) => {
  const { sim } = ctx;
  const params = await bodyParams(ctx);
  const value = required(params, 'token');
  const { app, clientError } = tryAuthenticateClient(ctx, params);
  const access = sim.store.accessTokens.get(digest(value));
  const x: Revocation = { sim, clientError, app };
  // RFC 7009 §2.1: token_type_hint only orders the search, and a value names at most one token
  // here, so the hint is not read. Personal access tokens are not OAuth tokens.
  if (access?.kind === 'oauth') x.access = access;
  else x.refresh = sim.store.refreshTokens.get(digest(value));
  if (!x.access && !x.refresh) {
    if (clientError) throw clientError;
    return json(200, {}, noStore(sim));
  }
  // The state is derived from the token (revokedAt, expiry), so nothing is saved.
  await revocationMachine.advance(x, { from: live(sim, x) ? 'live' : 'revoked', trigger: 'revoke' });
  return json(200, {}, noStore(sim));
};
