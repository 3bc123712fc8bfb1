/**
 * verifyJwt verifies what jose (v6) cannot (EdDSA and Ed448 over Ed448 keys, ES256K) with Node's
 * crypto, and refuses there what jose would refuse: another key's signature, a changed payload, a
 * DER-encoded ECDSA signature (RFC 7518 §3.4 wants R || S), a key off its curve, claims that fail,
 * a `crit` extension or an unencoded payload (RFC 7515 §4.1.11, RFC 7797), a fourth segment.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, type JWK } from 'jose';
import { MAX_CANDIDATES, mayHaveSigned, verifyJwt } from '../../suites/oidc/verify-jwt.js';
import { HarnessError } from '../../suites/runner/errors.js';
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
const rsa = (): Made => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
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
  const hash = alg === 'EdDSA' || alg === 'Ed448' ? null : 'sha256';
  return `${input}.${sign(hash, Buffer.from(input), key).toString('base64url')}`;
}

/** verifyJwt as the checks call it: jose given the keys that may have signed (localKeys), not the set. */
const verifying = (jwt: string, ...published: JWK[]) => {
  const jwks: JSONWebKeySet = { keys: published.map((k) => ({ ...k, kid: 'k' })) };
  const header = jwt.split('.').length === 3 ? decodeProtectedHeader(jwt) : {};
  const keys = createLocalJWKSet({ keys: mayHaveSigned(jwks, header) });
  return verifyJwt(jwt, jwks, keys, { issuer: CLAIMS.iss, audience: CLAIMS.aud });
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

/**
 * A token several published keys may have signed: several under its kid (RFC 7517 §4.5 asks for
 * distinct kids only as a SHOULD), or no kid at all (a signed userinfo answer). Each is tried, by
 * jose's path (RS256) and by Node's (ES256K), the first MAX_CANDIDATES of them: past that bound
 * the harness's, never a verdict. Before, jose refused two such keys and Node's path five, and the
 * id_token failed OIDC-ID-TOKEN-SIGNATURE for the harness's library and bound.
 */
describe('verifyJwt: a token matched by many keys', () => {
  const many: Array<[string, () => Made]> = [
    ['RS256', rsa],
    ['ES256K', secp256k1],
  ];
  const made = new Map(many.map(([alg, make]) => [alg, Array.from({ length: 5 }, make)]));

  it.each(many)('%s: the signing key among the first four under its kid, or with no kid: verified', async (alg) => {
    const [signer, ...others] = made.get(alg)!;
    const firstFour = [...others.slice(0, 3).map((k) => k.jwk), signer.jwk];
    expect(await code(verifying(token(alg, signer), ...firstFour))).toBe('verified');
    const noKid = token(alg, signer, CLAIMS, 'ieee-p1363', { kid: undefined });
    expect(await code(verifying(noKid, ...firstFour))).toBe('verified');
    // The claims of the key that verified are judged: an expired token is said so, not "no key".
    const expired = token(alg, signer, { ...CLAIMS, iat: now - 7200, exp: now - 3600 });
    expect(await code(verifying(expired, others[0].jwk, signer.jwk))).toBe('ERR_JWT_EXPIRED');
    expect(await code(verifying(token(alg, signer), ...others.map((k) => k.jwk)))).toBe(
      'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    );
  });

  it.each(many)('%s: past the four tried, no verdict: the harness says it left keys untried', async (alg) => {
    const [signer, ...others] = made.get(alg)!;
    const error = (await verifying(token(alg, signer), ...others.map((k) => k.jwk), signer.jwk).catch(
      (e: unknown) => e,
    )) as Error;
    expect(error).toBeInstanceOf(HarnessError);
    expect(error.message).toBe(
      `none of the first ${MAX_CANDIDATES} of the 5 published keys that may have signed the token verified it, ` +
        "and the harness tries no more (each costs work on the run's one thread): 1 not tried, so no verdict",
    );
    expect(await code(verifying(token(alg, signer), signer.jwk, ...others.map((k) => k.jwk)))).toBe('verified');
  });

  // jose is given the first four (localKeys); of those it may use one key alone (key_ops leave out
  // the others), which does not verify: a verdict on part of the keys, where the whole set has none.
  it('RS256: of more keys than jose is given, one it may use that does not verify is no verdict', async () => {
    const [signer, ...others] = made.get('RS256')!;
    const unusable = others.slice(0, 3).map((k) => ({ ...k.jwk, key_ops: ['encrypt'] }));
    const error = (await verifying(token('RS256', signer), ...unusable, others[3].jwk, signer.jwk).catch(
      (e: unknown) => e,
    )) as Error;
    expect(error).toBeInstanceOf(HarnessError);
    expect(error.message).toMatch(/^none of the first 4 of the 5 published keys that may have signed the token/);
  });
});
