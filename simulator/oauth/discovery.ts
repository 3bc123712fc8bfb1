/**
 * OpenID Connect discovery: GET /.well-known/openid-configuration (openidConfiguration) and the
 * key set at /oauth/discovery/keys (oauthDiscoveryKeys) and its old alias /-/jwks (legacyJwks,
 * routed only before 17.0 by the operation's x-until).
 */
import { json } from '../http.js';
import type { Handler, Sim } from '../types.js';
import { CHALLENGE_METHODS } from './pkce.js';
import { USERINFO_CLAIMS } from './claims.js';
import { deviceGrantAvailable } from './gates.js';
import { GRANTS } from './token.js';
import { issuer } from './issuer.js';
import { jwks } from './keys.js';
import { KNOWN_SCOPES } from './scopes.js';

const ID_TOKEN_CLAIMS = [
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'email',
  'email_verified',
  'groups_direct',
];

export const openidConfiguration: Handler = (ctx) => {
  const base = issuer(ctx);
  const device = deviceGrantAvailable(ctx.sim);
  return json(200, {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    userinfo_endpoint: `${base}/oauth/userinfo`,
    jwks_uri: `${base}/oauth/discovery/keys`,
    ...(device ? { device_authorization_endpoint: `${base}/oauth/authorize_device` } : {}),
    scopes_supported: [...KNOWN_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: GRANTS.filter((g) => g.available(ctx.sim)).map((g) => g.type),
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    claim_types_supported: ['normal'],
    claims_supported: [...new Set([...ID_TOKEN_CLAIMS, ...USERINFO_CLAIMS])],
    code_challenge_methods_supported: [...CHALLENGE_METHODS],
  });
};

export const oauthDiscoveryKeys: Handler = async (ctx) => json(200, await jwks(ctx.sim));
export const legacyJwks: Handler = oauthDiscoveryKeys;

/** The fault that keeps /-/jwks routed after its removal in 17.0 (core's release gate defers to this). */
export const legacyJwksStillServed = (sim: Sim): boolean => sim.fault('legacy-jwks-served');
