/**
 * Minting and revoking access and refresh tokens, and the token response bodies exactly as the
 * source's table shows them: lowercase `bearer` for code, refresh and password, `Bearer` for the
 * device flow; expires_in from limits; created_at where the source shows it.
 */
import { limits } from '../../spec/index.js';
import type { Sim } from '../types.js';
import type { AccessToken, Application, RefreshToken } from '../store.js';
import { hexId } from '../random.js';
import { digest } from '../digest.js';
import { makeRoom, MOST_HELD } from '../evict.js';
import { formatScope } from './scopes.js';

/** The records as stored (by digest) and the token values, shown once in the response. */
export interface Issued {
  access: AccessToken;
  refresh: RefreshToken | null;
  accessToken: string;
  refreshToken: string | null;
}

export function mintTokens(
  sim: Sim,
  input: {
    userId: number;
    app: Application | null;
    scopes: string[];
    /** The refresh token's scope where it differs from the access token's (RFC 6749 §6: a refresh keeps it). */
    refreshScopes?: string[];
    refresh: boolean;
    fromCode?: string | null;
    expiresIn?: number | null;
    /** Minted by hand (control API): kept whatever the bound (AccessToken.pinned). */
    pinned?: boolean;
  },
): Issued {
  makeRoomForTokens(sim, input.refresh && input.app !== null);
  const now = sim.clock.nowSeconds();
  const accessToken = hexId(32);
  const access: AccessToken = {
    digest: digest(accessToken),
    userId: input.userId,
    applicationId: input.app?.id ?? null,
    scopes: [...input.scopes],
    createdAt: now,
    expiresIn: input.expiresIn === undefined ? limits().accessTokenLifetime : input.expiresIn,
    revokedAt: null,
    refreshToken: null,
    fromCode: input.fromCode ?? null,
    kind: 'oauth',
    ...(input.pinned && { pinned: true }),
  };
  let refresh: RefreshToken | null = null;
  let refreshToken: string | null = null;
  if (input.refresh && input.app) {
    refreshToken = hexId(32);
    refresh = {
      digest: digest(refreshToken),
      accessToken: access.digest,
      applicationId: input.app.id,
      userId: input.userId,
      scopes: [...(input.refreshScopes ?? input.scopes)],
      createdAt: now,
      revokedAt: null,
    };
    access.refreshToken = refresh.digest;
    sim.store.refreshTokens.set(refresh.digest, refresh);
  }
  sim.store.accessTokens.set(access.digest, access);
  return { access, refresh, accessToken, refreshToken };
}

/**
 * Room for one more pair (evict.ts, MOST_HELD): a pair goes as one grant, so an evicted access token
 * takes its refresh token along and the other way round, and neither answers but as unknown.
 * Personal access tokens and tokens minted through the control API are pinned.
 */
function makeRoomForTokens(sim: Sim, withRefresh: boolean): void {
  const { accessTokens, refreshTokens } = sim.store;
  makeRoom(
    accessTokens,
    MOST_HELD.accessTokens,
    (access) => access.refreshToken !== null && refreshTokens.delete(access.refreshToken),
    (access) => access.kind === 'personal' || (access.pinned === true && access.revokedAt === null),
  );
  if (withRefresh)
    makeRoom(refreshTokens, MOST_HELD.refreshTokens, (refresh) => accessTokens.delete(refresh.accessToken));
}

/** Revoke an access token and the refresh token issued with it (they are one grant). */
function revokeAccessToken(sim: Sim, access: AccessToken): void {
  const now = sim.clock.nowSeconds();
  access.revokedAt ??= now;
  const refresh = access.refreshToken ? sim.store.refreshTokens.get(access.refreshToken) : undefined;
  // Stryker disable next-line ConditionalExpression: a token from a code always has its refresh token (evicted together with it)
  if (refresh) refresh.revokedAt ??= now;
}

/** A refresh token's state in spec/machines/token-refresh.yaml: rotation is recorded in `state`, revocation (of it or of its pair) in `revokedAt`. */
export function refreshState(token: RefreshToken): string {
  if (token.state && token.state !== 'active') return token.state;
  return token.revokedAt !== null ? 'revoked' : 'active';
}

/** RFC 6749 §4.1.2: a code used twice revokes every token issued from it, refreshed ones included. */
export function revokeTokensFromCode(sim: Sim, code: string): void {
  for (const token of sim.store.accessTokens.values()) if (token.fromCode === code) revokeAccessToken(sim, token);
}

/** The two spellings the source shows (`Bearer` for the device flow only), and the fault that swaps them. */
function tokenType(sim: Sim, device: boolean): string {
  return device !== sim.fault('token-type-case') ? 'Bearer' : 'bearer';
}

/** Authorization-code and refresh responses. */
export function codeTokenBody(sim: Sim, issued: Issued): Record<string, unknown> {
  return {
    access_token: issued.accessToken,
    token_type: tokenType(sim, false),
    expires_in: issued.access.expiresIn,
    refresh_token: issued.refreshToken ?? undefined,
    created_at: issued.access.createdAt,
  };
}

/** Password response: only access_token, token_type and expires_in. */
export function passwordTokenBody(sim: Sim, issued: Issued): Record<string, unknown> {
  return {
    access_token: issued.accessToken,
    token_type: tokenType(sim, false),
    expires_in: issued.access.expiresIn,
  };
}

/** Device response: with scope and created_at, without refresh_token. */
export function deviceTokenBody(sim: Sim, issued: Issued): Record<string, unknown> {
  return {
    access_token: issued.accessToken,
    token_type: tokenType(sim, true),
    expires_in: issued.access.expiresIn,
    scope: formatScope(issued.access.scopes),
    created_at: issued.access.createdAt,
  };
}
