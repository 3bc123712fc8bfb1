import { digest } from '../../../simulator/digest.js';
/** OpenID Connect, token information and revocation. */
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../../simulator/oauth/accounts.js';
import { L, app, signInRoot, tokens, world } from './helpers.js';

const ISSUER = 'http://idp.test';

describe('id_token', () => {
  it('comes with openid, RS256-signed by a published key, with the documented claims', async () => {
    const w = world({ issuer: ISSUER });
    await signInRoot(w);
    const t = await tokens(w, 'confidential', { scope: 'openid api', nonce: 'n-0S6' });
    expect(t.id_token).toBeDefined();
    const keys = await w.http().get('/oauth/discovery/keys');
    expect(keys.status).toBe(200);
    expect(keys.body.keys).toHaveLength(1);
    const [key] = keys.body.keys;
    expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256' });
    expect(decodeProtectedHeader(t.id_token!)).toMatchObject({ alg: 'RS256', kid: key.kid });
    const a = app(w.sim, 'confidential');
    const { payload } = await jwtVerify(t.id_token!, createLocalJWKSet(keys.body), {
      issuer: ISSUER,
      audience: a.uid,
      currentDate: new Date(w.sim.clock.now()),
    });
    const { admin } = seeded(w.sim);
    expect(payload).toMatchObject({
      sub: String(admin.id),
      email: admin.email,
      email_verified: true,
      groups_direct: [],
      nonce: 'n-0S6',
    });
    expect(payload.exp! - payload.iat!).toBe(L.accessTokenLifetime);
    expect(typeof payload.auth_time).toBe('number');
  });

  it('is absent without openid', async () => {
    const w = world();
    await signInRoot(w);
    expect((await tokens(w, 'confidential', { scope: 'api' })).id_token).toBeUndefined();
  });
});

describe('userinfo', () => {
  it('returns the documented claims for GET and POST, sub equal to the id_token sub', async () => {
    const w = world({ issuer: ISSUER });
    await signInRoot(w);
    const t = await tokens(w, 'confidential', { scope: 'openid' });
    const get = await w.http().get('/oauth/userinfo').set('authorization', `Bearer ${t.access_token}`);
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toBe('application/json');
    expect(Object.keys(get.body).sort()).toEqual(
      [
        'email',
        'email_verified',
        'groups',
        'groups_direct',
        'name',
        'nickname',
        'picture',
        'preferred_username',
        'profile',
        'sub',
        'website',
      ].sort(),
    );
    const [, payload] = t.id_token!.split('.');
    expect(get.body.sub).toBe(JSON.parse(Buffer.from(payload, 'base64url').toString()).sub);
    expect(get.body.preferred_username).toBe('root');
    const post = await w.http().post('/oauth/userinfo').type('form').send({ access_token: t.access_token });
    expect(post.body).toEqual(get.body);
  });

  it('401 with WWW-Authenticate Bearer for no, unknown, expired or revoked tokens; 403 without openid', async () => {
    const w = world();
    await signInRoot(w);
    const none = await w.http().get('/oauth/userinfo');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer /);
    expect((await w.http().get('/oauth/userinfo').set('authorization', 'Bearer nope')).status).toBe(401);
    const plain = await tokens(w, 'confidential', { scope: 'api' });
    const forbidden = await w.http().get('/oauth/userinfo').set('authorization', `Bearer ${plain.access_token}`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toBe('insufficient_scope');
    const pat = seeded(w.sim).personalAccessToken;
    expect((await w.http().get('/oauth/userinfo').set('authorization', `Bearer ${pat}`)).status).toBe(401);
    const t = await tokens(w, 'confidential', { scope: 'openid' });
    w.sim.clock.advance(L.accessTokenLifetime);
    expect((await w.http().get('/oauth/userinfo').set('authorization', `Bearer ${t.access_token}`)).status).toBe(401);
  });
});

