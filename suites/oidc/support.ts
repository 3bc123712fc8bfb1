/** OpenID Connect helpers: the key set fetched through the run's Http, discovery, the openid application. */
import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import type { AppRole, CheckContext } from '../types.js';
import { broke, expectJsonType, jsonObject, KEYS_PATH } from '../shared/oauth.js';
import { expectRows } from '../shared/json.js';
import { factorableModulus, forgeableKey } from './forgeable.js';

/** RSA keys of a set whose modulus is tested, besides the one a token names (a set of thousands stays cheap). */
const MODULI_JUDGED = 16;

export { KEYS_PATH, expectedIssuer, sameIssuer } from '../shared/oauth.js';
export { DISCOVERY_PATH, USERINFO_PATH } from '../shared/oauth.js';
export const LEGACY_JWKS_PATH = '/-/jwks';

/** The key set as served (jose's remote fetcher would bypass our Http: redaction, rate limit, in-process target). */
export async function fetchJwks(t: CheckContext, path = KEYS_PATH): Promise<JSONWebKeySet> {
  const res = await t.http.get(path);
  const body = jsonObject(res);
  t.expect(
    res.status === 200 && body && Array.isArray(body.keys),
    `GET ${path} must answer 200 with a JSON Web Key Set (keys array)`,
    broke(['OIDC-JWKS'], { status: res.status }),
  );
  expectJsonType(t, res, `GET ${path}`, ['OIDC-JWKS']);
  // Every reader takes each key for a record (its kid, use, alg): a null among them is said here.
  expectRows(body.keys, `the keys of GET ${path}`, (ok, message) => t.expect(ok, message, broke(['OIDC-JWKS'])));
  return body as unknown as JSONWebKeySet;
}

/** The members of a private RSA or EC key: published, they break OIDC-JWKS (its own check says so). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth'];
/** Every member a published key must not carry: the private ones and a symmetric key's secret `k`. */
export const SECRET_MEMBERS = [...PRIVATE_MEMBERS, 'k'];

/**
 * The published keys, as public keys only: jose would read a key with private members as a
 * private key and refuse to verify with it, failing a good signature for a leak that is
 * OIDC-JWKS's to judge. A key that verifies what no one signed fails OIDC-JWKS here, before
 * any signature is read as proof against it.
 */
export function localKeys(t: CheckContext, jwks: JSONWebKeySet, kid?: string) {
  // The modulus test costs a Miller-Rabin round a key: the first keys of the set, and the one the token names.
  const rsa = jwks.keys.filter((k) => k.kty === 'RSA');
  const named = kid === undefined ? [] : rsa.filter((k) => k.kid === kid).slice(0, 1);
  const moduli = new Set([...rsa.slice(0, MODULI_JUDGED), ...named]);
  for (const key of jwks.keys) {
    const forgeable = forgeableKey(key) ?? (moduli.has(key) ? factorableModulus(key) : undefined);
    t.expect(
      forgeable === undefined,
      `the key set publishes ${forgeable}`,
      broke(['OIDC-JWKS'], { kid: key.kid ?? null }),
    );
  }
  const publicOnly: JSONWebKeySet = {
    keys: jwks.keys.map((k) => Object.fromEntries(Object.entries(k).filter(([m]) => !PRIVATE_MEMBERS.includes(m)))),
  };
  try {
    return createLocalJWKSet(publicOnly);
  } catch (error) {
    return t.fail(
      'the key set is not a valid JSON Web Key Set',
      broke(['OIDC-JWKS'], { reason: (error as Error).message }),
    );
  }
}

/**
 * Whether a verification failed on the published key itself rather than on the signature: jose
 * refuses an RSA modulus under 2048 bits (RFC 7518 §3.3) with a TypeError, WebCrypto an EC point
 * off its curve with a DataError. The key set is then at fault (OIDC-JWKS), not the token.
 */
export function unusableKey(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof Error && error.name === 'DataError');
}

/** The configured application that may request openid. */
export function openidApp(t: CheckContext): AppRole {
  const role = (['confidential', 'public'] as const).find((r) => t.config.applications?.[r]?.scopes.includes('openid'));
  if (!role) t.skip('no configured application holds the openid scope');
  return role;
}

/** A scope for `role` that leaves openid out (api when it has it). */
export function scopeWithoutOpenid(t: CheckContext, role: AppRole): string {
  const scopes = t.config.applications![role]!.scopes.filter((s) => s !== 'openid');
  if (scopes.length === 0) t.skip(`the ${role} application holds no scope besides openid`);
  return scopes.includes('api') ? 'api' : scopes[0];
}
