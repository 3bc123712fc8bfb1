/** The OpenID Connect id_token (RS256): sub, email, email_verified, groups_direct, auth_time, iss/aud/exp/iat/nonce. */
import { SignJWT } from 'jose';
import { limits } from '../../spec/index.js';
import type { Sim } from '../types.js';
import type { Application, User } from '../store.js';
import { groupsOf } from './claims.js';
import { signingKey } from './keys.js';

export async function idToken(
  sim: Sim,
  input: { issuer: string; app: Application; user: User; nonce: string | null; authTime: number },
): Promise<string> {
  const key = await signingKey(sim);
  const now = sim.clock.nowSeconds();
  const claims: Record<string, unknown> = {
    email: input.user.email,
    email_verified: true,
    groups_direct: groupsOf(input.user),
    auth_time: input.authTime,
  };
  if (input.nonce !== null) claims.nonce = input.nonce;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
    .setIssuer(input.issuer)
    .setSubject(String(input.user.id))
    .setAudience(input.app.uid)
    .setIssuedAt(now)
    .setExpirationTime(now + limits().accessTokenLifetime)
    .sign(key.privateKey);
}
