/**
 * Accounts, claims, keys, discovery, id_token and userinfo with their exact outputs: every
 * validation message at its boundary (one input changed at a time), the seeded accounts word for
 * word, the discovery document whole, and what each identity fault changes.
 */
import { calculateJwkThumbprint, createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { limits } from '../../../spec/index.js';
import { createSimulator } from '../../../simulator/core.js';
import { digest } from '../../../simulator/digest.js';
import {
  applicationById,
  createApplication,
  createPersonalAccessToken,
  createUser,
  redirectUriProblem,
  seeded,
  seededRedirectUri,
  ValidationError,
} from '../../../simulator/oauth/accounts.js';
import { groupsOf, userinfoClaimNames, userinfoClaims } from '../../../simulator/oauth/claims.js';
import { idToken } from '../../../simulator/oauth/id-token.js';
import { KNOWN_SCOPES } from '../../../simulator/oauth/scopes.js';
import type { User } from '../../../simulator/store.js';
import type { Sim } from '../../../simulator/types.js';
import { mint } from '../api/helpers.js';

/**
 * Simulators are made inside tests, never while the file loads: a mutant that breaks the seed
 * must fail a test, not the loading of the file (which a mutation run would not count).
 */
function lazy<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

const sim = lazy(() => createSimulator({ clock: { frozen: true } }));
const ISSUER = 'http://idp.test';

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).status).toBe(400);
    return (error as Error).message;
  }
  throw new Error('not refused');
}

