/**
 * grant_type=refresh_token (RFC 6749 §6) for PKCE and confidential applications. The pair
 * rotates: the old access and refresh tokens stop working, a new pair is returned, and this works
 * after the access token expired (spec/machines/token-refresh.yaml).
 */
import { digest } from '../../digest.js';
import type { Application, RefreshToken } from '../../store.js';
import type { Sim } from '../../types.js';
import { applicationById } from '../accounts.js';
import { tryAuthenticateClient } from '../client-auth.js';
import { InvalidGrant, InvalidScope, OAuthError } from '../errors.js';
import { runner } from '../machine.js';
import { required } from '../params.js';
import { parseScope } from '../scopes.js';
import { codeTokenBody, mintTokens, refreshState, type Issued } from '../tokens.js';
import { tokenResponse, type Grant } from './grant.js';

interface Refresh {
  sim: Sim;
  clientError: OAuthError | null;
  app: Application | null;
  refresh: RefreshToken;
  scopes: string[];
  issued?: Issued;
}

const refreshMachine = runner<Refresh>('token-refresh', {
  conditions: {
    client_auth_failed: (x) => x.clientError !== null,
    client_mismatch: (x) => x.app!.id !== x.refresh.applicationId,
  },
  effects: {
    revoke_access_token(x) {
      const old = x.sim.store.accessTokens.get(x.refresh.accessToken);
      if (old && !x.sim.fault('old-access-token-valid')) old.revokedAt ??= x.sim.clock.nowSeconds();
    },
    issue_token_pair(x) {
      const old = x.sim.store.accessTokens.get(x.refresh.accessToken);
      x.issued = mintTokens(x.sim, {
        userId: x.refresh.userId,
        app: x.app,
        scopes: x.scopes,
        // RFC 6749 §6: the new refresh token's scope is the presented one's, whatever was asked.
        refreshScopes: x.refresh.scopes,
        refresh: true,
        fromCode: old?.fromCode ?? null,
      });
    },
  },
});

/**
 * The scope a refresh asking none issues: the refresh token's; with the fault refresh-scope-narrowed,
 * less its last scope other than api and openid (which other rules' checks lean on).
 */
function issuedScopes(sim: Sim, refresh: RefreshToken): string[] {
  if (!sim.fault('refresh-scope-narrowed')) return refresh.scopes;
  const dropped = refresh.scopes.filter((s) => s !== 'api' && s !== 'openid').at(-1);
  return refresh.scopes.filter((s) => s !== dropped);
}

export const refreshToken: Grant = {
  type: 'refresh_token',
  available: () => true,
  async handle(ctx, params) {
    const { sim } = ctx;
    const value = required(params, 'refresh_token');
    const { app, clientError } = tryAuthenticateClient(ctx, params);
    const refresh = sim.store.refreshTokens.get(digest(value));
    if (!refresh || !applicationById(sim, refresh.applicationId))
      throw clientError ?? InvalidGrant('The refresh token is invalid');

    // RFC 6749 §6: a narrower scope may be asked for, never a wider one.
    const asked = parseScope(params.get('scope'));
    const wider = asked.filter((s) => !refresh.scopes.includes(s));
    if (wider.length && !clientError) throw InvalidScope(`The refresh token was not granted ${wider.join(' ')}`);
    const x: Refresh = { sim, clientError, app, refresh, scopes: asked.length ? asked : issuedScopes(sim, refresh) };

    await refreshMachine.advance(x, {
      from: refreshState(refresh),
      trigger: 'refresh',
      save: (next) => (refresh.state = next),
      stay: { state: 'rotated', fault: 'refresh-token-reusable' },
    });
    return tokenResponse(sim, codeTokenBody(sim, x.issued!));
  },
};
