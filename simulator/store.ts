/**
 * In-memory state of the identity provider: accounts, applications and every credential.
 * Plain records in Maps keyed by the value a request presents, so a lookup is one hash probe.
 * The OAuth modules own the logic; the REST side only reads (authentication, current user).
 */
export interface User {
  id: number;
  username: string;
  name: string;
  email: string;
  /** Keyed hash of the password (digest.ts); the plaintext is never stored. */
  passwordHash: string;
  admin: boolean;
  twoFactor: boolean;
  createdAt: number;
  /** Full paths of the groups the user is a direct member of (OIDC `groups_direct`). */
  groups?: string[];
}

export interface Application {
  id: number;
  name: string;
  /** Application ID (`client_id`). */
  uid: string;
  /** Keyed hash of the Client Secret (digest.ts); present for every application, required only when confidential. */
  secretHash: string;
  redirectUris: string[];
  scopes: string[];
  confidential: boolean;
  ownerId: number | null;
}

export interface AccessToken {
  /** Digest of the token (digest.ts): the key of accessTokens; the token itself is not stored. */
  digest: string;
  userId: number;
  /** null for a personal access token. */
  applicationId: number | null;
  scopes: string[];
  createdAt: number; // seconds
  /** seconds of lifetime; null = never expires */
  expiresIn: number | null;
  revokedAt: number | null;
  /** digest of the refresh token issued with it, if any */
  refreshToken: string | null;
  /** authorization code it came from (reuse of that code revokes it) */
  fromCode: string | null;
  kind: 'oauth' | 'personal';
}

export interface RefreshToken {
  /** Digest of the token: the key of refreshTokens. */
  digest: string;
  /** digest of the access token issued with it */
  accessToken: string;
  applicationId: number;
  userId: number;
  scopes: string[];
  createdAt: number;
  revokedAt: number | null;
  /** state name from spec/machines/token-refresh.yaml (absent = initial) */
  state?: string;
}

export interface AuthorizationCode {
  code: string;
  applicationId: number;
  userId: number;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  nonce: string | null;
  createdAt: number;
  expiresIn: number;
  /** access token minted from it; set once exchanged */
  exchangedFor: string | null;
  authTime: number;
  /** state name from spec/machines/authorization-code.yaml (absent = initial) */
  state?: string;
}

export interface DeviceCode {
  deviceCode: string;
  userCode: string;
  applicationId: number;
  scopes: string[];
  createdAt: number;
  expiresIn: number;
  interval: number;
  /** state name from spec/machines/device-authorization.yaml */
  state: string;
  userId: number | null;
  lastPollAt: number | null;
}

/** A signed-in browser (a visitor before sign-in has only a pre-session cookie, nothing stored). */
export interface Session {
  id: string;
  userId: number;
  csrf: string;
  createdAt: number;
}

export interface Store {
  users: Map<number, User>;
  applications: Map<string, Application>; // by uid
  accessTokens: Map<string, AccessToken>; // by digest
  refreshTokens: Map<string, RefreshToken>; // by digest
  codes: Map<string, AuthorizationCode>;
  deviceCodes: Map<string, DeviceCode>; // by device_code
  /** user code -> device code: a typed code is one probe; swept with the device codes (evict.ts). */
  userCodes: Map<string, string>;
  sessions: Map<string, Session>;
  nextId: { user: number; application: number };
}

export function createStore(): Store {
  return {
    users: new Map(),
    applications: new Map(),
    accessTokens: new Map(),
    refreshTokens: new Map(),
    codes: new Map(),
    deviceCodes: new Map(),
    userCodes: new Map(),
    sessions: new Map(),
    nextId: { user: 1, application: 1 },
  };
}

export function userByLogin(store: Store, login: string): User | undefined {
  for (const u of store.users.values()) if (u.username === login || u.email === login) return u;
  return undefined;
}
