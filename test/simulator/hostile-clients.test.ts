/**
 * The simulator left running as a shared CI service, against hostile clients (not web pages): what
 * one client's requests make it hold is bounded. A device authorization needs no user, only a public
 * client's id, a session only the shared seeded login, a code only that session, and each was kept
 * for its lifetime and grace (a session a week) without a bound: now at most MOST_HELD of each are
 * held, the oldest going first, and a new client is still served. A connection
 * whose request head trickles in a byte at a time, or that sends nothing, was held 90 s (Node's 60 s
 * header limit, checked every 30 s), one whose body trickles 300 s: now each is answered 408 and
 * closed within CONNECTION_TIMEOUTS, and an honest client is served meanwhile (loopback sockets,
 * the limits shortened, so the test counts closed connections rather than waiting them out).
 */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../simulator/core.js';
import { CONNECTION_TIMEOUTS, serve, toNodeListener } from '../../simulator/adapters/node.js';
import request from 'supertest';
import { digest, slotOf } from '../../simulator/digest.js';
import { MOST_HELD } from '../../simulator/evict.js';
import { seeded } from '../../simulator/oauth/accounts.js';
import { app, code, exchangeForm, signIn, signInRoot, tokens, world, type World } from './oauth/helpers.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const floodKey = (i: number) => `flood-${i}`;

/**
 * A flood already in: `map` filled to its bound but one with copies of its newest record, keyed
 * `key(0)…` (oldest first; `flood-0…` unless the map is keyed otherwise).
 */
function flooded<K, V extends object>(
  map: Map<K, V>,
  max: number,
  copy: (record: V, i: number) => V,
  key: (i: number) => K = floodKey as (i: number) => K,
): void {
  const record = [...map.values()].at(-1)!;
  map.clear();
  for (let i = 0; map.size < max - 1; i++) map.set(key(i), copy(record, i));
}

/** After five more at the bound: the map holds its bound, the four oldest copies went, the fifth stays. */
function heldAtBound<K>(map: Map<K, unknown>, max: number, key: (i: number) => K = floodKey as (i: number) => K): void {
  expect(map.size).toBe(max);
  expect([0, 3, 4].map((i) => map.has(key(i)))).toEqual([false, false, true]);
}

/** A digest-like value whose slot (digest.ts slotOf, the key of the device maps) is `i`. */
function slotted(i: number, tag: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let text = '';
  for (let shift = 24; shift >= 0; shift -= 6) text += alphabet[(i >> shift) & 63];
  return `${text}${tag}`;
}
const bySlot = (i: number) => i;

describe('what a client can make again and again is held at most MOST_HELD, the oldest going first', () => {
  it('device authorizations (a public client id is all they need), with their user codes; a new one polls', async () => {
    const w = world();
    const clientId = app(w.sim, 'public').uid;
    const start = () =>
      w.http().post('/oauth/authorize_device').type('form').send({ client_id: clientId, scope: 'api' });
    expect((await start()).status).toBe(200);
    const { deviceCodes, userCodes } = w.sim.store;
    userCodes.clear();
    flooded(
      deviceCodes,
      MOST_HELD.deviceCodes,
      (record, i) => {
        const copy = { ...record, digest: slotted(i, 'device'), userCodeDigest: slotted(i, 'user') };
        expect(slotOf(copy.digest)).toBe(i);
        userCodes.set(i, copy);
        return copy;
      },
      bySlot,
    );
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await start());
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    heldAtBound(deviceCodes, MOST_HELD.deviceCodes, bySlot);
    expect(userCodes.size).toBe(MOST_HELD.deviceCodes);
    expect([0, 3].map((i) => userCodes.has(i))).toEqual([false, false]);
    // A user code slot an evicted record held that now names a newer authorization keeps naming it.
    const newer = { ...deviceCodes.get(5)!, digest: slotted(5, 'newer') };
    userCodes.set(4, newer);
    await start();
    expect(deviceCodes.has(4)).toBe(false);
    expect(userCodes.get(4)).toBe(newer);
    const poll = await w
      .http()
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: DEVICE_GRANT, device_code: answers[4].body.device_code, client_id: clientId });
    expect(poll.body.error).toBe('authorization_pending');
  });

  it('sessions (the shared seeded login is all they need) and authorization codes; the newest still work', async () => {
    const w = world();
    const { admin } = seeded(w.sim);
    await signIn(w.browser, admin.username, admin.password);
    await code(w, 'confidential');
    const { sessions, codes } = w.sim.store;
    flooded(sessions, MOST_HELD.sessions, (record, i) => ({ ...record, digest: `flood-${i}` }));
    flooded(codes, MOST_HELD.codes, (record, i) => ({ ...record, digest: `flood-${i}` }));
    // Five sign-ins of five browsers, five codes of the last one (each sign-in replaces only its own session).
    for (let i = 0; i < 5; i++) await signIn(request.agent(toNodeListener(w.sim)), admin.username, admin.password);
    heldAtBound(sessions, MOST_HELD.sessions);
    await signIn(w.browser, admin.username, admin.password);
    const issued = [];
    for (let i = 0; i < 5; i++) issued.push(await code(w, 'confidential'));
    heldAtBound(codes, MOST_HELD.codes);
    const exchange = await w
      .http()
      .post('/oauth/token')
      .type('form')
      .send(exchangeForm(w, 'confidential', issued[4].code));
    expect(exchange.status).toBe(200);
  });
});

