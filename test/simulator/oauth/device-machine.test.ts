/**
 * The device code's conditions and effects at their exact boundaries, the token's user and
 * application, the user code's shape, and the specific wrong answer each device fault gives.
 */
import { digest, slotOf } from '../../../simulator/digest.js';
import { retention } from '../../../spec/index.js';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../../simulator/oauth/accounts.js';
import {
  deviceByCode,
  deviceByUserCode,
  issueDeviceCode,
  issueUserCode,
  newUserCode,
  normalizeUserCode,
  storeDeviceCode,
} from '../../../simulator/oauth/device.js';
import { createSimulator } from '../../../simulator/core.js';
import type { DeviceCode } from '../../../simulator/store.js';
import type { Sim } from '../../../simulator/types.js';
import { L, app, world, type World } from './helpers.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

async function start(w: World) {
  const pub = app(w.sim, 'public');
  const { body } = await w.http().post('/oauth/authorize_device').type('form').send({ client_id: pub.uid });
  const record = deviceByCode(w.sim, body.device_code)!;
  const poll = async () =>
    (
      await w
        .http()
        .post('/oauth/token')
        .type('form')
        .send({ grant_type: DEVICE_GRANT, client_id: pub.uid, device_code: body.device_code })
    ).body;
  const decide = (decision: 'approve' | 'deny', username?: string) =>
    w
      .http()
      .post(`/-/simulator/device/${decision}`)
      .send(username ? { user_code: body.user_code, username } : { user_code: body.user_code });
  return { body, record, poll, decide };
}

describe('too_fast at its boundary', () => {
  it('a poll one millisecond short of the interval is slow_down and grows it by exactly the increment', async () => {
    const w = world();
    const d = await start(w);
    expect((await d.poll()).error).toBe('authorization_pending');
    const first = w.sim.clock.now();
    expect(d.record.lastPollAt).toBe(first);
    w.sim.clock.advance(L.deviceInterval - 0.001);
    expect((await d.poll()).error).toBe('slow_down');
    expect(d.record.interval).toBe(L.deviceInterval + L.slowDownIncrement);
    expect(d.record.lastPollAt).toBe(w.sim.clock.now());
  });

  it('the first poll is never too fast, even on a clock at the epoch', async () => {
    const w = world({ clock: { frozen: true, start: 0 } });
    const d = await start(w);
    expect((await d.poll()).error).toBe('authorization_pending');
    expect(d.record.interval).toBe(L.deviceInterval);
  });

  it('a poll exactly one interval later is pending, and the interval stays', async () => {
    const w = world();
    const d = await start(w);
    await d.poll();
    w.sim.clock.advance(L.deviceInterval);
    expect((await d.poll()).error).toBe('authorization_pending');
    expect(d.record.interval).toBe(L.deviceInterval);
    expect(d.record.lastPollAt).toBe(w.sim.clock.now());
  });

  it('no-slow-down: the fast poll is answered authorization_pending and the interval never grows', async () => {
    const w = world({ faults: ['no-slow-down'] });
    const d = await start(w);
    await d.poll();
    expect((await d.poll()).error).toBe('authorization_pending');
    expect(d.record.interval).toBe(L.deviceInterval);
  });
});

describe('code_expired at its boundary', () => {
  it('pending one second before the lifetime ends, expired_token at exactly the lifetime', async () => {
    const w = world();
    const d = await start(w);
    w.sim.clock.advance(L.deviceCodeLifetime - 1);
    expect((await d.poll()).error).toBe('authorization_pending');
    w.sim.clock.advance(1);
    expect((await d.poll()).error).toBe('expired_token');
    expect(d.record.state).toBe('expired');
  });

  it('approval at exactly the lifetime is refused with the expired page', async () => {
    const w = world();
    const d = await start(w);
    w.sim.clock.advance(L.deviceCodeLifetime);
    const res = await d.decide('approve');
    expect(res.body).toEqual({
      ok: false,
      user_code: d.body.user_code,
      state: 'expired',
      result: 'device_code_expired',
    });
    expect(d.record.userId).toBeNull();
  });

  it('device-code-never-expires: still authorization_pending long after the lifetime', async () => {
    const w = world({ faults: ['device-code-never-expires'] });
    const d = await start(w);
    w.sim.clock.advance(L.deviceCodeLifetime * 10);
    expect((await d.poll()).error).toBe('authorization_pending');
    expect(d.record.state).toBe('pending');
  });

  it('device-code-never-expires: kept by the sweep too, pending a day on, its response still saying the lifetime', async () => {
    const w = world({ faults: ['device-code-never-expires'] });
    const d = await start(w);
    expect(d.body.expires_in).toBe(L.deviceCodeLifetime);
    // Past the lifetime, the grace the sweep keeps an expired record and a sweep's interval.
    const { expiredGrace, evictionInterval } = retention();
    w.sim.clock.advance(L.deviceCodeLifetime + expiredGrace + evictionInterval + 24 * 3600);
    expect((await d.poll()).error).toBe('authorization_pending');
  });
});

