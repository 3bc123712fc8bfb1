/**
 * grant_type=authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.6), with or without PKCE.
 * Order: required parameters, client authentication, the code, then the code's state table
 * (spec/machines/authorization-code.yaml): client binding, expiry, redirect_uri, verifier.
 */
import type { Application, AuthorizationCode, User } from '../../store.js';
import type { Sim } from '../../types.js';
import { tryAuthenticateClient } from '../client-auth.js';
import { InvalidGrant, OAuthError } from '../errors.js';
import { idToken } from '../id-token.js';
import { issuer } from '../issuer.js';
import { runner } from '../machine.js';
import { digest } from '../../digest.js';
import { required, type Params } from '../params.js';
import { verifierMatches, verifierProblem } from '../pkce.js';
import { codeTokenBody, mintTokens, revokeTokensFromCode, type Issued } from '../tokens.js';
import { tokenResponse, type Grant } from './grant.js';

interface Exchange {
  sim: Sim;
  params: Params;
  issuer: string;
  clientError: OAuthError | null;
  app: Application | null;
  code: AuthorizationCode;
  issued?: Issued;
  idToken?: string;
}

const verifier = (x: Exchange) => x.params.get('code_verifier') ?? '';
const pkce = (x: Exchange) => x.code.codeChallenge !== null;

const codeMachine = runner<Exchange>('authorization-code', {
  conditions: {
    client_auth_failed: (x) => x.clientError !== null,
    client_mismatch: (x) => x.app!.id !== x.code.applicationId,
    // The faults code-never-expires and code-lifetime-long set expiresIn (authorize-decision.ts).
    code_expired: (x) => x.sim.clock.nowSeconds() >= x.code.createdAt + x.code.expiresIn,
    redirect_uri_mismatch: (x) =>
      !x.sim.fault('redirect-uri-unchecked') && x.params.get('redirect_uri') !== x.code.redirectUri,
    verifier_missing: (x) => pkce(x) && verifier(x) === '',
    verifier_malformed: (x) =>
      pkce(x) && !x.sim.fault('pkce-verifier-format-unchecked') && verifierProblem(verifier(x)) !== null,
    verifier_mismatch: (x) =>
      pkce(x) && !x.sim.fault('pkce-verifier-ignored') && !verifierMatches(verifier(x), x.code.codeChallenge!),
  },
  effects: {
    async issue_tokens(x) {
      x.issued = mintTokens(x.sim, {
        userId: x.code.userId,
        app: x.app,
        scopes: x.code.scopes,
        refresh: true,
        fromCode: x.code.digest,
      });
      x.code.exchangedFor = x.issued.access.digest;
      const user = x.sim.store.users.get(x.code.userId) as User;
      if (x.code.scopes.includes('openid')) {
        x.idToken = await idToken(x.sim, {
          issuer: x.issuer,
          app: x.app!,
          user,
          nonce: x.code.nonce,
          authTime: x.code.authTime,
        });
      }
    },
    revoke_issued_tokens: (x) => revokeTokensFromCode(x.sim, x.code.digest),
  },
});

export const authorizationCode: Grant = {
  type: 'authorization_code',
  available: () => true,
  async handle(ctx, params) {
    const { sim } = ctx;
    const value = required(params, 'code');
    const { app, clientError } = tryAuthenticateClient(ctx, params);
    const code = sim.store.codes.get(digest(value));
    if (!code) throw clientError ?? InvalidGrant('The authorization code is invalid');

    const x: Exchange = { sim, params, issuer: issuer(ctx), clientError, app, code };
    await codeMachine.advance(x, {
      from: code.state ?? codeMachine.table.initial,
      trigger: 'exchange',
      save: (next) => (code.state = next),
      stay: { state: 'exchanged', fault: 'code-reusable' },
    });
    return tokenResponse(sim, { ...codeTokenBody(sim, x.issued!), id_token: x.idToken });
  },
};
