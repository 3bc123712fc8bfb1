/**
 * The simulator left running as a shared CI service, against hostile clients (not web pages): what
 * one client's requests make it hold is bounded. A device authorization needs no user, only a public
 * client's id, and was kept for its lifetime and grace (over an hour) without a bound: now at most
 * MAX_DEVICE_CODES are held, the oldest going first, and a new client is still served. A connection
 * whose request head trickles in a byte at a time, or that sends nothing, was held 90 s (Node's 60 s
 * header limit, checked every 30 s), one whose body trickles 300 s: now each is answered 408 and
 * closed within CONNECTION_TIMEOUTS, and an honest client is served meanwhile (loopback sockets,
 * the limits shortened, so the test counts closed connections rather than waiting them out).
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../simulator/core.js';
import { CONNECTION_TIMEOUTS, serve } from '../../simulator/adapters/node.js';
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

/** A client that holds a connection: it opens with `head` and sends one byte more every 100 ms until answered. */
function holder(port: number, head: string, drip: string): Promise<string> {
  return new Promise((resolve) => {
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    const socket: Socket = connect(port, '127.0.0.1', () => {
      if (head) socket.write(head);
      if (drip) timer = setInterval(() => socket.writable && socket.write(drip), 100);
    });
    socket.on('data', (chunk) => {
      answer += String(chunk);
      clearInterval(timer);
      socket.end();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve(answer.split('\r\n')[0]);
    });
  });
}

describe('connections that never finish a request', () => {
  it('are limited by default: the head within 10 s, the request within 60 s, idle keep-alive 5 s', async () => {
    const served = await serve(createSimulator());
    try {
      const { headersTimeout, requestTimeout, keepAliveTimeout } = served.server;
      expect({ headersTimeout, requestTimeout, keepAliveTimeout }).toEqual({
        headersTimeout: CONNECTION_TIMEOUTS.headersMs,
        requestTimeout: CONNECTION_TIMEOUTS.requestMs,
        keepAliveTimeout: CONNECTION_TIMEOUTS.keepAliveMs,
      });
      expect(CONNECTION_TIMEOUTS).toMatchObject({ headersMs: 10_000, requestMs: 60_000 });
    } finally {
      await served.close();
    }
  });

  it('each is answered 408 and closed at its limit, while an honest client is served', async () => {
    const served = await serve(createSimulator(), {
      timeouts: { headersMs: 400, requestMs: 800, checkEveryMs: 50 },
    });
    try {
      const port = Number(new URL(served.url).port);
      const heads = Array.from({ length: 100 }, () => holder(port, 'GET /oauth/discovery/keys HTTP/1.1\r\n', 'X'));
      const silent = Array.from({ length: 100 }, () => holder(port, '', ''));
      const bodies = Array.from({ length: 50 }, () =>
        holder(
          port,
          'POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n',
          'a',
        ),
      );
      const honest = await new Promise<number>((resolve, reject) =>
        request(`${served.url}/oauth/discovery/keys`, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on('error', reject)
          .end(),
      );
      expect(honest).toBe(200);
      const answers = await Promise.all([...heads, ...silent, ...bodies]);
      const tally = (list: string[]) => [...new Set(list)];
      expect(tally(answers.slice(0, 100))).toEqual(['HTTP/1.1 408 Request Timeout']);
      expect(tally(answers.slice(200))).toEqual(['HTTP/1.1 408 Request Timeout']);
      // A connection that sent nothing is closed (with a 408, or without a word).
      expect(tally(answers.slice(100, 200)).every((a) => a === '' || a.startsWith('HTTP/1.1 408'))).toBe(true);
    } finally {
      await served.close();
    }
  });
});
