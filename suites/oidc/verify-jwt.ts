/**
 * A signed JWT verified against the published keys: by jose, save the registered asymmetric
 * algorithms jose (v6) does not verify, which Node's crypto does. A provider may sign with any
 * algorithm the client registered (OIDC Core §3.1.3.7); that the harness's library lacks one is
 * not the provider's fault, and before, such an id_token failed OIDC-ID-TOKEN-SIGNATURE.
 */
import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import {
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
 * Verify `token` with `keys` (jose's local key set of the published public keys, `jwks`), its
 * claims as `options` ask (issuer, audience, clock tolerance). Throws as jose does: where no key
 * verifies, a key Node cannot read is a TypeError (the key set's fault), else
 * JWSSignatureVerificationFailed; a `crit` or `b64` header, a claim: jose's errors.
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
  if (candidates.length === 0 || segments.length !== 3) return jwtVerify(token, keys, options);
  // RFC 7515 §4.1.11: an extension the recipient does not understand (none is) must be refused, as
  // jose refuses it; RFC 7797's unencoded payload is no JWT (RFC 7519 §7.2).
  if (header.crit !== undefined) throw new errors.JOSENotSupported('no "crit" extension is understood');
  if (header.b64 !== undefined) throw new errors.JWSInvalid('a JWT has no "b64" header parameter');
  const [head, body, signature] = segments;
  const input = Buffer.from(`${head}.${body}`);
  const signed = Buffer.from(signature, 'base64url');
  let unreadable: TypeError | undefined;
  const verified = candidates.some(([jwk, way]) => {
    let key;
    try {
      key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    } catch (error) {
      // Another key may still verify (no kid, several keys): only then is this one the fault.
      unreadable ??= new TypeError(`the published ${way.crv} key cannot be read: ${(error as Error).message}`, {
        cause: error,
      });
      return false;
    }
    return verify(way.hash, input, way.hash ? { key, dsaEncoding: 'ieee-p1363' } : key, signed);
  });
  if (!verified) throw unreadable ?? new errors.JWSSignatureVerificationFailed();
  // The claims judged as jwtVerify judges them, on the same payload.
  const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${body}.`;
  return { payload: UnsecuredJWT.decode(unsigned, options).payload };
}
