/**
 * verifyJwt verifies what jose (v6) cannot (EdDSA and Ed448 over Ed448 keys, ES256K) with Node's
 * crypto, and refuses there what jose would refuse: another key's signature, a changed payload, a
 * DER-encoded ECDSA signature (RFC 7518 §3.4 wants R || S), a key off its curve, claims that fail,
 * a `crit` extension or an unencoded payload (RFC 7515 §4.1.11, RFC 7797), a fourth segment.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLocalJWKSet, type JSONWebKeySet, type JWK } from 'jose';
import { verifyJwt } from '../../suites/oidc/verify-jwt.js';
import { unusableKey } from '../../suites/oidc/support.js';

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = Math.floor(Date.now() / 1000);
const CLAIMS = { iss: 'https://idp.example', aud: 'client', sub: '1', iat: now, exp: now + 600 };

interface Made {
  jwk: JWK;
  privateKey: KeyObject;
}
const ed448 = (): Made => {
  const { publicKey, privateKey } = generateKeyPairSync('ed448');
  return { jwk: publicKey.export({ format: 'jwk' }), privateKey };
};
const secp256k1 = (): Made => {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
  return { jwk: publicKey.export({ format: 'jwk' }), privateKey };
};

function token(
  alg: string,
  made: Made,
  claims: object = CLAIMS,
  encoding: 'ieee-p1363' | 'der' = 'ieee-p1363',
  header: object = {},
) {
  const input = `${part({ alg, kid: 'k', ...header })}.${part(claims)}`;
  const key = alg === 'ES256K' ? { key: made.privateKey, dsaEncoding: encoding } : made.privateKey;
  return `${input}.${sign(alg === 'ES256K' ? 'sha256' : null, Buffer.from(input), key).toString('base64url')}`;
}

const verifying = (jwt: string, ...published: JWK[]) => {
  const jwks: JSONWebKeySet = { keys: published.map((k) => ({ ...k, kid: 'k' })) };
  return verifyJwt(jwt, jwks, createLocalJWKSet(jwks), { issuer: CLAIMS.iss, audience: CLAIMS.aud });
};
const code = (promise: Promise<unknown>) =>
  promise.then(
    () => 'verified',
    (e: Error & { code?: string }) => e.code ?? e.name,
  );

describe('verifyJwt: the algorithms jose does not verify, by Node', () => {
  const cases: Array<[string, () => Made]> = [
    ['EdDSA', ed448],
    ['Ed448', ed448],
    ['ES256K', secp256k1],
  ];

  it.each(cases)('%s: a good signature verifies and gives the claims', async (alg, make) => {
    const made = make();
    const { payload } = await verifying(token(alg, made), made.jwk);
    expect(payload).toEqual(CLAIMS);
  });

  it.each(cases)("%s: another key's signature, or a changed payload, does not verify", async (alg, make) => {
    const made = make();
    expect(await code(verifying(token(alg, make()), made.jwk))).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    const [head, , signature] = token(alg, made).split('.');
    const changed = `${head}.${part({ ...CLAIMS, sub: '2' })}.${signature}`;
    expect(await code(verifying(changed, made.jwk))).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
  });

  it.each(cases)('%s: claims are judged as jose judges them', async (alg, make) => {
    const made = make();
    const expired = token(alg, made, { ...CLAIMS, iat: now - 7200, exp: now - 3600 });
    expect(await code(verifying(expired, made.jwk))).toBe('ERR_JWT_EXPIRED');
    const elsewhere = token(alg, made, { ...CLAIMS, iss: 'https://other.example' });
    expect(await code(verifying(elsewhere, made.jwk))).toBe('ERR_JWT_CLAIM_VALIDATION_FAILED');
  });

  it.each(cases)(
    '%s: refused as jose refuses it: an extension not understood, an unencoded payload, a fourth segment',
    async (alg, make) => {
      const made = make();
      const crit = token(alg, made, CLAIMS, 'ieee-p1363', { crit: ['urn:unknown'], 'urn:unknown': 1 });
      expect(await code(verifying(crit, made.jwk))).toBe('ERR_JOSE_NOT_SUPPORTED');
      const b64 = token(alg, made, CLAIMS, 'ieee-p1363', { b64: false, crit: ['b64'] });
      expect(await code(verifying(b64, made.jwk))).toBe('ERR_JWT_INVALID');
      expect(await code(verifying(`${token(alg, made)}.extra`, made.jwk))).toBe('ERR_JWS_INVALID');
    },
  );

  it.each(cases)(
    '%s: accepted as jose accepts it: b64 outside crit (ignored), crit naming b64 true',
    async (alg, make) => {
      const made = make();
      for (const header of [{ b64: true }, { b64: false }, { crit: ['b64'], b64: true }])
        expect(
          await code(verifying(token(alg, made, CLAIMS, 'ieee-p1363', header), made.jwk)),
          JSON.stringify(header),
        ).toBe('verified');
    },
  );

  it('ES256K: a key Node cannot read beside the one that signed: the signature verifies', async () => {
    const made = secp256k1();
    const off = { ...made.jwk, y: Buffer.alloc(32, 7).toString('base64url') };
    expect(await code(verifying(token('ES256K', made), off, made.jwk))).toBe('verified');
  });

  it('ES256K: a DER-encoded signature does not verify (RFC 7518 §3.4: R || S)', async () => {
    const made = secp256k1();
    expect(await code(verifying(token('ES256K', made, CLAIMS, 'der'), made.jwk))).toBe(
      'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    );
  });

  it("ES256K: a published key off its curve is the key set's fault (unusableKey), not the signature's", async () => {
    const made = secp256k1();
    const off = { ...made.jwk, y: Buffer.alloc(32, 7).toString('base64url') };
    const error = await verifying(token('ES256K', made), off).catch((e: unknown) => e);
    expect(unusableKey(error)).toBe(true);
  });

  it('a key of another alg or use is not taken: nothing verifies it', async () => {
    const made = secp256k1();
    expect(await code(verifying(token('ES256K', made), { ...made.jwk, alg: 'ES256' }))).not.toBe('verified');
    expect(await code(verifying(token('ES256K', made), { ...made.jwk, use: 'enc' }))).not.toBe('verified');
  });
});

describe('verifyJwt: a token matched by many keys', () => {
  it('ES256K: more than four keys under the kid are refused as jose refuses two, none of them tried', async () => {
    const made = secp256k1();
    const others = Array.from({ length: 4 }, () => secp256k1().jwk);
    expect(await code(verifying(token('ES256K', made), ...others.slice(0, 3), made.jwk))).toBe('verified');
    expect(await code(verifying(token('ES256K', made), ...others, made.jwk))).toBe('ERR_JWKS_MULTIPLE_MATCHING_KEYS');
  });
});
