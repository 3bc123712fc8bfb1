/**
 * Secrets at rest (AUTH-CREDENTIALS-STORED-HASHED, issue 20): after every kind of credential has
 * been issued (a session and its CSRF token, authorization codes, device and user codes, tokens),
 * a walk of everything the store and the per-client module state hold finds none of the values
 * the responses handed out, and the flows that look them up (exchange, poll, the device page, the
 * control API's approve and stats) still work by digest.
 */
import { describe, expect, it } from 'vitest';
import { seeded } from '../../simulator/oauth/accounts.js';
import type { Sim } from '../../simulator/types.js';
import { app, exchangeForm, formFields, world, type World } from './oauth/helpers.js';

/** Every string reachable from a value: object and Map keys and values, array items. */
function strings(root: unknown): string[] {
  const seen = new Set<unknown>();
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') found.push(value);
    if (value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if (value instanceof Map) for (const entry of value) entry.forEach(walk);
    else if (value instanceof Set) value.forEach(walk);
    else for (const v of Object.values(value)) walk(v);
  };
  walk(root);
  return found;
}

/** What the simulator keeps between requests about clients: the store and the per-client tables. */
function atRest(sim: Sim): string[] {
  const tables = ['oauth:throttle:accounts', 'oauth:throttle:unknown-logins', 'api.rateLimit'];
  return strings([sim.store, ...tables.map((key) => sim.state(key, () => new Map()))]);
}

async function signInCapturing(w: World): Promise<{ session: string; csrf: string[] }> {
  const { admin } = seeded(w.sim);
  const page = await w.browser.get('/users/sign_in');
  const fields = formFields(page.text, 'sign-in');
  const res = await w.browser
    .post('/users/sign_in')
    .type('form')
    .send({ ...fields, 'user[login]': admin.username, 'user[password]': admin.password });
  expect(res.status).toBe(302);
  const session = /_idp_session=([^;]+)/.exec(String(res.headers['set-cookie']))![1];
  return { session, csrf: [fields.authenticity_token] };
}

describe('secrets at rest', () => {
  it('the store holds no session id, CSRF token, code, device or user code, or token it issued; look-ups work by digest', async () => {
    const w = world({ release: '17.1', settings: { rateLimit: { requests: 1000, periodSeconds: 60 } } });
    const issued: string[] = [];
    const { session, csrf } = await signInCapturing(w);
    issued.push(session, ...csrf);

    // Authorization codes: one exchanged, one left waiting.
    const a = app(w.sim, 'confidential');
    const authorize = async () => {
      const page = await w.browser
        .get('/oauth/authorize')
        .query({ client_id: a.uid, redirect_uri: a.redirectUris[0], response_type: 'code', scope: 'api' });
      const fields = formFields(page.text, 'consent');
      issued.push(fields.authenticity_token);
      const res = await w.browser
        .post('/oauth/authorize')
        .type('form')
        .send({ ...fields, decision: 'approve' });
      return new URL(res.headers.location).searchParams.get('code')!;
    };
    const exchanged = await authorize();
    const waiting = await authorize();
    issued.push(exchanged, waiting);
    const grant = await w
      .http()
      .post('/oauth/token')
      .type('form')
      .send(exchangeForm(w, 'confidential', exchanged));
    expect(grant.status).toBe(200);
    issued.push(grant.body.access_token, grant.body.refresh_token);
    expect((await w.http().get('/api/v4/user').set('authorization', `Bearer ${grant.body.access_token}`)).status).toBe(
      200,
    );

    // Device codes: one approved on the page, one by the control API, one left pending.
    const pub = app(w.sim, 'public');
    const start = async () => {
      const res = await w
        .http()
        .post('/oauth/authorize_device')
        .type('form')
        .send({ client_id: pub.uid, scope: 'api' });
      issued.push(res.body.device_code, res.body.user_code);
      return res.body as { device_code: string; user_code: string };
    };
    const poll = (device: { device_code: string }) =>
      w.http().post('/oauth/token').type('form').send({
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        client_id: pub.uid,
        device_code: device.device_code,
      });
    const onPage = await start();
    const page = await w.browser.get('/oauth/device').query({ user_code: onPage.user_code.toLowerCase() });
    const fields = formFields(page.text, 'device');
    issued.push(fields.authenticity_token);
    const decided = await w.browser
      .post('/oauth/device')
      .type('form')
      .send({ ...fields, user_code: onPage.user_code, decision: 'approve' });
    expect(decided.text).toContain('data-page="device_approved"');
    const byControl = await start();
    const approved = await w.http().post('/-/simulator/device/approve').send({ user_code: byControl.user_code });
    expect(approved.body).toMatchObject({ ok: true, user_code: byControl.user_code, state: 'authorized' });
    const pending = await start();
    expect((await poll(pending)).body.error).toBe('authorization_pending');
    for (const device of [onPage, byControl]) {
      const res = await poll(device);
      expect(res.status).toBe(200);
      issued.push(res.body.access_token);
    }
    const stats = await w.http().get('/-/simulator/stats');
    expect(stats.body).toMatchObject({ codes: 1, deviceCodes: 1 });

    expect(issued.every((value) => typeof value === 'string' && value.length >= 8)).toBe(true);
    const stored = atRest(w.sim);
    expect(stored.length).toBeGreaterThan(50);
    const kept = issued.filter((value) => stored.some((s) => s.includes(value)));
    expect(kept).toEqual([]);
  });
});
