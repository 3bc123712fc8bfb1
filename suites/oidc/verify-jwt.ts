/**
 * A signed JWT verified against the published keys: by jose, save the registered asymmetric
 * algorithms jose (v6) does not verify, which Node's crypto does. A provider may sign with any
 * algorithm the client registered (OIDC Core §3.1.3.7); that the harness's library lacks one is
 * not the provider's fault, and before, such an id_token failed OIDC-ID-TOKEN-SIGNATURE.
 */
import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import {
  createLocalJWKSet,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  UnsecuredJWT,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';
import { HarnessError } from '../runner/errors.js';
import { MAX_CANDIDATES, publicKeys, unusableKey } from './support.js';

interface ByNode {
  kty: string;
  crv: string;
  /** The digest Node signs with (null: EdDSA hashes itself). */
  hash: string | null;
}

/** EdDSA or Ed448 over an Ed448 key (RFC 8037 §3.1, RFC 9864 §2.2), ES256K over secp256k1 (RFC 8812 §3.2). */
const BY_NODE: ReadonlyArray<ByNode & { alg: string }> = [
  { alg: 'EdDSA', kty: 'OKP', crv: 'Ed448', hash: null },
  { alg: 'Ed448', kty: 'OKP', crv: 'Ed448', hash: null },
  { alg: 'ES256K', kty: 'EC', crv: 'secp256k1', hash: 'sha256' },
];

export { MAX_CANDIDATES } from './support.js';

/** The published keys Node verifies `alg` with: its type and curve, the kid named, no other alg or use. */
function nodeKeys(jwks: JSONWebKeySet, alg: string | undefined, kid: string | undefined): Array<[JWK, ByNode]> {
  const found: Array<[JWK, ByNode]> = [];
  for (const key of jwks.keys)
    for (const way of BY_NODE)
      if (
        way.alg === alg &&
        key.kty === way.kty &&
        key.crv === way.crv &&
        (kid === undefined || key.kid === kid) &&
        (key.alg === undefined || key.alg === alg) &&
        (key.use === undefined || key.use === 'sig')
      )
        found.push([key, way]);
  return found;
}

/**
 * Key types by the first letters of a JWS alg (RFC 7518 §3.1, RFC 8037 §3.1, and jose's ML-DSA):
 * jose judges the curve. jose is given only the keys these select (localKeys).
 */
const KTY_OF: ReadonlyArray<[string, string]> = [
  ['RS', 'RSA'],
  ['PS', 'RSA'],
  ['ES', 'EC'],
  ['Ed', 'OKP'],
  ['ML-DSA', 'AKP'],
];

/**
 * The curve of each ECDSA alg jose verifies (RFC 7518 §3.4): a key of another curve cannot verify
 * it, which jose says with a TypeError, read as the key set's fault (unusableKey), where the key
 * is sound and the token names the wrong one (OIDC-ID-TOKEN-SIGNATURE's).
 */
const CRV_OF: Readonly<Record<string, string>> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' };

/** The published keys jose may verify `alg` with: its key type and curve, the kid named, no other alg or use. */
function joseKeys(jwks: JSONWebKeySet, alg: string, kid: string | undefined): JWK[] {
  const kty = KTY_OF.find(([prefix]) => alg.startsWith(prefix))?.[1];
  // No key type: an alg no public key verifies (jose refuses it), not the keys that name no kty.
  if (kty === undefined) return [];
  const crv = Object.hasOwn(CRV_OF, alg) ? CRV_OF[alg] : undefined;
  return jwks.keys.filter(
    (key) =>
      key.kty === kty &&
      (crv === undefined || key.crv === crv) &&
      (kid === undefined || key.kid === kid) &&
      (key.alg === undefined || key.alg === alg) &&
      (key.use === undefined || key.use === 'sig'),
  );
}

/**
 * The published keys verifyJwt may try for a token with this protected header, in the order it
 * tries them, at most MAX_CANDIDATES: those localKeys judges for forgeability whatever its budget.
 */
export function mayHaveSigned(jwks: JSONWebKeySet, header: { alg?: unknown; kid?: unknown }): JWK[] {
  const alg = typeof header.alg === 'string' ? header.alg : undefined;
  const kid = typeof header.kid === 'string' ? header.kid : undefined;
  const byNode = nodeKeys(jwks, alg, kid).map(([key]) => key);
  const keys = byNode.length || alg === undefined ? byNode : joseKeys(jwks, alg, kid);
  return keys.slice(0, MAX_CANDIDATES);
}

/**
 * The first of the keys that may have signed a token to verify it (`attempt`: its answer, or
 * undefined where the signature is not that key's), in the set's order, at most MAX_CANDIDATES.
 * A key that cannot be read is the key set's fault only if none verifies. When the bound leaves
 * keys untried and none tried verified, nothing is known of the signature: the harness's error.
 */
async function firstVerifying<K, R>(candidates: readonly K[], attempt: (key: K) => Promise<R | undefined>): Promise<R> {
  let unreadable: Error | undefined;
  for (const key of candidates.slice(0, MAX_CANDIDATES)) {
    try {
      const verified = await attempt(key);
      if (verified !== undefined) return verified;
    } catch (error) {
      if (!unusableKey(error)) throw error;
      unreadable ??= error as Error;
    }
  }
  const untried = candidates.length - MAX_CANDIDATES;
  if (untried > 0)
    throw new HarnessError(
      `none of the first ${MAX_CANDIDATES} of the ${candidates.length} published keys that may have signed the token verified it, ` +
        `and the harness tries no more (each costs work on the run's one thread): ${untried} not tried, so no verdict`,
    );
  throw unreadable ?? new errors.JWSSignatureVerificationFailed();
}

/**
 * jose's verification with `keys`, which hold the first MAX_CANDIDATES keys that may have signed
 * (localKeys); a token several keys match, which jose refuses, is tried with each of them, and so
 * is one that more keys match than `keys` hold: jose's verdict on a part would not be the set's.
 */
async function joseVerify(
  token: string,
  jwks: JSONWebKeySet,
  keys: JWTVerifyGetKey,
  options: JWTVerifyOptions,
  header: { alg?: unknown; kid?: unknown },
): Promise<{ payload: JWTPayload }> {
  const { alg, kid } = header;
  // A kid that is no string names no key, for jose as here.
  const several =
    typeof alg === 'string' && (kid === undefined || typeof kid === 'string') ? joseKeys(jwks, alg, kid) : [];
  if (several.length <= MAX_CANDIDATES)
    try {
      return await jwtVerify(token, keys, options);
    } catch (error) {
      if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
    }
  return firstVerifying(several, async (jwk) => {
    try {
      return await jwtVerify(token, createLocalJWKSet(publicKeys({ keys: [jwk] })), options);
    } catch (error) {
      // Not this key's signature (or a key jose would not take for the alg): the next one's.
      if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey)
        return undefined;
      throw error;
    }
  });
}