describe('the token a device code yields', () => {
  it('belongs to the approving user and the device code’s application, with its scopes, without refresh', async () => {
    const w = world();
    const users = [...w.sim.store.users.values()];
    const other = users.find((u) => u.id !== seeded(w.sim).admin.id)!;
    const d = await start(w);
    const approved = await d.decide('approve', other.username);
    expect(approved.body).toEqual({
      ok: true,
      user_code: d.body.user_code,
      state: 'authorized',
      result: 'device_approved',
    });
    expect(d.record.userId).toBe(other.id);
    const ok = await d.poll();
    const access = w.sim.store.accessTokens.get(digest(ok.access_token))!;
    expect(access.userId).toBe(other.id);
    expect(access.applicationId).toBe(app(w.sim, 'public').id);
    expect(access.scopes).toEqual(d.record.scopes);
    expect(ok.refresh_token).toBeUndefined();
    expect(w.sim.store.refreshTokens.size).toBe(0);
    expect(d.record.state).toBe('consumed');
  });

  it('a denial remembers who denied', async () => {
    const w = world();
    const d = await start(w);
    const denied = await d.decide('deny');
    expect(denied.body).toEqual({ ok: true, user_code: d.body.user_code, state: 'denied', result: 'device_denied' });
    expect(d.record.userId).toBe(seeded(w.sim).admin.id);
    expect((await d.poll()).error).toBe('access_denied');
  });
});

describe('device-code-reusable', () => {
  it('keeps the approval: a second poll gets a second, different token instead of invalid_grant', async () => {
    const w = world({ faults: ['device-code-reusable'] });
    const d = await start(w);
    await d.decide('approve');
    const first = await d.poll();
    expect(d.record.state).toBe('authorized');
    w.sim.clock.advance(L.deviceInterval);
    const second = await d.poll();
    expect(second.token_type).toBe('Bearer');
    expect(second.access_token).not.toBe(first.access_token);
    expect(d.record.state).toBe('authorized');
    expect(w.sim.store.accessTokens.get(digest(second.access_token))!.userId).toBe(seeded(w.sim).admin.id);
  });

  it('touches no other transition: pending stays pending, a denial is kept', async () => {
    const w = world({ faults: ['device-code-reusable'] });
    const d = await start(w);
    expect((await d.poll()).error).toBe('authorization_pending');
    expect(d.record.state).toBe('pending');
    await d.decide('deny');
    expect(d.record.state).toBe('denied');
  });
});

describe('user codes', () => {
  it('are two groups of four consonants from the RFC 8628 alphabet', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const code = newUserCode();
      expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
      for (const c of code.replace('-', '')) seen.add(c);
    }
    expect([...seen].sort().join('')).toBe('BCDFGHJKLMNPQRSTVWXZ');
  });

  it('are read regardless of case, spaces and dashes; other lengths are kept compact', () => {
    expect(normalizeUserCode('bcdf ghjk')).toBe('BCDF-GHJK');
    expect(normalizeUserCode('B-C-D-F-G-H-J-K')).toBe('BCDF-GHJK');
    expect(normalizeUserCode('bcdfghj')).toBe('BCDFGHJ');
    expect(normalizeUserCode('bcdfghjkl')).toBe('BCDFGHJKL');
    expect(normalizeUserCode('12 ab')).toBe('AB');
  });

  it('find their record only when they match', async () => {
    const w = world();
    const d = await start(w);
    expect(deviceByUserCode(w.sim, d.body.user_code.toLowerCase())).toBe(d.record);
    const other = d.body.user_code.startsWith('B') ? `C${d.body.user_code.slice(1)}` : `B${d.body.user_code.slice(1)}`;
    expect(deviceByUserCode(w.sim, other)).toBeUndefined();
  });
});

describe('the device maps, by slot', () => {
  const at = (sim: Sim, device: string, user: string) =>
    ({
      digest: digest(device),
      userCodeDigest: digest(user),
      createdAt: sim.clock.nowSeconds(),
      expiresIn: 300,
    }) as DeviceCode;

  it('sweep user codes whose device authorization left the store, keeping the one being stored', () => {
    const sim = createSimulator();
    // Indexed by their user code but never stored (or since evicted): the next one stored sweeps them.
    for (let i = 0; i < 1100; i++) {
      const gone = at(sim, `device-${i}`, `user-${i}`);
      sim.store.userCodes.set(slotOf(gone.userCodeDigest), gone);
    }
    const { userCode, userCodeDigest } = issueUserCode(sim);
    const { deviceCode, deviceDigest } = issueDeviceCode(sim);
    expect([userCodeDigest, deviceDigest]).toEqual([digest(userCode), digest(deviceCode)]);
    const fresh = { ...at(sim, '', ''), digest: deviceDigest, userCodeDigest };
    storeDeviceCode(sim, fresh);
    expect(sim.store.userCodes.size).toBe(sim.store.deviceCodes.size);
    expect(deviceByUserCode(sim, userCode)).toBe(fresh);
    expect(deviceByCode(sim, deviceCode)).toBe(fresh);
  });

  it('find nothing for a code whose slot holds another record: the whole digest must match', () => {
    const sim = createSimulator();
    // The record in the presented codes' slots is another authorization's (as a code sharing 30 bits would find).
    const other = at(sim, 'other-device', 'BCDF-GHJK');
    sim.store.deviceCodes.set(slotOf(digest('presented-device')), other);
    sim.store.userCodes.set(slotOf(digest('CDFG-HJKL')), other);
    expect(deviceByCode(sim, 'presented-device')).toBeUndefined();
    expect(deviceByUserCode(sim, 'CDFG-HJKL')).toBeUndefined();
    // And where the slots do hold it, it is found.
    sim.store.deviceCodes.set(slotOf(other.digest), other);
    sim.store.userCodes.set(slotOf(other.userCodeDigest), other);
    expect(deviceByCode(sim, 'other-device')).toBe(other);
    expect(deviceByUserCode(sim, 'bcdf ghjk')).toBe(other);
  });
});