async function get(on: Sim, url: string, headers: Record<string, string> = {}) {
  const res = await on.handle(new Request(url, { headers }));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('createUser', () => {
  const bad = 'username must start with a letter or digit and use only letters, digits, _ . -';

  it('accepts a username of one letter or digit, then letters, digits, _ . - up to 255 characters', () => {
    for (const name of ['a', 'Z', '9', 'a_b.c-D9', `u${'x'.repeat(254)}`]) {
      expect(createUser(sim(), { username: name }).username).toBe(name);
    }
  });

  it('refuses every other username with one message', () => {
    for (const name of ['', ' ', '_a', '.a', '-a', 'a b', 'a/b', 'ab!', '!ab', 'é', `v${'x'.repeat(255)}`]) {
      expect(
        refusal(() => createUser(sim(), { username: name })),
        name,
      ).toBe(bad);
    }
    expect(refusal(() => createUser(sim(), { username: undefined as unknown as string }))).toBe(bad);
  });

  it('trims the username and refuses one taken in any letter case, naming it', () => {
    expect(createUser(sim(), { username: '  Trimmed  ' }).username).toBe('Trimmed');
    expect(refusal(() => createUser(sim(), { username: 'ROOT' }))).toBe('username ROOT is taken');
    expect(refusal(() => createUser(sim(), { username: 'trimmed' }))).toBe('username trimmed is taken');
  });

  it('fills name and email from the username, trims given ones, and keeps the record with its next id', () => {
    const next = sim().store.nextId.user;
    const plain = createUser(sim(), { username: 'plain', name: '  ', email: ' ' });
    expect({ ...Object.getPrototypeOf(plain) }).toEqual({
      id: next,
      username: 'plain',
      name: 'plain',
      email: 'plain@example.com',
      passwordHash: digest(plain.password),
      admin: false,
      twoFactor: false,
      createdAt: sim().clock.nowSeconds(),
    });
    const full = createUser(sim(), {
      username: 'full',
      name: ' Full Name ',
      email: ' full@corp.test ',
      admin: true,
      twoFactor: true,
      password: 'pw-1',
    });
    expect(full).toMatchObject({
      id: next + 1,
      name: 'Full Name',
      email: 'full@corp.test',
      admin: true,
      twoFactor: true,
    });
    expect(sim().store.users.get(next + 1)).toBe(Object.getPrototypeOf(full));
    expect(sim().store.nextId.user).toBe(next + 2);
  });

  it('stores only the hash of the password; the plaintext is shown once, generated when none or an empty one is given', () => {
    const given = createUser(sim(), { username: 'given', password: 'correct horse' });
    expect(given.password).toBe('correct horse');
    expect(Object.hasOwn(given, 'password')).toBe(true);
    const stored = sim().store.users.get(given.id)!;
    expect('password' in stored).toBe(false);
    expect(stored.passwordHash).toBe(digest('correct horse'));
    for (const password of [undefined, '']) {
      const made = createUser(sim(), { username: `made${password ?? 'none'}`, password });
      expect(made.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(made.passwordHash).toBe(digest(made.password));
    }
  });
});

describe('redirectUriProblem', () => {
  const production = lazy(() => createSimulator({ settings: { developmentMode: false } }));
  const tolerant = lazy(() =>
    createSimulator({ settings: { developmentMode: false }, faults: ['http-redirect-accepted'] }),
  );

  it('names the problem of each kind of URI, word for word', () => {
    expect(redirectUriProblem(sim(), 'client/cb')).toBe('client/cb is not an absolute URI');
    expect(redirectUriProblem(sim(), 'https://c.test/cb#x')).toBe('https://c.test/cb#x must not contain a fragment');
    expect(redirectUriProblem(sim(), 'https://c.test/cb#')).toBe('https://c.test/cb# must not contain a fragment');
    for (const uri of ['javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', 'vbscript:x']) {
      expect(redirectUriProblem(sim(), uri), uri).toBe(`${uri} uses a forbidden scheme`);
    }
  });

  it('accepts HTTPS and native schemes anywhere, plain HTTP only in development mode (GRANT-REDIRECT-HTTPS)', () => {
    for (const on of [sim(), production()]) {
      expect(redirectUriProblem(on, 'https://c.test/cb?x=1')).toBeNull();
      expect(redirectUriProblem(on, 'com.example.app:/cb')).toBeNull();
    }
    expect(redirectUriProblem(sim(), 'http://127.0.0.1:8080/cb')).toBeNull();
    expect(redirectUriProblem(production(), 'http://127.0.0.1:8080/cb')).toBe(
      'http://127.0.0.1:8080/cb must use HTTPS (plain HTTP is accepted only in development mode)',
    );
    expect(redirectUriProblem(tolerant(), 'http://127.0.0.1:8080/cb')).toBeNull();
  });
});

describe('createApplication', () => {
  const input = { name: 'App', redirectUris: ['https://c.test/cb'], scopes: ['api'] };

  it('refuses a missing name, no redirect URI, a bad one, no scope and unknown scopes, one at a time', () => {
    const refused = (change: Record<string, unknown>) =>
      refusal(() => createApplication(sim(), { ...input, ...change }));
    expect(refused({ name: '  ' })).toBe('name is required');
    expect(refused({ name: undefined })).toBe('name is required');
    expect(refused({ redirectUris: [' ', ''] })).toBe('at least one redirect URI is required');
    expect(refused({ redirectUris: undefined })).toBe('at least one redirect URI is required');
    expect(refused({ redirectUris: ['https://c.test/cb', 'javascript:x', 'cb'] })).toBe(
      'javascript:x uses a forbidden scheme',
    );
    expect(refused({ scopes: [] })).toBe(`choose at least one scope of ${KNOWN_SCOPES.join(', ')}`);
    expect(refused({ scopes: undefined })).toBe(`choose at least one scope of ${KNOWN_SCOPES.join(', ')}`);
    expect(refused({ scopes: ['api', 'nope', 'zip'] })).toBe('unknown scope nope, zip');
  });

  it('keeps trimmed URIs and distinct scopes; confidential and ownerless unless said; a 64-hex uid and a gloas- secret', () => {
    const next = sim().store.nextId.application;
    const app = createApplication(sim(), {
      name: ' App ',
      redirectUris: [' https://c.test/a ', '', 'https://c.test/b'],
      scopes: ['api', 'read_user', 'api'],
    });
    const stored = sim().store.applications.get(app.uid)!;
    expect(stored).toBe(Object.getPrototypeOf(app));
    expect({ ...stored }).toEqual({
      id: next,
      name: 'App',
      uid: app.uid,
      secretHash: digest(app.secret),
      redirectUris: ['https://c.test/a', 'https://c.test/b'],
      scopes: ['api', 'read_user'],
      confidential: true,
      ownerId: null,
    });
    expect(app.uid).toMatch(/^[0-9a-f]{64}$/);
    expect(app.secret).toMatch(/^gloas-[A-Za-z0-9_-]{43}$/);
    expect('secret' in stored).toBe(false);
    const pub = createApplication(sim(), { ...input, confidential: false, ownerId: 7 });
    expect(pub).toMatchObject({ id: next + 1, confidential: false, ownerId: 7 });
  });
});

describe('createPersonalAccessToken', () => {
  it('stores a personal token without expiry under the digest of the token it shows', () => {
    const pat = createPersonalAccessToken(sim(), 5, ['read_user'], 'glpat-given');
    expect(pat.token).toBe('glpat-given');
    expect(sim().store.accessTokens.get(digest('glpat-given'))).toEqual({
      digest: digest('glpat-given'),
      userId: 5,
      applicationId: null,
      scopes: ['read_user'],
      createdAt: sim().clock.nowSeconds(),
      expiresIn: null,
      revokedAt: null,
      refreshToken: null,
      fromCode: null,
      kind: 'personal',
    });
    expect(createPersonalAccessToken(sim(), 5, ['api']).token).toMatch(/^glpat-[A-Za-z0-9_-]{27}$/);
  });
});

describe('the seeded accounts', () => {
  let fresh: Sim;
  let s: ReturnType<typeof seeded>;
  beforeEach(() => {
    fresh = createSimulator({ clock: { frozen: true } });
    s = seeded(fresh);
  });

  it('are root (admin), developer and two-factor, each with a stored password hash', () => {
    const users = [s.admin, s.user, s.twoFactorUser].map((u) => ({
      username: u.username,
      name: u.name,
      admin: u.admin,
      twoFactor: u.twoFactor,
      hashed: fresh.store.users.get(u.id)!.passwordHash === digest(u.password),
    }));
    expect(users).toEqual([
      { username: 'root', name: 'Administrator', admin: true, twoFactor: false, hashed: true },
      { username: 'developer', name: 'Dev Eloper', admin: false, twoFactor: false, hashed: true },
      { username: 'two-factor', name: 'Two Factor', admin: false, twoFactor: true, hashed: true },
    ]);
  });

  it('are three applications owned by root, stored under their uid with their secret hashed', () => {
    const apps = Object.entries(s.applications).map(([role, a]) => {
      const stored = fresh.store.applications.get(a.uid)!;
      return {
        role,
        name: stored.name,
        scopes: stored.scopes,
        confidential: stored.confidential,
        redirectUris: stored.redirectUris,
        owner: stored.ownerId === s.admin.id,
        hashed: stored.secretHash === digest(a.secret),
      };
    });
    const common = { owner: true, hashed: true };
    expect(apps).toEqual([
      {
        role: 'confidential',
        name: 'Confidential client',
        scopes: [
          'api',
          'read_user',
          'openid',
          'profile',
          'email',
          'read',
          'read_repository',
          'write_repository',
          'read_registry',
          'write_registry',
        ],
        confidential: true,
        redirectUris: ['https://client.test/confidential/callback'],
        ...common,
      },
      {
        role: 'public',
        name: 'Public PKCE client',
        scopes: ['api', 'openid'],
        confidential: false,
        redirectUris: ['https://client.test/public/callback'],
        ...common,
      },
      {
        role: 'limited',
        name: 'Limited client',
        scopes: ['read_user'],
        confidential: true,
        redirectUris: ['https://client.test/limited/callback'],
        ...common,
      },
    ]);
    expect(seededRedirectUri('public')).toBe('https://client.test/public/callback');
    expect(fresh.store.applications.size).toBe(3);
  });

  it("include root's personal access token with scope api; each seeded credential has its form", () => {
    expect(fresh.store.accessTokens.get(digest(s.personalAccessToken))).toMatchObject({
      userId: s.admin.id,
      scopes: ['api'],
      kind: 'personal',
      expiresIn: null,
    });
    expect(s.personalAccessToken).toMatch(/^glpat-[A-Za-z0-9_-]{27}$/);
    for (const a of Object.values(s.applications)) {
      expect(a.uid).toMatch(/^[0-9a-f]{64}$/);
      expect(a.secret).toMatch(/^gloas-[A-Za-z0-9_-]{43}$/);
    }
    for (const u of [s.admin, s.user, s.twoFactorUser]) expect(u.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });

  it('keep their identifiers and secrets across reset()', () => {
    fresh.reset();
    const again = seeded(fresh);
    expect(again.applications.confidential.uid).toBe(s.applications.confidential.uid);
    expect(again.applications.confidential.secret).toBe(s.applications.confidential.secret);
    expect(again.admin.password).toBe(s.admin.password);
    expect(again.personalAccessToken).toBe(s.personalAccessToken);
    expect(fresh.store.applications.get(s.applications.limited.uid)!.secretHash).toBe(
      digest(s.applications.limited.secret),
    );
  });

  it('are asked for before they exist: a clear error', () => {
    const bare = { state: (_key: string, init: () => unknown) => init() } as unknown as Sim;
    expect(() => seeded(bare)).toThrow('seedAccounts has not run');
  });

  it('applicationById finds an application by its numeric id, nothing for null or an unknown id', () => {
    const limited = fresh.store.applications.get(s.applications.limited.uid)!;
    expect(applicationById(fresh, limited.id)).toBe(limited);
    expect(applicationById(fresh, null)).toBeUndefined();
    expect(applicationById(fresh, 987_654)).toBeUndefined();
  });
});

describe('claims', () => {
  const user: User = {
    id: 42,
    username: 'a b',
    name: 'A B',
    email: 'ab@example.com',
    passwordHash: '',
    admin: false,
    twoFactor: false,
    createdAt: 0,
    groups: ['g/one', 'g/two'],
  };

  it('userinfo: every documented claim, profile URL-encoded, groups copied', () => {
    const claims = userinfoClaims(user, ISSUER);
    expect(claims).toEqual({
      sub: '42',
      name: 'A B',
      nickname: 'a b',
      preferred_username: 'a b',
      email: 'ab@example.com',
      email_verified: true,
      website: '',
      profile: `${ISSUER}/a%20b`,
      picture: `${ISSUER}/uploads/-/system/user/avatar/42/avatar.png`,
      groups: ['g/one', 'g/two'],
      groups_direct: ['g/one', 'g/two'],
    });
    (claims.groups as string[]).push('x');
    expect(user.groups).toEqual(['g/one', 'g/two']);
    expect(groupsOf({ ...user, groups: undefined })).toEqual([]);
    expect(userinfoClaimNames()).toEqual(Object.keys(claims));
  });
});

describe('discovery (OIDC-DISCOVERY)', () => {
  const claims = [
    'iss',
    'sub',
    'aud',
    'exp',
    'iat',
    'auth_time',
    'nonce',
    'email',
    'email_verified',
    'groups_direct',
    'name',
    'nickname',
    'preferred_username',
    'website',
    'profile',
    'picture',
    'groups',
  ];

  const document = (base: string, grants: string[], device: boolean) => ({
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    userinfo_endpoint: `${base}/oauth/userinfo`,
    jwks_uri: `${base}/oauth/discovery/keys`,
    ...(device ? { device_authorization_endpoint: `${base}/oauth/authorize_device` } : {}),
    scopes_supported: [...KNOWN_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: grants,
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    claim_types_supported: ['normal'],
    claims_supported: claims,
    code_challenge_methods_supported: ['S256'],
  });
  const all = ['authorization_code', 'refresh_token', 'password', 'urn:ietf:params:oauth:grant-type:device_code'];

  it('is the whole document, under the fixed issuer without its trailing slashes', async () => {
    const fixed = createSimulator({ issuer: `${ISSUER}//` });
    const res = await get(fixed, 'http://127.0.0.1/.well-known/openid-configuration');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(res.text)).toEqual(document(ISSUER, all, true));
  });

  it('follows the origin of each request without a fixed issuer', async () => {
    for (const origin of ['http://a.test', 'http://b.test:8080', 'http://a.test']) {
      const res = await get(sim(), `${origin}/.well-known/openid-configuration`);
      expect(JSON.parse(res.text)).toEqual(document(origin, all, true));
    }
  });

  it('names no device endpoint or grant before the device grant, no password grant once it is removed', async () => {
    const at = async (release: string) =>
      JSON.parse((await get(createSimulator({ release }), `${ISSUER}/.well-known/openid-configuration`)).text);
    const old = await at('15.0');
    expect(old).toEqual(document(ISSUER, ['authorization_code', 'refresh_token', 'password'], false));
    expect('device_authorization_endpoint' in old).toBe(false);
    expect((await at('19.0')).grant_types_supported).toEqual([
      'authorization_code',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
    ]);
  });
});

describe('keys and the id_token (OIDC-JWKS, OIDC-ID-TOKEN-CLAIMS, OIDC-ID-TOKEN-SIGNATURE)', () => {
  const keysOf = async (on: Sim) => JSON.parse((await get(on, `${ISSUER}/oauth/discovery/keys`)).text);
  const admin = () => sim().store.users.get(seeded(sim()).admin.id)!;
  const confidential = () => sim().store.applications.get(seeded(sim()).applications.confidential.uid)!;

  it('one public RSA key, its kid the JWK thumbprint, the same on every request', async () => {
    const first = await keysOf(sim());
    expect(first.keys).toHaveLength(1);
    const [key] = first.keys;
    expect(Object.keys(key)).toEqual(['kty', 'kid', 'e', 'n', 'use', 'alg']);
    expect(key).toMatchObject({ kty: 'RSA', e: 'AQAB', use: 'sig', alg: 'RS256' });
    expect(key.n).toHaveLength(342); // 2048 bits
    expect(key.kid).toBe(await calculateJwkThumbprint({ kty: 'RSA', e: key.e, n: key.n }));
    expect(await keysOf(sim())).toEqual(first);
  });

  it('the old /-/jwks serves the same key set before 17.0, and from 17.0 only under legacy-jwks-served', async () => {
    const jwksOf = async (on: Sim) => (await get(on, `${ISSUER}/-/jwks`)).text;
    const before = createSimulator({ release: '16.11' });
    expect(await jwksOf(before)).toBe(JSON.stringify(await keysOf(before)));
    const kept = createSimulator({ release: '17.0', faults: ['legacy-jwks-served'] });
    expect(await jwksOf(kept)).toBe(JSON.stringify(await keysOf(kept)));
    expect((await get(createSimulator({ release: '17.0' }), `${ISSUER}/-/jwks`)).status).toBe(404);
  });

  it('an id_token with exactly the documented claims, signed by the published key', async () => {
    const token = await idToken(sim(), {
      issuer: ISSUER,
      app: confidential(),
      user: admin(),
      nonce: null,
      authTime: 77,
    });
    const { keys } = await keysOf(sim());
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', kid: keys[0].kid, typ: 'JWT' });
    const now = sim().clock.nowSeconds();
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys }), {
      currentDate: new Date(sim().clock.now()),
    });
    expect(payload).toEqual({
      email: admin().email,
      email_verified: true,
      groups_direct: [],
      auth_time: 77,
      iss: ISSUER,
      sub: String(admin().id),
      aud: confidential().uid,
      iat: now,
      exp: now + limits().accessTokenLifetime,
    });
    const withNonce = await idToken(sim(), {
      issuer: ISSUER,
      app: confidential(),
      user: admin(),
      nonce: 'n-1',
      authTime: 77,
    });
    expect(decodeJwt(withNonce).nonce).toBe('n-1');
  });

  it('jwks-private-members publishes d, p, q, dp, dq and qi; id-token-unpublished-key signs with a key nobody publishes', async () => {
    const leaky = createSimulator({ faults: ['jwks-private-members'] });
    const [leaked] = (await keysOf(leaky)).keys;
    expect(Object.keys(leaked)).toEqual(['kty', 'kid', 'e', 'n', 'use', 'alg', 'd', 'p', 'q', 'dp', 'dq', 'qi']);
    for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(typeof leaked[member], member).toBe('string');

    const rogue = createSimulator({ faults: ['id-token-unpublished-key'], clock: { frozen: true } });
    const r = seeded(rogue);
    const token = await idToken(rogue, {
      issuer: ISSUER,
      app: rogue.store.applications.get(r.applications.confidential.uid)!,
      user: rogue.store.users.get(r.admin.id)!,
      nonce: null,
      authTime: 1,
    });
    const published = await keysOf(rogue);
    expect(decodeProtectedHeader(token).kid).toBe(published.keys[0].kid);
    await expect(jwtVerify(token, createLocalJWKSet(published))).rejects.toThrow(/signature verification failed/);
  });
});