describe('a sweep after a flood leaves none of its records held', () => {
  it('device authorizations flooded to the bound, then past their lifetime: once swept, none is reachable', async () => {
    const w = world();
    const clientId = app(w.sim, 'public').uid;
    const start = () =>
      w.http().post('/oauth/authorize_device').type('form').send({ client_id: clientId, scope: 'api' });
    expect((await start()).status).toBe(200);
    const { deviceCodes } = w.sim.store;
    // A sample of the flood, watched without being held.
    const watched: Array<WeakRef<object>> = [];
    flooded(deviceCodes, MOST_HELD.deviceCodes, (record, i) => {
      const copy = { ...record, digest: `flood-${i}` };
      if (i % 100 === 0) watched.push(new WeakRef(copy));
      return copy;
    });
    // At the bound: makeRoom evicts the oldest and keeps its place for the next one.
    for (let i = 0; i < 3; i++) expect((await start()).status).toBe(200);
    w.sim.clock.advance(2 * 24 * 3600);
    // The sweep before this request takes every record of the flood.
    expect((await start()).status).toBe(200);
    expect(deviceCodes.size).toBe(1);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    // A WeakRef's target lives to the end of the job that last read it.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(watched.filter((ref) => ref.deref() !== undefined).length).toBe(0);
  });
});

/** What an unknown token gets from token info, and what a refresh with an unknown refresh token gets. */
async function answers(w: World, access: string, refresh: string) {
  const confidential = app(w.sim, 'confidential');
  const info = await w.http().get('/oauth/token/info').set('authorization', `Bearer ${access}`);
  const refreshed = await w.http().post('/oauth/token').type('form').send({
    grant_type: 'refresh_token',
    refresh_token: refresh,
    client_id: confidential.uid,
    client_secret: confidential.secret,
  });
  return { info: [info.status, info.body], refresh: [refreshed.status, refreshed.body] };
}

const UNKNOWN = { access: 'a'.repeat(64), refresh: 'b'.repeat(64) };

