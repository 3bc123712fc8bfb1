/**
 * Published keys that verify signatures nobody made. WebCrypto (so jose) imports them and verifies
 * with them, so a provider serving one would have tokens anyone can forge pass as signed:
 * - an RSA key with the public exponent 1: the signature is the padded digest itself;
 * - an RSA key whose modulus is a prime, has a small factor, is the product of two close primes
 *   (Fermat's method finds them) or shares a prime with another key of the set: its private
 *   exponent is computable;
 * - an Ed25519 key of small order (the identity, or another point of the 8-torsion): R = the
 *   identity and S = 0 satisfy RFC 8032 §5.1.7's equation for every message (for order 8, one in
 *   eight; any message can be tweaked until it is one).
 */
import { checkPrimeSync, createPublicKey, diffieHellman, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';

/** The unsigned big-endian integer a JWK member spells in base64url (RSA's n and e). */
const bigEndian = (member: string): bigint => {
  const hex = Buffer.from(member, 'base64url').toString('hex');
  return hex ? BigInt(`0x${hex}`) : 0n;
};

/** RFC 8017 §3.1: an odd public exponent with 3 ≤ e < n. */
function rsaExponentValid(n: string, e: string): boolean {
  const exponent = bigEndian(e);
  return exponent >= 3n && exponent % 2n === 1n && exponent < bigEndian(n);
}

/** The primes below 2,000 (a sieve): a modulus one of them divides is factored at once. */
const SMALL_PRIMES: bigint[] = (() => {
  const composite = new Uint8Array(2000);
  const primes: bigint[] = [];
  for (let i = 2; i < composite.length; i++) {
    if (composite[i]) continue;
    primes.push(BigInt(i));
    for (let j = i * i; j < composite.length; j += i) composite[j] = 1;
  }
  return primes;
})();

/**
 * Rounds of Fermat's method: it finds p and q when (p - q)^2 / (8 sqrt(n)) is below this, so
 * primes that differ in their top bits only (one drawn next to the other) fall in the first round.
 * FIPS 186-5 keeps |p - q| above 2^(bits/2 - 100), which no bounded search reaches.
 */
const FERMAT_ROUNDS = 1024;

/** floor(sqrt(value)) for value >= 0, by Newton's method from above. */
function integerSqrt(value: bigint): bigint {
  if (value < 2n) return value;
  let x = 1n << BigInt(Math.ceil(value.toString(2).length / 2));
  for (let y = (x + value / x) >> 1n; y < x; y = (x + value / x) >> 1n) x = y;
  return x;
}

/** Squares modulo 64, 63 and 65: nearly every number that is not a square is told so by these. */
const RESIDUE_MODULI = [64, 63, 65];
const SQUARE_RESIDUE = RESIDUE_MODULI.map((m) => {
  const square = new Uint8Array(m);
  for (let i = 0; i < m; i++) square[(i * i) % m] = 1;
  return square;
});
/** The residues are followed modulo their product, in plain numbers: a round costs no BigInt. */
const RESIDUE_PRODUCT = RESIDUE_MODULI.reduce((a, b) => a * b);

/** Does Fermat's method split odd `n` into two factors within FERMAT_ROUNDS rounds? */
function fermatSplits(n: bigint): boolean {
  const root = integerSqrt(n);
  if (root * root === n) return true;
  const start = root + 1n;
  const m = BigInt(RESIDUE_PRODUCT);
  // For a = start + k, b2 = a^2 - n; b2 grows by 2a + 1 from one a to the next.
  let b2 = Number((start * start - n) % m);
  let a = Number(start % m);
  for (let k = 0; k < FERMAT_ROUNDS; k++) {
    if (SQUARE_RESIDUE.every((square, i) => square[b2 % RESIDUE_MODULI[i]])) {
      const x = start + BigInt(k);
      const square = x * x - n;
      const y = integerSqrt(square);
      if (y * y === square) return x - y > 1n;
    }
    b2 = (b2 + 2 * a + 1) % RESIDUE_PRODUCT;
    a = (a + 1) % RESIDUE_PRODUCT;
  }
  return false;
}

/**
 * The largest modulus judged: OpenSSL verifies nothing with a larger one (its RSA modulus limit),
 * so such a key forges nothing, and the tests below cost the cube of the size (16,384 bits take
 * about 2 s, a megabyte modulus, within --max-body, would hold the run's one thread for ever).
 */
export const MAX_MODULUS_BITS = 16_384;

/** An RSA modulus's size in bits, from its base64url spelling (JWK's has no padding; leading zero bytes count). */
export const modulusBits = (n: string): number => Math.floor((n.length * 6) / 8) * 8;

/**
 * What judging a modulus costs, in units of a 2,048-bit one: Miller-Rabin and Fermat's square
 * roots grow with the cube of the size. A caller spends a bounded number of units per key set.
 */
export const modulusCost = (n: string): number => Math.max(1, (modulusBits(n) / 2048) ** 3);

/** Moduli already judged (a run reads its key set many times), at most this many remembered. */
const judgedModuli = new Map<string, boolean>();
const MAX_JUDGED = 1024;

/**
 * Is an RSA modulus one anyone can factor: a prime (φ(n) = n - 1), one with a small prime factor,
 * or one of two close primes? Each way the private exponent follows from the public key. A real
 * modulus costs a few milliseconds once (a Miller-Rabin round fails at once on a composite, then
 * FERMAT_ROUNDS rounds of Fermat's method); a prime costs two rounds.
 */
function rsaModulusFactorable(n: string): boolean {
  const known = judgedModuli.get(n);
  if (known !== undefined) return known;
  const value = bigEndian(n);
  const factorable =
    value < 2n ||
    SMALL_PRIMES.some((p) => value !== p && value % p === 0n) ||
    checkPrimeSync(value, { checks: 2 }) ||
    fermatSplits(value);
  if (judgedModuli.size < MAX_JUDGED) judgedModuli.set(n, factorable);
  return factorable;
}

/**
 * Why an RSA key's modulus lets anyone sign, or undefined. Apart from forgeableKey: it costs a
 * Miller-Rabin round, so a caller judges a bounded number of keys (localKeys, by modulusCost);
 * a modulus above MAX_MODULUS_BITS is not judged.
 */
export function factorableModulus(key: JWK): string | undefined {
  if (key.kty !== 'RSA' || typeof key.n !== 'string' || modulusBits(key.n) > MAX_MODULUS_BITS) return undefined;
  if (!rsaModulusFactorable(key.n)) return undefined;
  return 'an RSA key whose modulus is a prime, has a small factor or is the product of two close primes: its private exponent follows from it, so anyone can sign';
}

/** Sets of moduli already judged for a shared factor, at most MAX_JUDGED remembered. */
const judgedSets = new Map<string, Set<string>>();

const gcd = (a: bigint, b: bigint): bigint => {
  while (b) [a, b] = [b, a % b];
  return a;
};

/**
 * The moduli of `moduli` that share a prime factor with another of them (RSA keys drawn from a
 * random source short of entropy do; Heninger et al., "Mining Your Ps and Qs", 2012): their gcd is
 * that prime, so both private keys follow. Each modulus against the product of the others reduced
 * modulo it: one gcd a modulus, not one a pair (16 keys of 2,048 bits: about 20 ms, once a set).
 * The same modulus twice (one key under two kids, or written with a leading zero octet) shares nothing.
 */
export function sharingModuli(moduli: readonly string[]): Set<string> {
  const written = [...new Set(moduli)].filter((n) => modulusBits(n) <= MAX_MODULUS_BITS);
  const id = written.join('.');
  const known = judgedSets.get(id);
  if (known) return known;
  // By value: one modulus written two ways (with a leading zero octet, RFC 7518 §6.3.1.1) is one.
  const spellings = new Map<bigint, string[]>();
  for (const n of written) {
    const value = bigEndian(n);
    const same = spellings.get(value);
    if (same) same.push(n);
    else spellings.set(value, [n]);
  }
  const values = [...spellings.keys()];
  const sharing = new Set<string>();
  values.forEach((n, i) => {
    if (n < 2n) return;
    let others = 1n;
    for (const [j, m] of values.entries()) if (j !== i) others = (others * m) % n;
    if (gcd(n, others) > 1n) for (const spelled of spellings.get(n)!) sharing.add(spelled);
  });
  if (judgedSets.size < MAX_JUDGED) judgedSets.set(id, sharing);
  return sharing;
}

export const SHARED_FACTOR =
  "an RSA key whose modulus shares a prime factor with another key's of the set: their gcd is that prime, so both private exponents follow and anyone can sign";

/** The prime of Curve25519 and edwards25519. */
const P = 2n ** 255n - 19n;

function power(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  for (let b = base % P, e = exponent; e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) result = (result * b) % P;
  return result;
}

let x25519: KeyObject | undefined;

/** Ed25519 keys already judged, by x (a run reads its key set many times), at most MAX_JUDGED remembered. */
const judgedPoints = new Map<string, boolean>();

/**
 * What judging an Ed25519 key costs, in the units of modulusCost: a modular inverse in BigInt and
 * an X25519 derivation, about 0.4 ms, against about 2 ms for a 2,048-bit modulus.
 */
export const ED25519_COST = 0.2;

/**
 * Is an Ed25519 public key (32 bytes, RFC 8032 §5.1.2) of small order? Its y, mapped to the
 * Montgomery u = (1 + y) / (1 - y) (RFC 7748 §4.1), is a point X25519 multiplies by a multiple of
 * 8: the product is zero (OpenSSL then refuses to derive) exactly when the point is in the
 * 8-torsion. y = 1 is the identity itself, which the map sends to infinity.
 */
function ed25519SmallOrder(x: string): boolean {
  const known = judgedPoints.get(x);
  if (known !== undefined) return known;
  const small = smallOrderPoint(x);
  if (judgedPoints.size < MAX_JUDGED) judgedPoints.set(x, small);
  return small;
}

function smallOrderPoint(x: string): boolean {
  const bytes = Buffer.from(x, 'base64url');
  if (bytes.length !== 32) return false;
  bytes[31] &= 0x7f;
  const y = BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`) % P;
  if (y === 1n) return true;
  const u = ((1n + y) * power((1n - y + P) % P, P - 2n)) % P;
  const little = Buffer.from(u.toString(16).padStart(64, '0'), 'hex').reverse();
  x25519 ??= generateKeyPairSync('x25519').privateKey;
  try {
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'X25519', x: little.toString('base64url') },
      format: 'jwk',
    });
    diffieHellman({ privateKey: x25519, publicKey });
    return false;
  } catch {
    return true;
  }
}

/** Why a published key verifies what nobody signed, or undefined for any other key; cheap for every key. */
export function forgeableKey(key: JWK): string | undefined {
  if (key.kty === 'RSA' && typeof key.n === 'string' && typeof key.e === 'string' && !rsaExponentValid(key.n, key.e))
    return 'an RSA key whose public exponent is not odd, at least 3 and below n (RFC 8017 §3.1): with e = 1 a signature anyone can compute verifies';
  return undefined;
}

/** An Ed25519 key, whose point judgeCost prices and smallOrderKey judges. */
const isEd25519 = (key: JWK): key is JWK & { x: string } =>
  key.kty === 'OKP' && key.crv === 'Ed25519' && typeof key.x === 'string';

/**
 * What judging a key beyond forgeableKey costs (units of modulusCost), or undefined for a key
 * with nothing costly to judge: an RSA modulus, an Ed25519 point.
 */
export function judgeCost(key: JWK): number | undefined {
  if (key.kty === 'RSA' && typeof key.n === 'string') return modulusCost(key.n);
  return isEd25519(key) ? ED25519_COST : undefined;
}

/**
 * Why an Ed25519 key lets anyone sign, or undefined. Apart from forgeableKey: it costs a modular
 * inverse and a derivation, so a caller judges a bounded number of keys (localKeys, by judgeCost).
 */
export function smallOrderKey(key: JWK): string | undefined {
  if (!isEd25519(key) || !ed25519SmallOrder(key.x)) return undefined;
  return 'an Ed25519 key of small order: R = the identity and S = 0, which anyone can send, verify';
}
