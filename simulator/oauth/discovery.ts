/**
 * OpenID Connect discovery: GET /.well-known/openid-configuration (openidConfiguration) and the
 * key set at /oauth/discovery/keys (oauthDiscoveryKeys) and its old alias /-/jwks (legacyJwks,
 * routed only before 17.0 by the operation's x-until).
 */
import { jsonText, type Reply } from '../http.js';
import type { Handler, Sim } from '../types.js';
import { CHALLENGE_METHODS } from './pkce.js';
import { userinfoClaimNames } from './claims.js';
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

/**
 * Constant documents are serialised once: discovery per issuer and per set of available grants
 * (settings can change those at run time), keys per simulator (its key is made once and never
 * rotates).
 */
const discoveryText = new WeakMap<Sim, Map<string, string>>();
const keysBody = new WeakMap<Sim, Buffer>();

export const openidConfiguration: Handler = (ctx) => {
  const base = issuer(ctx);
  const grants = GRANTS.filter((g) => g.available(ctx.sim)).map((g) => g.type);
  const device = deviceGrantAvailable(ctx.sim);
  // Stryker disable next-line StringLiteral: any separator tells these keys apart (a grant type has no space)
  const key = `${base} ${device} ${grants.join(' ')}`;
  let texts = discoveryText.get(ctx.sim);
  // The issuer may come from the Host header: a client sending many must not grow this. (A cache
  // answers what it was given: dropping or keeping it longer is not observable, hence the marks.)
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a cache emptied sooner or later answers alike
  if (!texts || texts.size >= 16) discoveryText.set(ctx.sim, (texts = new Map<string, string>()));
  let body = texts.get(key);
  // Stryker disable next-line ConditionalExpression: serialising again gives the same text
  if (body === undefined)
    texts.set(key, (body = JSON.stringify(discovery(base, device, grants, idTokenAlgs(ctx.sim)))));
  return jsonText(200, body);
};

/** The id_token signing algorithms listed: RS256, which it signs with (ES256 alone under `discovery-no-rs256`). */
const idTokenAlgs = (sim: Sim) => (sim.fault('discovery-no-rs256') ? ['ES256'] : ['RS256']);

function discovery(base: string, device: boolean, grants: string[], algs: string[]): Record<string, unknown> {
  return {
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
    grant_types_supported: grants,
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: algs,
    claim_types_supported: ['normal'],
    claims_supported: [...new Set([...ID_TOKEN_CLAIMS, ...userinfoClaimNames()])],
    code_challenge_methods_supported: [...CHALLENGE_METHODS],
  };
}

// Synchronous once the key exists: its answer is one prebuilt Buffer (the key never rotates).
export const oauthDiscoveryKeys: Handler = (ctx) => {
  const body = keysBody.get(ctx.sim);
  return body ? jsonText(200, body) : firstKeys(ctx.sim);
};

async function firstKeys(sim: Sim): Promise<Reply> {
  const body = Buffer.from(JSON.stringify(await jwks(sim)));
  keysBody.set(sim, body);
  return jsonText(200, body);
}
export const legacyJwks: Handler = oauthDiscoveryKeys;

/** The fault that keeps /-/jwks routed after its removal in 17.0 (core's release gate defers to this). */
export const legacyJwksStillServed = (sim: Sim): boolean => sim.fault('legacy-jwks-served');
