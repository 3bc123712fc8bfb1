/**
 * Bounded memory (issue 12 point 3, issue 13 point 4): what expired, was revoked or ended leaves
 * the store after its grace period on the simulator's clock, never while that clock stands still,
 * and GET /-/simulator/stats shows the store sizes. No sleeps: the clock is frozen and moved.
 */
import { digest } from '../../simulator/digest.js';
import { deviceByCode } from '../../simulator/oauth/device.js';
import { describe, expect, it } from 'vitest';
import { limits, retention } from '../../spec/index.js';
import { app, code, signInRoot, world, type World } from './oauth/helpers.js';

const R = retention();
const L = limits();

async function stored(w: World): Promise<Record<string, number>> {
  const res = await w.http().get('/-/simulator/stats');
  expect(res.status).toBe(200);
  return res.body.stored;
}

async function deviceAuthorization(w: World): Promise<{ device_code: string; user_code: string }> {
  const a = app(w.sim, 'confidential');
  const res = await w
    .http()
    .post('/oauth/authorize_device')
    .type('form')
    .send({ client_id: a.uid, client_secret: a.secret, scope: 'api' });
  expect(res.status).toBe(200);
  return res.body;
}

function poll(w: World, deviceCode: string) {
  const a = app(w.sim, 'confidential');
  return w.http().post('/oauth/token').type('form').send({
    grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    device_code: deviceCode,
    client_id: a.uid,
    client_secret: a.secret,
  });
}

describe('eviction by the simulator clock', () => {
  it('keeps expired device codes while the clock stands still, and during the grace period', async () => {
    const w = world();
    const { device_code } = await deviceAuthorization(w);
    for (let i = 0; i < 3; i++) await w.http().get('/-/simulator/stats');
    expect((await stored(w)).deviceCodes).toBe(1);
    // expired, within the grace period: still answers expired_token
    w.sim.clock.advance(L.deviceCodeLifetime + R.expiredGrace - 1);
    expect((await poll(w, device_code)).body.error).toBe('expired_token');
    expect((await stored(w)).deviceCodes).toBe(1);
    // past the grace period: forgotten, and an unknown code is invalid_grant
    w.sim.clock.advance(1 + R.evictionInterval);
    expect((await stored(w)).deviceCodes).toBe(0);
    expect((await poll(w, device_code)).body.error).toBe('invalid_grant');
  });

  it('sweeps the user-code index with the device codes (nothing new need be issued)', async () => {
    const w = world();
    for (let i = 0; i < 3; i++) await deviceAuthorization(w);
    expect(w.sim.store.userCodes.size).toBe(3);
    w.sim.clock.advance(L.deviceCodeLifetime + R.expiredGrace + R.evictionInterval);
    expect((await stored(w)).deviceCodes).toBe(0);
    expect(w.sim.store.userCodes.size).toBe(0);
  });

  it('evicts expired access tokens and unused codes, keeps a token without expiry', async () => {
    const w = world();
    await signInRoot(w);
    await code(w, 'confidential');
    const forever = await w
      .http()
      .post('/-/simulator/tokens')
      .send({ scopes: ['api'], expiresIn: null });
    const timed = await w
      .http()
      .post('/-/simulator/tokens')
      .send({ scopes: ['api'] });
    const before = await stored(w);
    expect(before.codes).toBe(1);
    expect(before.sessions).toBeGreaterThanOrEqual(1);
    w.sim.clock.advance(L.accessTokenLifetime + R.expiredGrace);
    const after = await stored(w);
    expect(after.codes).toBe(0);
    expect(after.accessTokens).toBe(before.accessTokens - 1);
    expect(w.sim.store.accessTokens.has(digest(forever.body.access_token))).toBe(true);
    expect(w.sim.store.accessTokens.has(digest(timed.body.access_token))).toBe(false);
    const info = await w.http().get('/oauth/token/info').set('authorization', `Bearer ${forever.body.access_token}`);
    expect(info.status).toBe(200);
  });

  it('evicts revoked tokens after the revoked grace period, rotated refresh tokens too', async () => {
    const w = world();
    await signInRoot(w);
    const a = app(w.sim, 'confidential');
    const { code: value } = await code(w, 'confidential');
    const exchange = await w.http().post('/oauth/token').type('form').send({
      grant_type: 'authorization_code',
      code: value,
      redirect_uri: a.redirectUris[0],
      client_id: a.uid,
      client_secret: a.secret,
    });
    expect(exchange.status).toBe(200);
    const refreshed = await w.http().post('/oauth/token').type('form').send({
      grant_type: 'refresh_token',
      refresh_token: exchange.body.refresh_token,
      client_id: a.uid,
      client_secret: a.secret,
    });
    expect(refreshed.status).toBe(200);
    const revoke = await w
      .http()
      .post('/oauth/revoke')
      .type('form')
      .send({ token: refreshed.body.access_token, client_id: a.uid, client_secret: a.secret });
    expect(revoke.status).toBe(200);
    const { store } = w.sim;
    expect(store.refreshTokens.has(digest(exchange.body.refresh_token))).toBe(true);
    // The first sweep after rotation notes when the rotated token was first seen ended.
    await stored(w);
    w.sim.clock.advance(R.revokedGrace - 1);
    await stored(w);
    expect(store.accessTokens.has(digest(refreshed.body.access_token))).toBe(true);
    expect(store.refreshTokens.has(digest(refreshed.body.refresh_token))).toBe(true);
    w.sim.clock.advance(1 + R.evictionInterval);
    await stored(w);
    for (const t of [exchange.body.access_token, refreshed.body.access_token])
      expect(store.accessTokens.has(digest(t))).toBe(false);
    for (const t of [exchange.body.refresh_token, refreshed.body.refresh_token])
      expect(store.refreshTokens.has(digest(t))).toBe(false);
  });

  it('sweeps at most once per eviction interval, and sessions after their lifetime', async () => {
    const w = world();
    await signInRoot(w);
    await stored(w); // a sweep ran on this request
    const { device_code } = await deviceAuthorization(w);
    const record = deviceByCode(w.sim, device_code)!;
    // long past its grace on the clock as it stands: not swept again before the interval has passed
    record.createdAt -= L.deviceCodeLifetime + R.expiredGrace;
    expect((await stored(w)).deviceCodes).toBe(1);
    w.sim.clock.advance(R.evictionInterval);
    expect((await stored(w)).deviceCodes).toBe(0);
    expect((await stored(w)).sessions).toBeGreaterThanOrEqual(1);
    w.sim.clock.advance(R.sessionLifetime);
    expect((await stored(w)).sessions).toBe(0);
  });

  it('reports live counts beside the stored sizes', async () => {
    const w = world();
    await deviceAuthorization(w);
    const res = await w.http().get('/-/simulator/stats');
    expect(res.body).toMatchObject({ deviceCodes: 1, stored: { deviceCodes: 1 } });
    w.sim.clock.advance(L.deviceCodeLifetime);
    const expired = await w.http().get('/-/simulator/stats');
    expect(expired.body).toMatchObject({ deviceCodes: 0, stored: { deviceCodes: 1 } });
  });
});
