/**
 * Published keys no verifier may use, whatever signed with them: an RSA modulus under RFC 7518's
 * floor, a point Node cannot import (off its curve, or a curve it does not know). jose refuses
 * them while verifying (unusableKey); judged here, they are the key set's failure (OIDC-JWKS),
 * said by oidc.jwks, which owns it, and not only when an id_token happens to name one.
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import type { JWK } from 'jose';

/** RFC 7518 §3.3, §3.5, §4.2, §4.3: an RSA key of 2048 bits or larger MUST be used. */
const MIN_MODULUS_BITS = 2048;

/** The size of the modulus a JWK's n spells: its leading zero octets (RFC 7518 §6.3.1.1) do not count. */
function modulusSize(n: string): number {
  const bytes = Buffer.from(n, 'base64url');
  const first = bytes.findIndex((b) => b !== 0);
  return first < 0 ? 0 : (bytes.length - first - 1) * 8 + bytes[first].toString(2).length;
}

/** Why an RSA key is too short to verify with, or undefined; cheap for every key (a decode of n). */
export function shortModulus(key: JWK): string | undefined {
  if (key.kty !== 'RSA' || typeof key.n !== 'string') return undefined;
  const bits = modulusSize(key.n);
  if (bits >= MIN_MODULUS_BITS) return undefined;
  return `an RSA key of ${bits} bits, which no verifier may use (RFC 7518 §3.3: 2048 bits or larger)`;
}

/**
 * What importing an EC point costs, in the units of modulusCost (support.ts's budget): about
 * 0.14 ms for P-256, which checks the point is on its curve, against about 2 ms for a modulus
 * (an eighth, rounded up to a fraction the sum of which stays exact).
 */
export const EC_COST = 0.125;

/** An EC key with its coordinates, or an OKP key with its point: what EC_COST prices importing. */
export const isPoint = (key: JWK): boolean =>
  typeof key.crv === 'string' &&
  typeof key.x === 'string' &&
  ((key.kty === 'EC' && typeof key.y === 'string') || key.kty === 'OKP');

/**
 * Why a key's point cannot be imported (an EC point off its curve, a curve Node does not know, an
 * OKP point of the wrong length), or undefined. Node verifies Ed448 and secp256k1 signatures itself
 * (verify-jwt.ts) and refuses such a key there, as jose does the others.
 */
export function unreadablePoint(key: JWK): string | undefined {
  if (!isPoint(key)) return undefined;
  try {
    const { kty, crv, x, y } = key;
    createPublicKey({ key: { kty, crv, x, ...(kty === 'EC' ? { y } : {}) } as JsonWebKey, format: 'jwk' });
    return undefined;
  } catch {
    return key.kty === 'EC'
      ? 'an EC key whose x and y are no point of the curve it names, or of no curve known (RFC 7518 §6.2.1): nothing verifies with it'
      : 'an OKP key whose x is no point of the curve it names, or of no curve known (RFC 8037 §2): nothing verifies with it';
  }
}
