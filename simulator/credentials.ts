/**
 * How a request presents a token, and whether that token is alive. Shared by /oauth/token/info,
 * /oauth/userinfo, /api/v4 authentication and Git over HTTPS, so all agree on what "valid" means.
 */
import { digest } from './digest.js';
import type { Sim, SimRequest } from './types.js';
import type { AccessToken, User } from './store.js';

export type Presentation = 'bearer' | 'query' | 'private-token' | 'basic';

export interface Presented {
  token: string;
  via: Presentation;
}

/** The token a request presents, in the source's order: Bearer header, access_token query, PRIVATE-TOKEN. */
export function presentedToken(request: SimRequest, url: URL = new URL(request.url)): Presented | null {
  const auth = request.headers.get('authorization');
  if (auth) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return { token: m[1], via: 'bearer' };
  }
  const query = url.searchParams.get('access_token');
  if (query) return { token: query, via: 'query' };
  const pat = request.headers.get('private-token');
  if (pat) return { token: pat, via: 'private-token' };
  return null;
}

export type TokenCheck =
  { ok: true; token: AccessToken; user: User } | { ok: false; reason: 'unknown' | 'expired' | 'revoked' };

export function tokenExpired(sim: Sim, token: { createdAt: number; expiresIn: number | null }): boolean {
  return token.expiresIn !== null && sim.clock.nowSeconds() >= token.createdAt + token.expiresIn;
}

/** Seconds left before expiry (null for a token without expiry). */
export function secondsLeft(sim: Sim, token: AccessToken): number | null {
  return token.expiresIn === null ? null : Math.max(0, token.createdAt + token.expiresIn - sim.clock.nowSeconds());
}

export function checkAccessToken(sim: Sim, value: string): TokenCheck {
  const token = sim.store.accessTokens.get(digest(value));
  const user = token && sim.store.users.get(token.userId);
  if (!token || !user) return { ok: false, reason: 'unknown' };
  if (token.revokedAt !== null) return { ok: false, reason: 'revoked' };
  if (tokenExpired(sim, token)) return { ok: false, reason: 'expired' };
  return { ok: true, token, user };
}

export const TOKEN_PROBLEM: Record<'unknown' | 'expired' | 'revoked' | 'missing', string> = {
  missing: 'No access token was presented',
  unknown: 'The access token is invalid',
  expired: 'The access token expired',
  revoked: 'The access token was revoked',
};
