/**
 * In-memory state of the identity provider: accounts, applications and every credential.
 * Plain records in Maps keyed by the digest of the value a request presents (digest.ts), so a
 * lookup is one keyed hash and one probe, and no credential a client holds is kept here.
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
  /** digest of the authorization code it came from (reuse of that code revokes it) */
  fromCode: string | null;
  kind: 'oauth' | 'personal';
  /**
   * Minted through the control API: like a personal access token, never pushed out by the bound on
   * stored tokens (evict.ts MOST_HELD); it still expires and is swept as any other.
   */
  pinned?: boolean;
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
  /** Digest of the code: the key of codes; the code itself is not stored. */
  digest: string;
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
  /** Digest of the device code (deviceCodes is keyed by its slot); neither code itself is stored. */
  digest: string;
  /** Digest of the user code, normalized as a person's typing is (userCodes is keyed by its slot). */
  userCodeDigest: string;
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

/**
 * A signed-in browser (a visitor before sign-in has only a pre-session cookie, nothing stored).
 * Its CSRF token is derived from the cookie's id (session.ts), so it is not stored either.
 */
export interface Session {
  /** Digest of the session id (the cookie value): the key of sessions. */
  digest: string;
  userId: number;
  createdAt: number;
}

export interface Store {
  users: Map<number, User>;
  applications: Map<string, Application>; // by uid
  accessTokens: Map<string, AccessToken>; // by digest
  refreshTokens: Map<string, RefreshToken>; // by digest
  codes: Map<string, AuthorizationCode>; // by digest
  /** By slotOf(digest) (digest.ts), one record a slot: read through device.ts, which compares the whole digest. */
  deviceCodes: Map<number, DeviceCode>;
  /** slotOf(user code digest) -> its device authorization: a typed code is one probe; swept with the device codes (evict.ts). */
  userCodes: Map<number, DeviceCode>;
  sessions: Map<string, Session>; // by digest of the id
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