describe('userinfo (OIDC-USERINFO, OIDC-USERINFO-REQUIRES-OPENID)', () => {
  it('answers the claims, never cached, under the fixed issuer', async () => {
    const fixed = createSimulator({ issuer: ISSUER });
    const token = mint(fixed, ['openid'], { username: 'developer' });
    const res = await get(fixed, 'http://127.0.0.1/oauth/userinfo', { authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const dev = fixed.store.users.get(seeded(fixed).user.id)!;
    expect(JSON.parse(res.text)).toEqual(userinfoClaims(dev, ISSUER));
  });

  it('POST takes the token as the form parameter access_token (RFC 6750 §2.2)', async () => {
    const token = mint(sim(), ['openid'], { username: 'developer' });
    const res = await sim().handle(
      new Request(`${ISSUER}/oauth/userinfo`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ access_token: token }),
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual(userinfoClaims(sim().store.users.get(seeded(sim()).user.id)!, ISSUER));
  });

  it('refuses a token without openid with 403 insufficient_scope, saying why', async () => {
    const token = mint(sim(), ['api']);
    const res = await get(sim(), `${ISSUER}/oauth/userinfo`, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toEqual({
      error: 'insufficient_scope',
      error_description: 'The access token was not granted the openid scope',
    });
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer realm="oauth", error="insufficient_scope", error_description="The access token was not granted the openid scope"',
    );
  });
});
