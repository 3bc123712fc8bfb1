/**
 * The simulator left running as a shared CI service, against hostile clients (not web pages): what
 * one client's requests make it hold is bounded. A device authorization needs no user, only a public
 * client's id, and was kept for its lifetime and grace (over an hour) without a bound: now at most
 * MAX_DEVICE_CODES are held, the oldest going first, and a new client is still served.
 */
import { describe, expect, it } from 'vitest';
import { MAX_DEVICE_CODES } from '../../simulator/oauth/device.js';
import { app, world } from './oauth/helpers.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

describe('device authorizations a client can start without end', () => {
  it('are held at most MAX_DEVICE_CODES, the oldest going with its user code; a new one is served and polls', async () => {
    const w = world();
    const clientId = app(w.sim, 'public').uid;
    const start = () =>
      w.http().post('/oauth/authorize_device').type('form').send({ client_id: clientId, scope: 'api' });
    const first = await start();
    expect(first.status).toBe(200);
    // A flood already in: the store at its bound but one, each an old copy of the first record.
    const { deviceCodes, userCodes } = w.sim.store;
    const [record] = deviceCodes.values();
    deviceCodes.clear();
    userCodes.clear();
    for (let i = 0; deviceCodes.size < MAX_DEVICE_CODES - 1; i++) {
      deviceCodes.set(`flood-${i}`, { ...record, digest: `flood-${i}`, userCodeDigest: `user-${i}` });
      userCodes.set(`user-${i}`, `flood-${i}`);
    }
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await start());
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(deviceCodes.size).toBe(MAX_DEVICE_CODES);
    expect(userCodes.size).toBe(MAX_DEVICE_CODES);
    // The four oldest went, with their user codes; the rest stay.
    expect(['flood-0', 'flood-3'].map((k) => deviceCodes.has(k))).toEqual([false, false]);
    expect(['user-0', 'user-3'].map((k) => userCodes.has(k))).toEqual([false, false]);
    expect(deviceCodes.has('flood-4')).toBe(true);
    // The newest is a live device authorization: its poll is pending.
    const poll = await w
      .http()
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: DEVICE_GRANT, device_code: answers[4].body.device_code, client_id: clientId });
    expect(poll.body.error).toBe('authorization_pending');
  });
});
