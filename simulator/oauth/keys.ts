/**
 * The RS256 signing key of id_tokens and its public JWK. Made once per simulator on first use
 * (start stays fast) and kept across reset(), so clients that cached the JWKS stay valid.
 */
import { generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import type { Sim } from '../types.js';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: JWK;
  /** The private members (d, p, q, dp, dq, qi), published only under the fault `jwks-private-members`. */
  privateMembers: JWK;
}

const generate = promisify(generateKeyPair);
const RSA_BITS = 2048;

async function makeKey(): Promise<SigningKey> {
  const { publicKey, privateKey } = await generate('rsa', { modulusLength: RSA_BITS });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  const { d, p, q, dp, dq, qi } = await exportJWK(privateKey);
  return {
    kid,
    privateKey,
    publicJwk: { kty: jwk.kty, kid, e: jwk.e, n: jwk.n, use: 'sig', alg: 'RS256' },
    privateMembers: { d, p, q, dp, dq, qi },
  };
}

const published = new WeakMap<Sim, Promise<SigningKey>>();
const unpublished = new WeakMap<Sim, Promise<SigningKey>>();

function once(map: WeakMap<Sim, Promise<SigningKey>>, sim: Sim): Promise<SigningKey> {
  let key = map.get(sim);
  if (!key) map.set(sim, (key = makeKey()));
  return key;
}

/** The key id_tokens are signed with (a key nobody publishes under the fault `id-token-unpublished-key`). */
export async function signingKey(sim: Sim): Promise<SigningKey> {
  if (!sim.fault('id-token-unpublished-key')) return once(published, sim);
  const [real, rogue] = await Promise.all([once(published, sim), once(unpublished, sim)]);
  return { ...rogue, kid: real.kid };
}

export async function jwks(sim: Sim): Promise<{ keys: JWK[] }> {
  const key = await once(published, sim);
  return { keys: [sim.fault('jwks-private-members') ? { ...key.publicJwk, ...key.privateMembers } : key.publicJwk] };
}
