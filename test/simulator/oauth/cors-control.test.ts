/** CORS on /oauth and the /-/simulator/ control API. */
import { describe, expect, it } from 'vitest';
import { profiles } from '../../../spec/index.js';
import { seeded } from '../../../simulator/oauth/accounts.js';
import { L, app, world } from './helpers.js';

const ORIGIN = 'https://spa.test';

function preflight(w: ReturnType<typeof world>, path: string, headers = 'authorization, content-type') {
  return w
    .http()
    .options(path)
    .set({ origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': headers });
}

describe('CORS', () => {
  it('answers preflight on /oauth/token, /oauth/revoke and /oauth/userinfo from 15.1', async () => {
    const w = world({ release: '15.1' });
    for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/userinfo']) {
      const res = await preflight(w, path);
      expect(res.status, path).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-methods']).toContain('POST');
      const allowed = res.headers['access-control-allow-headers'].toLowerCase().split(/,\s*/);
      expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'accept']));
    }
  });

  it('never grants X-Requested-With', async () => {
    const res = await preflight(world(), '/oauth/token', 'x-requested-with, authorization');
    expect(res.headers['access-control-allow-headers'].toLowerCase()).not.toContain('x-requested-with');
  });

  it('has no preflight before 15.1 nor on other paths', async () => {
    const old = await preflight(world({ release: '15.0' }), '/oauth/token');
    expect(old.status).toBe(405);
    expect(old.headers['access-control-allow-origin']).toBeUndefined();
    const other = await preflight(world(), '/oauth/authorize');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('adds Access-Control-Allow-Origin to cross-origin /oauth answers, not to pages', async () => {
    const w = world();
    const token = await w.http().post('/oauth/token').set('origin', ORIGIN).type('form').send({ grant_type: 'nope' });
    expect(token.headers['access-control-allow-origin']).toBe('*');
    const keys = await w.http().get('/oauth/discovery/keys').set('origin', ORIGIN);
    expect(keys.headers['access-control-allow-origin']).toBe('*');
    const page = await w.http().get('/users/sign_in').set('origin', ORIGIN);
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    const sameOrigin = await w.http().post('/oauth/token').type('form').send({ grant_type: 'nope' });
    expect(sameOrigin.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('control API', () => {
  it('GET config: a target config with the simulator driver, credentials, applications and features', async () => {
    const w = world({ release: '17.0' });
    const res = await w.http().get('/-/simulator/config');
    expect(res.status).toBe(200);
    const c = res.body;
    expect(c.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1(:\d+)?$/);
    expect(c).toMatchObject({
      release: '17.0',
      offering: 'self-managed',
      features: { device_authorization_grant: false },
      driver: {
        kind: 'simulator',
        signInPath: '/users/sign_in',
        loginField: 'user[login]',
        passwordField: 'user[password]',
      },
    });
    expect(c.user.username).toBe('root');
    expect(c.applications.public.clientSecret).toBeUndefined();
    expect(c.applications.confidential.clientSecret).toMatch(/^gloas-/);
    expect(c.applications.limited.scopes).toEqual(['read_user']);
    expect(c.applications.confidential.scopes).toEqual(
      expect.arrayContaining(['api', 'read_user', 'openid', 'profile']),
    );
    expect(c.applications.public.scopes).toEqual(['api', 'openid']);
    expect(typeof c.personalAccessToken).toBe('string');
    expect(c.fixtures).toBeTypeOf('object');
    const pw = await w
      .http()
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'password', username: c.user.username, password: c.user.password });
    expect(pw.status).toBe(200);
  });

  it('POST reset drops what was created but keeps the seeded credentials', async () => {
    const w = world();
    const before = (await w.http().get('/-/simulator/config')).body;
    await w.http().post('/-/simulator/users').send({ username: 'extra' });
    await w.http().post('/-/simulator/clock').send({ advanceSeconds: 60 });
    const reset = await w.http().post('/-/simulator/reset').set('content-type', 'application/json');
    expect(reset.status).toBe(200);
    expect([...w.sim.store.users.values()].some((u) => u.username === 'extra')).toBe(false);
    // supertest serves each request on a fresh port: compare all but the URLs.
    const strip = ({ baseUrl: _b, issuer: _i, ...rest }: Record<string, unknown>) => rest;
    expect(strip((await w.http().get('/-/simulator/config')).body)).toEqual(strip(before));
  });

  it('POST clock advances the virtual clock and refuses nonsense', async () => {
    const w = world();
    const t0 = w.sim.clock.nowSeconds();
    const res = await w.http().post('/-/simulator/clock').send({ advanceSeconds: 300 });
    expect(res.body.now).toBe(t0 + 300);
    for (const advanceSeconds of [-1, 'soon', null]) {
      const bad = await w.http().post('/-/simulator/clock').send({ advanceSeconds });
      expect(bad.status).toBe(400);
      expect(typeof bad.body.message).toBe('string');
    }
    expect((await w.http().post('/-/simulator/clock').set('content-type', 'application/json').send('{')).status).toBe(
      400,
    );
  });

  it('POST applications and users create records that work at once', async () => {
    const w = world();
    const created = await w
      .http()
      .post('/-/simulator/applications')
      .send({ name: 'CI', redirectUri: 'http://127.0.0.1:9/cb', scopes: 'api read_user', confidential: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'CI',
      scopes: ['api', 'read_user'],
      confidential: true,
      redirectUri: 'http://127.0.0.1:9/cb',
    });
    const user = await w
      .http()
      .post('/-/simulator/users')
      .send({ username: 'alice', password: 'pw-alice', groups: ['g1'] });
    expect(user.status).toBe(201);
    const token = await w
      .http()
      .post('/oauth/token')
      .auth(created.body.clientId, created.body.clientSecret)
      .type('form')
      .send({ grant_type: 'password', username: 'alice', password: 'pw-alice', scope: 'read_user' });
    expect(token.status).toBe(200);
    expect((await w.http().post('/-/simulator/users').send({ username: 'alice' })).status).toBe(400);
    expect(
      (
        await w
          .http()
          .post('/-/simulator/applications')
          .send({ name: 'x', redirectUri: 'nope', scopes: ['api'] })
      ).status,
    ).toBe(400);
    expect(
      (
        await w
          .http()
          .post('/-/simulator/applications')
          .send({ name: 'x', redirectUri: 'https://a.test/', scopes: ['sudo'] })
      ).status,
    ).toBe(400);
    expect(
      (
        await world({ devMode: false })
          .http()
          .post('/-/simulator/applications')
          .send({ name: 'x', redirectUri: 'http://a.test/', scopes: ['api'] })
      ).status,
    ).toBe(400);
  });

  it('GET stats counts live tokens, codes and device codes', async () => {
    const w = world();
    const c = (await w.http().get('/-/simulator/config')).body;
    const base = (await w.http().get('/-/simulator/stats')).body;
    expect(base).toMatchObject({
      accessTokens: 0,
      refreshTokens: 0,
      codes: 0,
      deviceCodes: 0,
      personalAccessTokens: 1,
    });
    await w
      .http()
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'password', username: c.user.username, password: c.user.password });
    await w.http().post('/oauth/authorize_device').type('form').send({ client_id: c.applications.public.clientId });
    const after = (await w.http().get('/-/simulator/stats')).body;
    expect(after).toMatchObject({ accessTokens: 1, deviceCodes: 1 });
  });

  it('device approve/deny: 404 for an unknown user code, 400 without one', async () => {
    const w = world();
    expect((await w.http().post('/-/simulator/device/approve').send({ user_code: 'BBBB-BBBB' })).status).toBe(404);
    expect((await w.http().post('/-/simulator/device/deny').send({})).status).toBe(400);
  });
});

describe('control API: settings and tokens', () => {
  it('GET settings answers every setting of spec/profiles.yaml with its value', async () => {
    const w = world();
    const res = await w.http().get('/-/simulator/settings');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(Object.keys(profiles().settings).sort());
    expect(res.body.gitPasswordAuth).toBe(profiles().settings.gitPasswordAuth.default);
  });

  it('POST settings changes settings at once, answers all of them, and reset restores the start values', async () => {
    const w = world({ settings: { maxOffset: 1234 } });
    const { admin } = seeded(w.sim);
    const grant = () =>
      w
        .http()
        .post('/oauth/token')
        .type('form')
        .send({ grant_type: 'password', username: admin.username, password: admin.password });
    expect((await grant()).status).toBe(200);
    const changed = await w
      .http()
      .post('/-/simulator/settings')
      .send({ gitPasswordAuth: false, maxOffset: 10, rateLimit: { requests: 5, periodSeconds: 60 } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      gitPasswordAuth: false,
      maxOffset: 10,
      rateLimit: { requests: 5, periodSeconds: 60 },
      passwordGrantClientCredentialsOnly: false,
    });
    expect((await grant()).body.error).toBe('invalid_grant');
    expect((await w.http().post('/-/simulator/settings').send({})).body).toEqual(changed.body);
    await w.http().post('/-/simulator/reset').set('content-type', 'application/json');
    expect((await w.http().get('/-/simulator/settings')).body).toMatchObject({
      gitPasswordAuth: true,
      maxOffset: 1234,
      rateLimit: null,
    });
    expect((await grant()).status).toBe(200);
  });

  it('POST settings refuses unknown names and wrong types with 400 and a message, changing nothing', async () => {
    const w = world();
    const before = (await w.http().get('/-/simulator/settings')).body;
    const bad: Array<[unknown, RegExp]> = [
      [{ noSuchSetting: true }, /unknown setting noSuchSetting/],
      [{ gitPasswordAuth: 'perhaps' }, /gitPasswordAuth must be true or false/],
      [{ gitPasswordAuth: null }, /gitPasswordAuth must be true or false/],
      [{ maxOffset: -1 }, /maxOffset must be an integer/],
      [{ maxUrlLength: 1.5 }, /maxUrlLength must be an integer/],
      [{ rateLimit: { requests: 0, periodSeconds: 60 } }, /rateLimit must be null/],
      [{ gitPasswordAuth: false, maxOffset: 'many' }, /maxOffset/],
      [[true], /JSON object/],
    ];
    for (const [body, message] of bad) {
      const res = await w
        .http()
        .post('/-/simulator/settings')
        .send(body as object);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect((await w.http().get('/-/simulator/settings')).body).toEqual(before);
  });

  it('POST tokens mints a token for a user and scopes, without expiry when expiresIn is null', async () => {
    const w = world();
    const forever = await w
      .http()
      .post('/-/simulator/tokens')
      .send({ scopes: ['read_user'], expiresIn: null });
    expect(forever.status).toBe(201);
    expect(Object.keys(forever.body)).toEqual(['access_token']);
    w.sim.clock.advance(L.accessTokenLifetime * 10);
    const info = await w.http().get('/oauth/token/info').set('authorization', `Bearer ${forever.body.access_token}`);
    expect(info.body).toMatchObject({
      scope: ['read_user'],
      expires_in: null,
      expires_in_seconds: null,
      application: { uid: app(w.sim, 'confidential').uid },
    });
    const user = await w.http().post('/-/simulator/users').send({ username: 'bob', password: 'pw-bob' });
    const timed = await w.http().post('/-/simulator/tokens').send({ username: 'bob', scopes: 'api', expiresIn: 60 });
    const timedInfo = await w.http().get('/oauth/token/info').query({ access_token: timed.body.access_token });
    expect(timedInfo.body).toMatchObject({ resource_owner_id: user.body.id, expires_in: 60 });
    for (const body of [
      {},
      { scopes: ['sudo'] },
      { scopes: ['api'], expiresIn: 0 },
      { scopes: ['api'], expiresIn: 'never' },
    ]) {
      expect((await w.http().post('/-/simulator/tokens').send(body)).status, JSON.stringify(body)).toBe(400);
    }
    expect(
      (
        await w
          .http()
          .post('/-/simulator/tokens')
          .send({ scopes: ['api'], username: 'nobody' })
      ).status,
    ).toBe(404);
  });
});
