/**
 * Keys no verifier may use are oidc.jwks's to judge (review 29, after defect 3): before, only a
 * token naming one found it (jose's TypeError, read as OIDC-JWKS by that token's check), and a set
 * publishing one that no token named passed OIDC-JWKS. And a sound key of another curve than the
 * token's alg is no key that token may be verified with: jose's TypeError for it blamed the set.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { judgeKeySet } from '../../suites/oidc/support.js';
import { mayHaveSigned } from '../../suites/oidc/verify-jwt.js';
import type { CheckContext, FailureDetails } from '../../suites/types.js';

const jwk = (type: 'rsa' | 'ec', options: { modulusLength?: number; namedCurve?: string }): JWK =>
  generateKeyPairSync(type as 'rsa', options as { modulusLength: number }).publicKey.export({ format: 'jwk' });

/** What judgeKeySet says of a set: the messages of the assertions that failed, with their rules. */
function failures(keys: JWK[]): string[] {
  const said: string[] = [];
  const t = {
    expect: (ok: unknown, message: string, details?: FailureDetails) => {
      if (!ok) said.push(`${details?.rules?.join(',')}: ${message}`);
    },
    note: () => undefined,
  } as unknown as CheckContext;
  judgeKeySet(t, { keys });
  return said;
}

describe('oidc.jwks judges what no verifier may use', () => {
  const p256 = jwk('ec', { namedCurve: 'P-256' });

  it('passes a 2048-bit RSA key, a point on P-256 and an Ed448 key of its length', () => {
    const ed448 = generateKeyPairSync('ed448').publicKey.export({ format: 'jwk' }) as JWK;
    expect(failures([jwk('rsa', { modulusLength: 2048 }), p256, ed448])).toEqual([]);
  });

  it.each([
    ['a 1024-bit RSA modulus', () => jwk('rsa', { modulusLength: 1024 }), /an RSA key of 1024 bits/],
    ['an EC point off its curve', () => ({ ...p256, y: p256.x }), /an EC key whose x and y are no point/],
    [
      'an Ed448 point of the wrong length',
      () => ({ kty: 'OKP', crv: 'Ed448', x: Buffer.alloc(50, 7).toString('base64url') }),
      /an OKP key whose x is no point/,
    ],
  ])('fails OIDC-JWKS for %s', (_what, key, message) => {
    const said = failures([jwk('rsa', { modulusLength: 2048 }), { ...key(), kid: 'bad' }]);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^OIDC-JWKS: the key set publishes /);
    expect(said[0]).toMatch(message);
  });

  it('an ES256 token is verified with P-256 keys only: a P-384 key under its kid is none it may name', () => {
    const p384 = { ...jwk('ec', { namedCurve: 'P-384' }), kid: 'k' };
    expect(mayHaveSigned({ keys: [p384] }, { alg: 'ES256', kid: 'k' })).toEqual([]);
    expect(mayHaveSigned({ keys: [p384] }, { alg: 'ES384', kid: 'k' })).toEqual([p384]);
  });
});