describe('discovery', () => {
  it('lists issuer, endpoints, jwks_uri, scopes, response and grant types, auth methods, algorithms, claims, PKCE methods', async () => {
    const w = world({ issuer: ISSUER });
    const res = await w.http().get('/.well-known/openid-configuration');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/oauth/authorize`,
      token_endpoint: `${ISSUER}/oauth/token`,
      userinfo_endpoint: `${ISSUER}/oauth/userinfo`,
      revocation_endpoint: `${ISSUER}/oauth/revoke`,
      jwks_uri: `${ISSUER}/oauth/discovery/keys`,
      device_authorization_endpoint: `${ISSUER}/oauth/authorize_device`,
      response_types_supported: ['code'],
      id_token_signing_alg_values_supported: ['RS256'],
      code_challenge_methods_supported: ['S256'],
    });
    expect(res.body.scopes_supported).toEqual(expect.arrayContaining(['openid', 'api', 'read_user', 'profile']));
    expect(res.body.grant_types_supported).toEqual([
      'authorization_code',
      'refresh_token',
      'password',
      'urn:ietf:params:oauth:grant-type:device_code',
    ]);
    expect(res.body.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['client_secret_basic', 'client_secret_post']),
    );
    expect(res.body.claims_supported).toEqual(expect.arrayContaining(['sub', 'email', 'groups_direct', 'auth_time']));
    const old = await world({ release: '19.0' }).http().get('/.well-known/openid-configuration');
    expect(old.body.grant_types_supported).not.toContain('password');
    const noDevice = await world({ release: '17.0' }).http().get('/.well-known/openid-configuration');
    expect(noDevice.body.device_authorization_endpoint).toBeUndefined();
  });

  it('serves /-/jwks as an alias only before 17.0', async () => {
    const before = world({ release: '16.11' });
    const alias = await before.http().get('/-/jwks');
    expect(alias.status).toBe(200);
    expect(alias.body).toEqual((await before.http().get('/oauth/discovery/keys')).body);
    expect((await world({ release: '17.0' }).http().get('/-/jwks')).status).toBe(404);
  });
});

describe('GET /oauth/token/info', () => {
  it('answers with both deprecated aliases, by Bearer header or access_token query, with the time left', async () => {
    const w = world();
    await signInRoot(w);
    const t = await tokens(w, 'confidential', { scope: 'api read_user' });
    w.sim.clock.advance(100);
    const byHeader = await w.http().get('/oauth/token/info').set('authorization', `Bearer ${t.access_token}`);
    const byQuery = await w.http().get('/oauth/token/info').query({ access_token: t.access_token });
    expect(byHeader.status).toBe(200);
    expect(byQuery.body).toEqual(byHeader.body);
    expect(byHeader.body).toEqual({
      resource_owner_id: seeded(w.sim).admin.id,
      scope: ['api', 'read_user'],
      scopes: ['api', 'read_user'],
      expires_in: L.accessTokenLifetime - 100,
      expires_in_seconds: L.accessTokenLifetime - 100,
      application: { uid: app(w.sim, 'confidential').uid },
      created_at: t.created_at,
    });
  });

  it('401 with an OAuth error body for a missing, unknown, expired or revoked token', async () => {
    const w = world();
    await signInRoot(w);
    const check = async (req: ReturnType<ReturnType<typeof w.http>['get']>) => {
      const res = await req;
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_token');
      expect(typeof res.body.error_description).toBe('string');
    };
    await check(w.http().get('/oauth/token/info'));
    await check(w.http().get('/oauth/token/info').query({ access_token: 'nope' }));
    const revoked = await tokens(w, 'confidential');
    const a = app(w.sim, 'confidential');
    await w
      .http()
      .post('/oauth/revoke')
      .type('form')
      .send({ client_id: a.uid, client_secret: a.secret, token: revoked.access_token });
    await check(w.http().get('/oauth/token/info').query({ access_token: revoked.access_token }));
    const expired = await tokens(w, 'confidential');
    w.sim.clock.advance(L.accessTokenLifetime);
    await check(w.http().get('/oauth/token/info').set('authorization', `Bearer ${expired.access_token}`));
  });
});

describe('POST /oauth/revoke', () => {
  it('answers 200 {} and the token stops working; a refresh token takes its access token along', async () => {
    const w = world();
    await signInRoot(w);
    const a = app(w.sim, 'confidential');
    const t = await tokens(w, 'confidential');
    const res = await w
      .http()
      .post('/oauth/revoke')
      .type('form')
      .send({ client_id: a.uid, client_secret: a.secret, token: t.refresh_token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(res.headers['content-type']).toBe('application/json');
    expect((await w.http().get('/oauth/token/info').query({ access_token: t.access_token })).status).toBe(401);
    const again = await w
      .http()
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'refresh_token', client_id: a.uid, client_secret: a.secret, refresh_token: t.refresh_token });
    expect(again.body.error).toBe('invalid_grant');
  });

  it('answers 200 {} for an unknown token; 401 invalid_client for bad client credentials; 400 without token', async () => {
    const w = world();
    const a = app(w.sim, 'confidential');
    expect(
      (
        await w
          .http()
          .post('/oauth/revoke')
          .type('form')
          .send({ client_id: a.uid, client_secret: a.secret, token: 'nope' })
      ).body,
    ).toEqual({});
    const bad = await w
      .http()
      .post('/oauth/revoke')
      .type('form')
      .send({ client_id: a.uid, client_secret: 'x', token: 'nope' });
    expect(bad.status).toBe(401);
    expect(bad.body.error).toBe('invalid_client');
    const missing = await w
      .http()
      .post('/oauth/revoke')
      .type('form')
      .send({ client_id: a.uid, client_secret: a.secret });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
  });

  it('lets a public PKCE application revoke with its client_id only', async () => {
    const w = world();
    await signInRoot(w);
    const t = await tokens(w, 'public');
    const res = await w
      .http()
      .post('/oauth/revoke')
      .type('form')
      .send({ client_id: app(w.sim, 'public').uid, token: t.access_token });
    expect(res.status).toBe(200);
    expect(w.sim.store.accessTokens.get(digest(t.access_token))!.revokedAt).not.toBeNull();
  });
});
