/** The device flow around its machine: start, verification page, polling details, availability. */
import { describe, expect, it } from 'vitest';
import { L, app, formFields, signInRoot, world, type World } from './helpers.js';
import { deviceByCode } from '../../../simulator/oauth/device.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

async function start(w: World, scope?: string) {
  const pub = app(w.sim, 'public');
  return w
    .http()
    .post('/oauth/authorize_device')
    .type('form')
    .send(scope ? { client_id: pub.uid, scope } : { client_id: pub.uid });
}

const poll = (w: World, deviceCode: string, clientId = app(w.sim, 'public').uid) =>
  w
    .http()
    .post('/oauth/token')
    .type('form')
    .send({ grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId });

describe('POST /oauth/authorize_device', () => {
  it('returns the device authorization response: codes, verification URIs, expires_in and interval', async () => {
    const w = world();
    const res = await start(w, 'api');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual([
      'device_code',
      'expires_in',
      'interval',
      'user_code',
      'verification_uri',
      'verification_uri_complete',
    ]);
    expect(res.body.expires_in).toBe(L.deviceCodeLifetime);
    expect(res.body.interval).toBe(L.deviceInterval);
    const page = new URL(res.body.verification_uri);
    expect(page.pathname).toBe('/oauth/device');
    expect(new URL(res.body.verification_uri_complete).searchParams.get('user_code')).toBe(res.body.user_code);
    expect(res.body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
  });

  it('refuses a missing or unknown client and scopes the application lacks', async () => {
    const w = world();
    const missing = await w.http().post('/oauth/authorize_device').type('form').send({});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
    const unknown = await w.http().post('/oauth/authorize_device').type('form').send({ client_id: 'nope' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
    expect(unknown.headers['www-authenticate']).toBeDefined();
    const scope = await start(w, 'read_user');
    expect(scope.body.error).toBe('invalid_scope');
  });

  it('is not routed before 17.1 or with the flag off, and the grant type is then unsupported', async () => {
    for (const w of [world({ release: '17.0' }), world({ flags: { device_authorization_grant: false } })]) {
      expect((await start(w)).status).toBe(404);
      expect((await w.browser.get('/oauth/device')).status).toBe(404);
      const res = await poll(w, 'x');
      expect(res.body.error).toBe('unsupported_grant_type');
    }
    expect((await start(world({ release: '17.1' }))).status).toBe(200);
  });
});

describe('polling', () => {
  it('runs pending → slow_down (interval grows) → approved → Bearer token with scope → consumed', async () => {
    const w = world();
    const { body } = await start(w, 'api openid');
    const first = await poll(w, body.device_code);
    expect(first.body.error).toBe('authorization_pending');
    expect(first.headers['cache-control']).toBe('no-store');
    const fast = await poll(w, body.device_code);
    expect(fast.body.error).toBe('slow_down');
    const record = deviceByCode(w.sim, body.device_code)!;
    expect(record.interval).toBe(L.deviceInterval + L.slowDownIncrement);
    w.sim.clock.advance(L.deviceInterval);
    expect((await poll(w, body.device_code)).body.error).toBe('slow_down');
    w.sim.clock.advance(record.interval);
    expect((await poll(w, body.device_code)).body.error).toBe('authorization_pending');
    await w.http().post('/-/simulator/device/approve').send({ user_code: body.user_code });
    w.sim.clock.advance(record.interval);
    const ok = await poll(w, body.device_code);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: L.accessTokenLifetime,
      scope: 'api openid',
      created_at: w.sim.clock.nowSeconds(),
    });
    expect(ok.body.refresh_token).toBeUndefined();
    const info = await w.http().get('/oauth/token/info').set('authorization', `Bearer ${ok.body.access_token}`);
    expect(info.status).toBe(200);
    w.sim.clock.advance(record.interval);
    expect((await poll(w, body.device_code)).body.error).toBe('invalid_grant');
  });

  it("refuses an unknown device code, another client's code, and a missing device_code", async () => {
    const w = world();
    const { body } = await start(w);
    expect((await poll(w, 'nope')).body.error).toBe('invalid_grant');
    const conf = app(w.sim, 'confidential');
    expect((await poll(w, body.device_code, conf.uid)).body.error).toBe('invalid_grant');
    const missing = await w
      .http()
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: DEVICE_GRANT, client_id: conf.uid });
    expect(missing.body.error).toBe('invalid_request');
  });

  it('denied on the page gives access_denied; expiry gives expired_token', async () => {
    const w = world();
    await signInRoot(w);
    const denied = (await start(w)).body;
    const page = await w.browser.get('/oauth/device').query({ user_code: denied.user_code });
    await w.browser
      .post('/oauth/device')
      .type('form')
      .send({ ...formFields(page.text, 'device'), user_code: denied.user_code, decision: 'deny' });
    expect((await poll(w, denied.device_code)).body.error).toBe('access_denied');
    const late = (await start(w)).body;
    w.sim.clock.advance(L.deviceCodeLifetime);
    expect((await poll(w, late.device_code)).body.error).toBe('expired_token');
  });
});

describe('GET /oauth/device (verification page)', () => {
  it('sends an anonymous visitor to sign in, then prefills the user code', async () => {
    const w = world();
    const { body } = await start(w);
    const anonymous = await w.browser.get('/oauth/device').query({ user_code: body.user_code });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.location).toMatch(/^\/users\/sign_in\?redirect_to=%2Foauth%2Fdevice%3Fuser_code%3D/);
    await signInRoot(w);
    const page = await w.browser.get('/oauth/device').query({ user_code: body.user_code });
    expect(page.status).toBe(200);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.text).toContain(`name="user_code" value="${body.user_code}"`);
  });

  it('approves a code typed in lower case without the dash; refuses an unknown code and a forged form', async () => {
    const w = world();
    await signInRoot(w);
    const { body } = await start(w);
    const page = await w.browser.get('/oauth/device');
    const fields = formFields(page.text, 'device');
    const unknown = await w.browser
      .post('/oauth/device')
      .type('form')
      .send({ ...fields, user_code: 'BBBB-BBBB', decision: 'approve' });
    expect(unknown.status).toBe(404);
    const forged = await w.browser
      .post('/oauth/device')
      .type('form')
      .send({ user_code: body.user_code, decision: 'approve' });
    expect(forged.status).toBe(422);
    const typed = body.user_code.replace('-', '').toLowerCase();
    const ok = await w.browser
      .post('/oauth/device')
      .type('form')
      .send({ ...fields, user_code: typed, decision: 'approve' });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('data-page="device_approved"');
    expect(deviceByCode(w.sim, body.device_code)!.state).toBe('authorized');
  });
});