describe('access and refresh tokens: at most MOST_HELD of each, a pair going as one, personal access tokens pinned', () => {
  it('password grants (the seeded login and application are all they need) push out the oldest pair', async () => {
    const w = world();
    await signInRoot(w);
    const first = await tokens(w, 'confidential');
    const { accessTokens, refreshTokens } = w.sim.store;
    const pair = [...accessTokens.values()].at(-1)!;
    // The flood: pairs newer than `first`, after the seeded personal access token (the oldest record).
    for (let i = 0; accessTokens.size < MOST_HELD.accessTokens; i++) {
      accessTokens.set(`flood-${i}`, { ...pair, digest: `flood-${i}`, refreshToken: `rflood-${i}` });
      refreshTokens.set(`rflood-${i}`, { ...refreshTokens.get(pair.refreshToken!)!, digest: `rflood-${i}` });
    }
    const { admin } = seeded(w.sim);
    const confidential = app(w.sim, 'confidential');
    const grants = [];
    for (let i = 0; i < 5; i++)
      grants.push(
        await w.http().post('/oauth/token').type('form').send({
          grant_type: 'password',
          username: admin.username,
          password: admin.password,
          client_id: confidential.uid,
          client_secret: confidential.secret,
        }),
      );
    expect(grants.map((g) => g.status)).toEqual([200, 200, 200, 200, 200]);
    expect(accessTokens.size).toBe(MOST_HELD.accessTokens);
    // `first` and four flood pairs went, each with its refresh token; the fifth stays whole.
    expect(
      ['flood-3', 'rflood-3', 'flood-4', 'rflood-4'].map((k) => accessTokens.has(k) || refreshTokens.has(k)),
    ).toEqual([false, false, true, true]);
    expect(refreshTokens.size).toBe(MOST_HELD.accessTokens - 1 - 1 - 4);
    // The evicted pair answers exactly as tokens never issued; the pinned and the newest are served.
    const unknown = await answers(w, UNKNOWN.access, UNKNOWN.refresh);
    expect([unknown.info[0], unknown.refresh]).toEqual([
      401,
      [400, expect.objectContaining({ error: 'invalid_grant' })],
    ]);
    expect(await answers(w, first.access_token, first.refresh_token)).toEqual(unknown);
    const pat = await w.http().get('/api/v4/user').set('private-token', seeded(w.sim).personalAccessToken);
    const newest = await w.http().get('/api/v4/user').set('authorization', `Bearer ${grants[4].body.access_token}`);
    expect([pat.status, newest.status]).toEqual([200, 200]);
  });

  it('a token minted through the control API is pinned as a personal access token is: a flood of grants leaves it', async () => {
    const w = world();
    await signInRoot(w);
    const minted = async (expiresIn?: null) =>
      (
        await w
          .http()
          .post('/-/simulator/tokens')
          .send({ scopes: ['api'], ...(expiresIn === null ? { expiresIn } : {}) })
      ).body.access_token as string;
    const lasting = await minted(null);
    const usual = await minted();
    const { accessTokens } = w.sim.store;
    const record = [...accessTokens.values()].at(-1)!;
    for (let i = 0; accessTokens.size < MOST_HELD.accessTokens; i++)
      accessTokens.set(`flood-${i}`, { ...record, digest: `flood-${i}`, pinned: false });
    for (let i = 0; i < 3; i++) await tokens(w, 'confidential');
    expect(accessTokens.size).toBe(MOST_HELD.accessTokens);
    expect(['flood-0', 'flood-2', 'flood-3'].map((k) => accessTokens.has(k))).toEqual([false, false, true]);
    const user = (token: string) => w.http().get('/api/v4/user').set('authorization', `Bearer ${token}`);
    expect([(await user(lasting)).status, (await user(usual)).status]).toEqual([200, 200]);
    // Pinned against the bound, not against time: past its lifetime and the grace, a sweep takes it.
    w.sim.clock.advance(2 * 86_400);
    expect([(await user(lasting)).status, (await user(usual)).status]).toEqual([200, 401]);
    expect([accessTokens.has(digest(lasting)), accessTokens.has(digest(usual))]).toEqual([true, false]);
  });

  it('tokens minted through the control API are held at most MOST_HELD.mintedTokens at once; a revoked one makes room', async () => {
    const w = world();
    const mint = () =>
      w
        .http()
        .post('/-/simulator/tokens')
        .send({ scopes: ['api'], expiresIn: null });
    const confidential = app(w.sim, 'confidential');
    const first = await mint();
    const { accessTokens } = w.sim.store;
    const record = accessTokens.get(digest(first.body.access_token))!;
    for (let i = 1; i < MOST_HELD.mintedTokens; i++)
      accessTokens.set(`minted-${i}`, { ...record, digest: `minted-${i}` });
    const refused = await mint();
    expect([refused.status, refused.body]).toEqual([
      409,
      {
        message: `at most ${MOST_HELD.mintedTokens} tokens minted through the control API are held at once: revoke some, or reset the simulator`,
      },
    ]);
    const revoked = await w
      .http()
      .post('/oauth/revoke')
      .type('form')
      .send({ token: first.body.access_token, client_id: confidential.uid, client_secret: confidential.secret });
    expect(revoked.status).toBe(200);
    expect((await mint()).status).toBe(201);
  });

  it('refresh tokens outliving their access tokens (never expiring) are capped too, the access token going with one', async () => {
    const w = world();
    await signInRoot(w);
    const first = await tokens(w, 'confidential');
    const { accessTokens, refreshTokens } = w.sim.store;
    const record = [...refreshTokens.values()].at(-1)!;
    // As the sweep leaves them: active refresh tokens whose access tokens expired and went.
    for (let i = 0; refreshTokens.size < MOST_HELD.refreshTokens; i++)
      refreshTokens.set(`rflood-${i}`, { ...record, digest: `rflood-${i}`, accessToken: `gone-${i}` });
    const accessHeld = accessTokens.size;
    const second = await tokens(w, 'confidential');
    const third = await tokens(w, 'confidential');
    expect(refreshTokens.size).toBe(MOST_HELD.refreshTokens);
    expect(['rflood-0', 'rflood-1'].map((k) => refreshTokens.has(k))).toEqual([false, true]);
    // `first` went whole: its access token with its refresh token.
    expect(accessTokens.size).toBe(accessHeld + 2 - 1);
    expect(await answers(w, first.access_token, first.refresh_token)).toEqual(
      await answers(w, UNKNOWN.access, UNKNOWN.refresh),
    );
    const refreshed = await answers(w, second.access_token, third.refresh_token);
    expect([refreshed.info[0], refreshed.refresh[0]]).toEqual([200, 200]);
  });
});

describe('the API rate limiter: a window per presented token, known or not, at most MOST_HELD', () => {
  it('invented tokens push out the oldest windows; the newest still counts', async () => {
    const w = world({ settings: { rateLimit: { requests: 2, periodSeconds: 60 } } });
    const windows = w.sim.state('api.rateLimit', () => new Map<string, { start: number; count: number }>());
    const start = w.sim.clock.nowSeconds();
    while (windows.size < MOST_HELD.rateLimitWindows) windows.set(`flood-${windows.size}`, { start, count: 1 });
    const pat = () => w.http().get('/api/v4/user').set('private-token', seeded(w.sim).personalAccessToken);
    expect((await pat()).status).toBe(200);
    for (let i = 0; i < 4; i++) await w.http().get('/api/v4/user').set('private-token', `invented-${i}`);
    expect(windows.size).toBe(MOST_HELD.rateLimitWindows);
    expect(['flood-4', 'flood-5'].map((k) => windows.has(k))).toEqual([false, true]);
    expect([(await pat()).status, (await pat()).status]).toEqual([200, 429]);
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
        httpRequest(`${served.url}/oauth/discovery/keys`, (res) => {
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