/**
 * The protected header's extensions judged as jose judges them, so that a verdict does not depend on
 * which of the two verified the token: `crit` (RFC 7515 §4.1.11) must be a list of names present in
 * the header that are understood, and the only one understood is RFC 7797's `b64`, a boolean; a JWT
 * whose `crit` names `b64` false has an unencoded payload, which no JWT has. `b64` outside `crit` is
 * ignored.
 */
function refuseAsJose(header: Record<string, unknown>): void {
  const { crit } = header;
  if (crit === undefined) return;
  if (!Array.isArray(crit) || crit.length === 0 || crit.some((name) => typeof name !== 'string' || name === ''))
    throw new errors.JWSInvalid('"crit" must be a non-empty array of non-empty strings');
  for (const name of crit as string[]) {
    if (header[name] === undefined) throw new errors.JWSInvalid(`Extension Header Parameter "${name}" is missing`);
    if (name !== 'b64') throw new errors.JOSENotSupported(`Extension Header Parameter "${name}" is not recognized`);
  }
  if (typeof header.b64 !== 'boolean') throw new errors.JWSInvalid('"b64" must be a boolean');
  if (header.b64 === false) throw new errors.JWTInvalid('JWTs MUST NOT use unencoded payload');
}

/**
 * Verify `token` with `keys` (jose's local key set of the published public keys, `jwks`), its
 * claims as `options` ask (issuer, audience, clock tolerance). Throws as jose does: where no key
 * verifies, a key Node cannot read is a TypeError (the key set's fault), else
 * JWSSignatureVerificationFailed; an extension (refuseAsJose), a claim: jose's errors.
 */
export async function verifyJwt(
  token: string,
  jwks: JSONWebKeySet,
  keys: JWTVerifyGetKey,
  options: JWTVerifyOptions = {},
): Promise<{ payload: JWTPayload }> {
  let header;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return jwtVerify(token, keys, options); // jose says what is wrong
  }
  const candidates = nodeKeys(jwks, header.alg, header.kid);
  const segments = token.split('.');
  // Not three segments: jose says what is wrong, as for every algorithm.
  if (candidates.length === 0 || segments.length !== 3) return joseVerify(token, jwks, keys, options, header);
  refuseAsJose(header);
  const [head, body, signature] = segments;
  const input = Buffer.from(`${head}.${body}`);
  const signed = Buffer.from(signature, 'base64url');
  await firstVerifying(candidates, async ([jwk, way]) => {
    let key;
    try {
      key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    } catch (error) {
      throw new TypeError(`the published ${way.crv} key cannot be read: ${(error as Error).message}`, { cause: error });
    }
    return verify(way.hash, input, way.hash ? { key, dsaEncoding: 'ieee-p1363' } : key, signed) || undefined;
  });
  // The claims judged as jwtVerify judges them, on the same payload.
  const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${body}.`;
  return { payload: UnsecuredJWT.decode(unsigned, options).payload };
}
