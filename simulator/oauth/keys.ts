/**
 * The RS256 signing key of id_tokens and its public JWK. Made on first use (start stays fast) and
 * kept across reset(), so clients that cached the JWKS stay valid. One key per process, shared
 * by the simulators in it: making an RSA key costs about 0.1 s of CPU, and a test process makes
 * hundreds of simulators (each run's start-up asks for the key set). The private key never leaves
 * the process; simulators in one process accept each other's id_tokens, which no client of one
 * simulator can tell.
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

/** The published key, and the one nobody publishes (fault `id-token-unpublished-key`). */
const keys: Record<'published' | 'unpublished', Promise<SigningKey> | undefined> = {
  published: undefined,
  unpublished: undefined,
};

function once(which: keyof typeof keys): Promise<SigningKey> {
  // A failed attempt is not kept: the next use tries again.
  return (keys[which] ??= makeKey().catch((error: unknown) => {
    keys[which] = undefined;
    throw error;
  }));
}

/** The key id_tokens are signed with (a key nobody publishes under the fault `id-token-unpublished-key`). */
export async function signingKey(sim: Sim): Promise<SigningKey> {
  if (!sim.fault('id-token-unpublished-key')) return once('published');
  const [real, rogue] = await Promise.all([once('published'), once('unpublished')]);
  return { ...rogue, kid: real.kid };
}

export async function jwks(sim: Sim): Promise<{ keys: JWK[] }> {
  const key = await once('published');
  return { keys: [sim.fault('jwks-private-members') ? { ...key.publicJwk, ...key.privateMembers } : key.publicJwk] };
}
