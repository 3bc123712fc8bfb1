/**
 * The simulator under hostile input (issue 13): no open redirect after sign-in, a body limit per
 * route, a control API only for its own host, brute force throttled, credentials stored hashed.
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { limits } from '../../spec/index.js';
import { createSimulator } from '../../simulator/core.js';
import { serve } from '../../simulator/adapters/node.js';
import { digest } from '../../simulator/digest.js';
import { seeded } from '../../simulator/oauth/accounts.js';
import { safeReturnPath } from '../../simulator/oauth/session.js';
import { MAX_UNKNOWN_LOGIN_KEYS } from '../../simulator/oauth/throttle.js';
import { UsageError } from '../../cli/errors.js';
import { simulatorOptions, startSimulation } from '../../cli/simulate.js';
import { app, formFields, world, type World } from './oauth/helpers.js';

const ORIGIN = 'http://127.0.0.1:3000';
const HOME = '/home';
const SEED = Number(process.env.FC_SEED ?? 20261123);

describe('safeReturnPath (GRANT-SIGN-IN-RETURN-SAME-ORIGIN)', () => {
  it.each([
    '//evil.example/x',
    '/\\evil.example/x',
    '/\t/evil.example/x',
    '/\n/evil.example/x',
    '/\r/evil.example/x',
    '/%09/evil.example/x'.replace('%09', '\t'),
    '/.//evil.example/x',
    '\\/evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    ' /x',
    '/x\r\nSet-Cookie: a=b',
    '',
  ])('refuses %j', (value) => {
    expect(safeReturnPath(value, HOME, ORIGIN)).toBe(HOME);
  });

  it.each([
    ['/oauth/authorize?client_id=a&scope=api%20openid', '/oauth/authorize?client_id=a&scope=api%20openid'],
    ['/user_settings/applications', '/user_settings/applications'],
    ['/a/../b', '/b'],
    ['/ü', '/%C3%BC'],
  ])('follows %j as %j', (value, expected) => {
    expect(safeReturnPath(value, HOME, ORIGIN)).toBe(expected);
  });

  it('property: whatever it answers resolves, against our origin, to our origin and is a header-safe path', () => {
    const chars = fc.constantFrom(
      '/',
      '\\',
      '\t',
      '\n',
      '\r',
      ' ',
      '.',
      ':',
      '@',
      '%',
      '?',
      '#',
      'e',
      'v',
      'x',
      '\u0000',
    );
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: chars, maxLength: 24 }), fc.string({ maxLength: 24 })), (value) => {
        const out = safeReturnPath(value, HOME, ORIGIN);
        expect(new URL(out, ORIGIN).origin).toBe(ORIGIN);
        expect(out.startsWith('/') && !out.startsWith('//')).toBe(true);
        expect(out).toMatch(/^[\x21-\x7e]+$/);
        // Strip nothing silently: an answer other than the fallback is the value, normalized.
        if (out !== HOME) expect(new URL(out, ORIGIN).href).toBe(new URL(value, ORIGIN).href);
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('the sign-in form with a tab or newline in redirect_to goes home, never 500, never off-site', async () => {
    for (const evil of ['/\t/evil.example/x', '/\n/evil.example/x', '/\r\n/evil.example/x']) {
      const w = world();
      const { admin } = seeded(w.sim);
      const page = await w.browser.get(`/users/sign_in?redirect_to=${encodeURIComponent(evil)}`);
      expect(page.status).toBe(200);
      const fields = formFields(page.text, 'sign-in');
      const res = await w.browser
        .post('/users/sign_in')
        .type('form')
        .send({ ...fields, redirect_to: evil, 'user[login]': admin.username, 'user[password]': admin.password });
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/user_settings/applications');
    }
  });
});

/** A raw POST streaming `megabytes` of body, answered or not. */
function bigPost(url: string, path: string, megabytes: number, declare: boolean, authorization?: string) {
  const u = new URL(url);
  return new Promise<{ status?: number; body: string; error?: string }>((resolve) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (authorization) headers.authorization = authorization;
    if (declare) headers['content-length'] = megabytes * 1024 * 1024;
    const req = httpRequest({ host: u.hostname, port: u.port, method: 'POST', path, headers });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ body: '', error: e.code }));
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    let sent = 0;
    const write = () => {
      while (sent < megabytes) {
        sent++;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

describe('body limit (LIM-REQUEST-BODY-SIZE)', () => {
  it('a 50 MB POST gets 413 in the path shape, memory stays bounded, the next request works', async () => {
    const served = await serve(createSimulator());
    try {
      const before = process.memoryUsage().rss;
      for (const declare of [true, false]) {
        const oauth = await bigPost(served.url, '/oauth/token', 50, declare);
        expect(oauth.status).toBe(413);
        expect(JSON.parse(oauth.body)).toMatchObject({ error: 'invalid_request' });
        const api = await bigPost(served.url, '/api/v4/projects/1/issues', 50, declare);
        expect(api.status).toBe(413);
        expect(JSON.parse(api.body)).toEqual({ message: expect.stringContaining('413') });
      }
      // Four 50 MB bodies read whole would cost hundreds of MB; refused, they cost little.
      expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
      const next = await fetch(`${served.url}/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'nope' }),
      });
      expect(next.status).toBe(400);
      expect(await next.json()).toMatchObject({ error: 'unsupported_grant_type' });
    } finally {
      await served.close();
    }
  });

  it('a body just under the limit is read; Git routes take more', async () => {
    const sim = createSimulator();
    const { requestBodyMaxBytes, gitRequestBodyMaxBytes } = limits();
    expect(sim.bodyLimit('POST', '/oauth/token')).toBe(requestBodyMaxBytes);
    const basic = `Basic ${Buffer.from(`oauth2:${seeded(sim).personalAccessToken}`).toString('base64')}`;
    const push = '/group/subgroup/project.git/git-receive-pack';
    expect(sim.bodyLimit('POST', push, basic)).toBe(gitRequestBodyMaxBytes);
    expect(gitRequestBodyMaxBytes).toBeGreaterThan(requestBodyMaxBytes);
    const form = `grant_type=nope&pad=${'a'.repeat(requestBodyMaxBytes - 40)}`;
    const under = await sim.handle(new Request(`${ORIGIN}/oauth/token`, { method: 'POST', body: form }));
    expect(under.status).toBe(400);
  });

  it('a Git route takes the Git limit only with a live token for a project that exists (review 20)', async () => {
    const sim = createSimulator();
    const { requestBodyMaxBytes, gitRequestBodyMaxBytes } = limits();
    const basic = (token: string) => `Basic ${Buffer.from(`oauth2:${token}`).toString('base64')}`;
    const live = basic(seeded(sim).personalAccessToken);
    const upload = '/group/subgroup/project.git/git-upload-pack';
    const served = await serve(sim);
    try {
      // No credential, a dead one, or no such project: the answer (401, 404) needs no body.
      for (const [path, authorization] of [
        ['/nobody/nothing.git/git-upload-pack', undefined],
        [upload, undefined],
        [upload, basic('not-a-token')],
        ['/nobody/nothing.git/git-upload-pack', live],
      ] as const) {
        expect(sim.bodyLimit('POST', path, authorization)).toBe(requestBodyMaxBytes);
        for (const declare of [true, false]) {
          const res = await bigPost(served.url, path, 1, declare, authorization);
          expect(res.status, `${path} ${authorization ?? ''}`).toBe(413);
          expect(res.body).toContain(`over ${requestBodyMaxBytes} bytes`);
        }
      }
      expect(sim.bodyLimit('POST', upload, live)).toBe(gitRequestBodyMaxBytes);
      const served1MiB = await bigPost(served.url, upload, 1, true, live);
      expect(served1MiB.status).not.toBe(413);
      expect(served1MiB.error).toBeUndefined();
    } finally {
      await served.close();
    }
  });

  it('a Link header past the bound is refused with 414 first (a URL within maxUrlLength is always served)', async () => {
    // Only a URL past maxUrlLength can make such a Link: the no-414 fault lets one through.
    const sim = createSimulator({ faults: ['no-414'] });
    const pat = seeded(sim).personalAccessToken;
    const q = 'x'.repeat(4 * sim.options.settings.maxUrlLength);
    const res = await sim.handle(
      new Request(`${ORIGIN}/api/v4/projects?per_page=1&search_junk=${q}`, { headers: { 'private-token': pat } }),
    );
    expect(res.status).toBe(414);
    expect(await res.json()).toEqual({ message: expect.stringContaining('Link') });
  });
});

describe('control API host (AUTH-CONTROL-API-LOCAL)', () => {
  it('answers its own address, refuses another Host (DNS rebinding), accepts --allow-host', async () => {
    const served = await serve(createSimulator(), { allowHosts: ['idp.internal'] });
    try {
      const get = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const u = new URL(served.url);
          httpRequest({ host: u.hostname, port: u.port, path: '/-/simulator/config', headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          })
            .on('error', reject)
            .end();
        });
      const port = new URL(served.url).port;
      expect(await get(`127.0.0.1:${port}`)).toBe(200);
      expect(await get(`localhost:${port}`)).toBe(200);
      expect(await get(`evil.example:${port}`)).toBe(403);
      expect(await get('evil.example')).toBe(403);
      expect(await get(`idp.internal:${port}`)).toBe(200);
    } finally {
      await served.close();
    }
  });

  it('refuses a non-loopback --host without --expose-control; --issuer fixes iss and verification_uri', async () => {
    await expect(startSimulation({ host: '0.0.0.0', port: '0' }, () => {})).rejects.toThrow(UsageError);
    expect(() => simulatorOptions({ issuer: 'not a url' })).toThrow(UsageError);
    expect(() => simulatorOptions({ issuer: 'https://idp.test/?x=1' })).toThrow(UsageError);
    const options = simulatorOptions({ issuer: 'https://idp.test/' });
    expect(options.issuer).toBe('https://idp.test');
    const sim = createSimulator({ ...options, clock: { frozen: true } });
    const discovery = await sim.handle(new Request('http://attacker.test/.well-known/openid-configuration'));
    expect((await discovery.json()).issuer).toBe('https://idp.test');
    const device = await sim.handle(
      new Request('http://attacker.test/oauth/authorize_device', {
        method: 'POST',
        body: new URLSearchParams({ client_id: seeded(sim).applications.public.uid, scope: 'api' }),
      }),
    );
    expect((await device.json()).verification_uri).toBe('https://idp.test/oauth/device');
  });
});

describe('brute force (AUTH-BRUTE-FORCE-THROTTLED)', () => {
  it('password grant: after the limit the account is refused with invalid_grant, even the right password, until the window passes', async () => {
    const w = world();
    const { admin } = seeded(w.sim);
    const post = (password: string) =>
      w.http().post('/oauth/token').type('form').send({ grant_type: 'password', username: admin.username, password });
    const { authFailuresMax, authFailureWindowSeconds } = limits();
    for (let i = 0; i < authFailuresMax; i++) expect((await post(`wrong-${i}`)).body.error).toBe('invalid_grant');
    const locked = await post(admin.password);
    expect(locked.status).toBe(400);
    expect(locked.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/Too many/) });
    w.sim.clock.advance(authFailureWindowSeconds);
    expect((await post(admin.password)).status).toBe(200);
  });

  it('password grant: failures on as many unknown logins as the table holds, and more, do not lift a lock', async () => {
    const sim = createSimulator({ clock: { frozen: true } });
    const { admin } = seeded(sim);
    const grant = async (username: string, password: string) => {
      const body = new URLSearchParams({ grant_type: 'password', username, password });
      const res = await sim.handle(new Request('http://127.0.0.1/oauth/token', { method: 'POST', body }));
      return (await res.json()) as { error?: string; error_description?: string };
    };
    for (let i = 0; i < limits().authFailuresMax; i++) await grant(admin.username, `wrong-${i}`);
    for (let i = 0; i <= MAX_UNKNOWN_LOGIN_KEYS; i++) await grant(`nobody-${i}`, 'guess');
    expect(await grant(admin.username, admin.password)).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/Too many/),
    });
  });

  it('password grant over the socket: a DNS-rebinding page (Host and Origin its name) cannot lock the account (review 25)', async () => {
    const sim = createSimulator();
    const { admin } = seeded(sim);
    const served = await serve(sim);
    try {
      const u = new URL(served.url);
      const rebound = `attacker.test:${u.port}`;
      // What Chromium sends once the page's name resolves to 127.0.0.1: its own name, same-origin.
      const headers = {
        host: rebound,
        origin: `http://${rebound}`,
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/x-www-form-urlencoded',
      };
      const rebind = (password: string) =>
        new Promise<number>((resolve, reject) => {
          const body = new URLSearchParams({ grant_type: 'password', username: admin.username, password }).toString();
          httpRequest({ host: u.hostname, port: u.port, method: 'POST', path: '/oauth/token', headers }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          })
            .on('error', reject)
            .end(body);
        });
      for (let i = 0; i < limits().authFailuresMax + 5; i++) expect(await rebind(`wrong-${i}`)).toBe(400);
      const harness = await fetch(`${served.url}/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'password', username: admin.username, password: admin.password }),
      });
      expect(harness.status).toBe(200);
    } finally {
      await served.close();
    }
  });

  it('sign-in form: 429 with Retry-After once the account is throttled', async () => {
    const w = world();
    const { user } = seeded(w.sim);
    const page = await w.browser.get('/users/sign_in');
    const fields = formFields(page.text, 'sign-in');
    const send = (password: string) =>
      w.browser
        .post('/users/sign_in')
        .type('form')
        .send({ ...fields, 'user[login]': user.username, 'user[password]': password });
    for (let i = 0; i < limits().authFailuresMax; i++) expect((await send(`wrong-${i}`)).status).toBe(401);
    const locked = await send(user.password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('device page: wrong user codes are throttled per account; user codes are unique and found by code', async () => {
    const w = world({ release: '17.1' });
    const { admin } = seeded(w.sim);
    const codes = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const res = await w
        .http()
        .post('/oauth/authorize_device')
        .type('form')
        .send({ client_id: app(w.sim, 'public').uid, scope: 'api' });
      codes.add(res.body.user_code);
    }
    expect(codes.size).toBe(200);
    const page = await w.browser.get('/users/sign_in');
    await w.browser
      .post('/users/sign_in')
      .type('form')
      .send({ ...formFields(page.text, 'sign-in'), 'user[login]': admin.username, 'user[password]': admin.password });
    const form = formFields((await w.browser.get('/oauth/device')).text, 'device');
    const decide = (code: string) =>
      w.browser
        .post('/oauth/device')
        .type('form')
        .send({ ...form, user_code: code, decision: 'approve' });
    for (let i = 0; i < limits().authFailuresMax; i++) expect((await decide('BBBB-BBBB')).status).toBe(404);
    expect((await decide([...codes][0])).status).toBe(429);
  });
});

describe('stored like a real provider (AUTH-CREDENTIALS-STORED-HASHED, AUTH-SESSION-COOKIE-SECURE)', () => {
  it('keeps hashes of passwords and client secrets and tokens by digest, never the plaintext', async () => {
    const w = world();
    const s = seeded(w.sim);
    const res = await w
      .http()
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'password', username: s.admin.username, password: s.admin.password });
    const stored = JSON.stringify({
      users: [...w.sim.store.users.values()],
      apps: [...w.sim.store.applications.values()],
      tokens: [...w.sim.store.accessTokens.entries()],
    });
    for (const plain of [
      s.admin.password,
      s.applications.confidential.secret,
      res.body.access_token,
      s.personalAccessToken,
    ])
      expect(stored).not.toContain(plain);
    expect(w.sim.store.users.get(s.admin.id)!.passwordHash).toBe(digest(s.admin.password));
    expect(w.sim.store.accessTokens.has(digest(res.body.access_token))).toBe(true);
    // The config still hands the harness the plaintext it needs.
    const config = (await w.http().get('/-/simulator/config')).body;
    expect(config.user.password).toBe(s.admin.password);
    expect(config.applications.confidential.clientSecret).toBe(s.applications.confidential.secret);
  });

  it('sets Secure on the session cookie over HTTPS; X-Forwarded-Proto only with trustProxy', async () => {
    const cookieOf = async (
      sim: ReturnType<typeof createSimulator>,
      url: string,
      headers: Record<string, string> = {},
    ) => (await sim.handle(new Request(url, { headers }))).headers.get('set-cookie') ?? '';
    const plain = createSimulator();
    expect(await cookieOf(plain, 'https://idp.test/users/sign_in')).toMatch(/; Secure/);
    expect(await cookieOf(plain, 'http://idp.test/users/sign_in')).not.toMatch(/Secure/);
    expect(await cookieOf(plain, 'http://idp.test/users/sign_in', { 'x-forwarded-proto': 'https' })).not.toMatch(
      /Secure/,
    );
    const proxied = createSimulator({ trustProxy: true });
    expect(await cookieOf(proxied, 'http://idp.test/users/sign_in', { 'x-forwarded-proto': 'https' })).toMatch(
      /; Secure/,
    );
  });

  it('creates no session for sign-in page views, one at sign-in', async () => {
    const w = world();
    for (let i = 0; i < 50; i++) await w.http().get('/users/sign_in');
    expect(w.sim.store.sessions.size).toBe(0);
    const { admin } = seeded(w.sim);
    const page = await w.browser.get('/users/sign_in');
    await w.browser
      .post('/users/sign_in')
      .type('form')
      .send({ ...formFields(page.text, 'sign-in'), 'user[login]': admin.username, 'user[password]': admin.password });
    expect(w.sim.store.sessions.size).toBe(1);
  });
});

/**
 * `/oauth/token` answers every origin (Access-Control-Allow-Origin: *, as the real service does), so
 * a page on any site can post to a simulator on loopback and read the answer. That is safe only
 * while no credential of it can be known in advance: none is a default, each is drawn per simulator.
 */
describe('no default credentials (CORS lets any page read /oauth/token)', () => {
  it('two simulators share no seeded password, client id, client secret or token; one cannot mint with the other’s', async () => {
    const [a, b] = [world(), world()];
    const values = (w: World) => {
      const s = seeded(w.sim);
      const apps = Object.values(s.applications);
      return [
        ...[s.admin, s.user, s.twoFactorUser].map((u) => u.password),
        ...apps.map((app) => app.uid),
        ...apps.map((app) => app.secret),
        s.personalAccessToken,
      ];
    };
    const [mine, theirs] = [values(a), values(b)];
    expect(mine.filter((v) => theirs.includes(v))).toEqual([]);
    expect(Math.min(...mine.map((v) => v.length))).toBeGreaterThanOrEqual(24);
    // A page that read another simulator's (its documentation's, a copy's) credentials gets nothing here.
    const other = seeded(b.sim);
    const minted = await a.http().post('/oauth/token').set('origin', 'https://evil.example').type('form').send({
      grant_type: 'password',
      username: 'root',
      password: other.admin.password,
      client_id: other.applications.confidential.uid,
      client_secret: other.applications.confidential.secret,
    });
    expect({ status: minted.status, token: minted.body.access_token }).toEqual({ status: 401, token: undefined });
  });
});

/**
 * Review 25, finding 5: the pages' forms answer our own pages only. A page on another port of
 * 127.0.0.1 is the same site (cookies ignore ports): it can post a form here with the developer's
 * cookies, or with a pre-session cookie of its own and its own account's password (login CSRF).
 */
describe('page forms refuse posts from pages of another origin (review 25)', () => {
  const OWN = 'http://127.0.0.1:3000';
  const sim = createSimulator({ release: '17.1', clock: { frozen: true }, controlHosts: ['127.0.0.1:3000'] });
  const { admin } = seeded(sim);
  const send = async (url: string, init: { cookie?: string; headers?: Record<string, string>; form?: object } = {}) => {
    const headers = { ...init.headers, ...(init.cookie ? { cookie: init.cookie } : {}) };
    const body = init.form && new URLSearchParams(init.form as Record<string, string>);
    const res = await sim.handle(
      new Request(url, { method: body ? 'POST' : 'GET', headers, body, redirect: 'manual' }),
    );
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const cookieOf = (res: { headers: Headers }) => res.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  /** A session of root's, signed in by a client that sends no browser header. */
  const session = async () => {
    const page = await send(`${OWN}/users/sign_in`);
    const fields = formFields(page.text, 'sign-in');
    const res = await send(`${OWN}/users/sign_in`, {
      cookie: cookieOf(page),
      form: { ...fields, 'user[login]': admin.username, 'user[password]': admin.password },
    });
    expect(res.status).toBe(302);
    return cookieOf(res);
  };
  const confidential = app(sim, 'confidential');
  /** Each form of the pages, filled as its page has it: the path, the cookie and the fields. */
  const forms: Record<string, () => Promise<{ path: string; cookie: string; form: object }>> = {
    'sign-in': async () => {
      const page = await send(`${OWN}/users/sign_in`);
      const form = {
        ...formFields(page.text, 'sign-in'),
        'user[login]': admin.username,
        'user[password]': admin.password,
      };
      return { path: '/users/sign_in', cookie: cookieOf(page), form };
    },
    consent: async () => {
      const cookie = await session();
      const q = new URLSearchParams({
        client_id: confidential.uid,
        redirect_uri: confidential.redirectUris[0],
        response_type: 'code',
        scope: 'api',
      });
      const page = await send(`${OWN}/oauth/authorize?${q}`, { cookie });
      return { path: '/oauth/authorize', cookie, form: { ...formFields(page.text, 'consent'), decision: 'deny' } };
    },
    device: async () => {
      const cookie = await session();
      const started = await send(`${OWN}/oauth/authorize_device`, { form: { client_id: app(sim, 'public').uid } });
      const { user_code } = JSON.parse(started.text) as { user_code: string };
      const page = await send(`${OWN}/oauth/device`, { cookie });
      return {
        path: '/oauth/device',
        cookie,
        form: { ...formFields(page.text, 'device'), user_code, decision: 'deny' },
      };
    },
    applications: async () => {
      const cookie = await session();
      const page = await send(`${OWN}/user_settings/applications`, { cookie });
      const form = {
        ...formFields(page.text, 'new-application'),
        'application[name]': 'posted',
        'application[redirect_uri]': 'https://client.test/cb',
        'application[scopes][]': 'api',
      };
      return { path: '/user_settings/applications', cookie, form };
    },
  };

  const refused: [string, string, Record<string, string>][] = [
    ['Origin of another site', OWN, { origin: 'http://127.0.0.2:3000' }],
    ['Origin of another port (same site)', OWN, { origin: 'http://127.0.0.1:4000', 'sec-fetch-site': 'same-site' }],
    ['an opaque Origin', OWN, { origin: 'null' }],
    ['an opaque Origin, cross-site (a sandboxed frame)', OWN, { origin: 'null', 'sec-fetch-site': 'cross-site' }],
    ['an opaque Origin, same-site', OWN, { origin: 'null', 'sec-fetch-site': 'same-site' }],
    ['Sec-Fetch-Site: cross-site', OWN, { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site', OWN, { 'sec-fetch-site': 'same-site' }],
    // DNS rebinding: the page's own name, same-origin to the browser, but not ours.
    [
      'a rebound Host',
      'http://attacker.test:3000',
      { origin: 'http://attacker.test:3000', 'sec-fetch-site': 'same-origin' },
    ],
    ['a rebound Host, Origin null', 'http://attacker.test:3000', { origin: 'null', 'sec-fetch-site': 'same-origin' }],
  ];
  const served: [string, Record<string, string>][] = [
    ['no browser header (the form driver, curl)', {}],
    ['its own Origin, same-origin', { origin: OWN, 'sec-fetch-site': 'same-origin' }],
    ['its own Origin', { origin: OWN }],
    // Chromium's post from our page, whose Referrer-Policy is no-referrer.
    ['Origin null, same-origin', { origin: 'null', 'sec-fetch-site': 'same-origin' }],
  ];

  it.each(
    Object.keys(forms).flatMap((name) =>
      refused.map(([label, base, headers]) => [name, label, base, headers] as const),
    ),
  )('%s form, %s: 403, an HTML page of one line, nothing done', async (name, _label, base, headers) => {
    const { path, cookie, form } = await forms[name]();
    const sessions = sim.store.sessions.size;
    const apps = sim.store.applications.size;
    const res = await send(`${base}${path}`, { cookie, headers, form });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.text).toMatch(/<p id="message">[^<\n]+<\/p>/);
    expect([sim.store.sessions.size, sim.store.applications.size]).toEqual([sessions, apps]);
  });

  it.each(Object.keys(forms).flatMap((name) => served.map(([label, headers]) => [name, label, headers] as const)))(
    '%s form, %s: served',
    async (name, _label, headers) => {
      const { path, cookie, form } = await forms[name]();
      const res = await send(`${OWN}${path}`, { cookie, headers, form });
      expect(res.status).toBeLessThan(400);
    },
  );
});
