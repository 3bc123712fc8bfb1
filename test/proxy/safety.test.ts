/**
 * The proxy under a target that does not answer and clients that do not finish: a silent target
 * gets its client a 504 with a short body after --timeout (or the connection cut mid-answer),
 * and the copies kept for judging share one budget, so 200 concurrent slow clients hold at most
 * that budget (memory sampled after a forced collection; no timing is asserted).
 */
import { request, type ClientRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { KEPT_BODIES_BUDGET, startProxy, type RunningProxy } from '../../suites/proxy/server.js';
import { listen, type Loopback } from '../suites/loopback.js';

let origin: Loopback | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await origin?.close();
  proxy = origin = undefined;
});

function get(url: string, host?: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; body: string } | { error: string }>((resolve) => {
    const req = request(url, { method, agent: false, headers: { ...(host ? { host } : {}), ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end();
  });
}

describe('a target that does not answer', () => {
  it('gets its client a 504 with a one-line body after the timeout', async () => {
    origin = await listen((req) => req.resume());
    proxy = await startProxy({ target: origin.url, timeoutMs: 300, onExchange: () => undefined });
    const answer = await get(`${proxy.url}/oauth/token`);
    expect(answer).toEqual({
      status: 504,
      body: 'idp-conformance proxy: the target did not answer within 300 ms\n',
    });
  });

  it('that stalls mid-answer has its client connection cut, not held', async () => {
    origin = await listen((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
    });
    proxy = await startProxy({ target: origin.url, timeoutMs: 300, onExchange: () => undefined });
    const answer = await get(`${proxy.url}/api/v4/user`);
    expect(answer).toHaveProperty('error');
  });
});

describe('the proxy stopped with a request under way', () => {
  it('does not blame the target for the connection it cut itself', async () => {
    let arrived!: () => void;
    const under = new Promise<void>((r) => (arrived = r));
    origin = await listen((req) => {
      req.resume();
      arrived();
    });
    const unanswered: string[] = [];
    let left = 0;
    proxy = await startProxy({
      target: origin.url,
      timeoutMs: 60_000,
      onExchange: () => undefined,
      onUnanswered: (reason) => unanswered.push(reason),
      onClientLeft: () => left++,
    });
    const answer = get(`${proxy.url}/oauth/token`, undefined, {}, 'POST');
    await under;
    await proxy.close();
    proxy = undefined;
    // The client sees its connection end; the upstream request's error comes after.
    expect(await answer).toHaveProperty('error');
    await new Promise((r) => setTimeout(r, 50));
    expect(unanswered).toEqual([]);
    expect(left).toBe(0);
  });
});

describe('many concurrent slow clients', () => {
  it('hold no more body copies than the shared budget', async () => {
    const CLIENTS = 200;
    const SENT = 400 * 1024;
    const maxBodyBytes = 512 * 1024;
    let received = 0;
    let allIn!: () => void;
    const arrived = new Promise<void>((r) => (allIn = r));
    // The origin reads every byte and never answers: each client stays under way.
    origin = await listen((req) =>
      req.on('data', (c: Buffer) => {
        received += c.length;
        if (received === CLIENTS * SENT) allIn();
      }),
    );
    proxy = await startProxy({ target: origin.url, maxBodyBytes, timeoutMs: 120_000, onExchange: () => undefined });
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().arrayBuffers;
    // One buffer written by every client: the clients' side costs no copies of its own.
    const part = Buffer.alloc(SENT, 0x61);
    const clients: ClientRequest[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const req = request(`${proxy.url}/api/v4/projects`, {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/octet-stream', 'content-length': String(maxBodyBytes) },
      });
      req.on('error', () => undefined);
      // Less than announced: the body never ends, as a slow client's would not yet.
      req.write(part);
      clients.push(req);
    }
    try {
      await arrived;
      // Two collections a turn apart: buffers released by the last reads' callbacks go too.
      gc();
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      const held = process.memoryUsage().arrayBuffers - before;
      const budget = KEPT_BODIES_BUDGET * maxBodyBytes;
      console.log(
        `${CLIENTS} slow clients: ${(held / 2 ** 20).toFixed(1)} MiB of buffers held (budget ${budget / 2 ** 20} MiB)`,
      );
      // Without the budget every client's 400 KiB is kept: 80 MB.
      expect(held).toBeLessThan(budget + 16 * 1024 * 1024);
      expect(proxy.keptBytes()).toBeLessThanOrEqual(budget);
    } finally {
      for (const c of clients) c.destroy();
    }
  });
});

describe('many client connections', () => {
  /** A connection held open, and a promise of whether the proxy closed it unasked. */
  async function open(url: string): Promise<{ socket: Socket; closed: Promise<boolean> }> {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise<boolean>((resolve) => {
      socket.once('close', () => resolve(true));
      setTimeout(() => resolve(false), 500).unref();
    });
    return { socket, closed };
  }

  it('holds at most --max-connections at once: a further one is closed on arrival, and served once one ends', async () => {
    origin = await listen((_req, res) => res.end('{}'));
    proxy = await startProxy({ target: origin.url, maxConnections: 3, onExchange: () => undefined });
    const held = await Promise.all([1, 2, 3].map(() => open(proxy!.url)));
    const extra = await open(proxy.url);
    expect(await extra.closed).toBe(true);
    for (const { closed } of held.slice(1)) expect(await closed).toBe(false);
    held[0].socket.destroy();
    await held[0].closed;
    // The proxy counts the connection gone once its own side of it has closed: a few turns later.
    let answer = await get(`${proxy.url}/api/v4/version`);
    for (let tries = 0; 'error' in answer && tries < 20; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await get(`${proxy.url}/api/v4/version`);
    }
    expect(answer).toEqual({ status: 200, body: '{}' });
    for (const { socket } of held) socket.destroy();
  });
});

describe('clients that never finish a request', () => {
  it('are answered 408 and closed at the limit, so idle ones cannot hold every connection; the next client is served', async () => {
    origin = await listen((_req, res) => res.end('{}'));
    proxy = await startProxy({
      target: origin.url,
      maxConnections: 3,
      clientTimeouts: { headersMs: 300, requestMs: 600, checkEveryMs: 50 },
      onExchange: () => undefined,
    });
    const { hostname, port } = new URL(proxy.url);
    // Two send nothing, one a head it never ends: every slot taken.
    const starts = ['', '', 'GET /api/v4/user HTTP/1.1\r\n'];
    const answers = starts.map(
      (start) =>
        new Promise<string>((resolve) => {
          let answer = '';
          const socket = connect(Number(port), hostname, () => socket.write(start));
          socket.on('data', (chunk) => (answer += String(chunk)));
          socket.on('error', () => undefined);
          socket.on('close', () => resolve(answer.split('\r\n')[0]));
        }),
    );
    // Each is closed (one that sent nothing with a 408 too, or without a word).
    expect((await Promise.all(answers))[2]).toBe('HTTP/1.1 408 Request Timeout');
    expect(await get(`${proxy.url}/api/v4/version`)).toEqual({ status: 200, body: '{}' });
  });
});

describe('a page on a name of its own that resolves to the proxy (DNS rebinding)', () => {
  it("is refused, sending nothing on and judging nothing; the proxy's own names and --allow-host pass", async () => {
    const reached: string[] = [];
    origin = await listen((req, res) => {
      reached.push(req.headers.host ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const judged: string[] = [];
    proxy = await startProxy({
      target: origin.url,
      allowHosts: ['idp.test'],
      onExchange: (exchange) => judged.push(exchange.target),
    });
    const { port } = new URL(proxy.url);
    for (const host of [`rebound.test:${port}`, `127.0.0.1.rebound.test:${port}`, `localhost.:${port}`])
      expect(await get(`${proxy.url}/api/v4/user`, host)).toEqual({
        status: 403,
        body: "idp-conformance proxy: the Host header must name the proxy's own address (or one given with --allow-host)\n",
      });
    expect(reached).toEqual([]);
    for (const host of [`127.0.0.1:${port}`, `LOCALHOST:${port}`, `idp.test:${port}`])
      expect(await get(`${proxy.url}/api/v4/user`, host)).toEqual({ status: 200, body: '{}' });
    expect(reached).toHaveLength(3);
    await new Promise((resolve) => setImmediate(resolve));
    expect(judged).toHaveLength(3);
  });
});

describe('a page of another site that sends through the proxy (a form post, a no-cors fetch, an image)', () => {
  it('is refused, sending nothing on and judging nothing; loopback origins, --allow-origin, top-level links and non-browser clients pass', async () => {
    const reached: string[] = [];
    origin = await listen((req, res) => {
      reached.push(String(req.headers.origin ?? req.headers['sec-fetch-site'] ?? 'no browser'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const judged: string[] = [];
    proxy = await startProxy({
      target: origin.url,
      allowOrigins: ['https://app.example'],
      onExchange: (exchange) => judged.push(exchange.target),
    });
    const site = { 'sec-fetch-site': 'cross-site' };
    const visit = { ...site, 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    const proxyPort = Number(new URL(proxy.url).port);
    const refused: Record<string, string>[] = [
      { ...site, origin: 'https://evil.example' },
      { ...site, origin: 'null' },
      { ...site, origin: 'https://app.example.evil.example' },
      { 'sec-fetch-site': 'same-site', origin: 'https://evil.example' },
      site,
      // A frame's navigation is unseen: only the top-level document's is a visit.
      { ...site, 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe' },
      // Speculation rules of any site: Chromium sends their prefetch and prerender as `none`, also
      // a same-origin one; only the Referer tells (none, another site's, or another port's).
      ...['prefetch', 'prefetch;prerender'].flatMap((purpose) =>
        [{}, { referer: 'https://evil.example/' }, { referer: `http://127.0.0.1:${proxyPort + 1}/` }].map(
          (referer) => ({
            'sec-fetch-site': 'none',
            'sec-fetch-mode': 'navigate',
            'sec-fetch-dest': 'document',
            'sec-purpose': purpose,
            ...referer,
          }),
        ),
      ),
      // A top-level visit from another site's page (a window it opened, a GET form into a new
      // window): its Referer is that page's, or none when the page withholds it.
      visit,
      { ...visit, referer: 'https://evil.example/start' },
      { ...visit, referer: 'null' },
      { ...visit, referer: 'https://app.example.evil.example/' },
    ];
    // A form posted in the top-level window: a navigation, but it sends a body of the page's making.
    const postedForm = {
      ...site,
      'sec-fetch-mode': 'navigate',
      'sec-fetch-dest': 'document',
      origin: 'https://evil.example',
    };
    expect(await get(`${proxy.url}/api/v4/user`, undefined, postedForm, 'POST')).toMatchObject({ status: 403 });
    // Browsers never navigate with HEAD: a page's HEAD is no visit, whatever its Referer.
    expect(
      await get(`${proxy.url}/api/v4/user`, undefined, { ...visit, referer: 'http://localhost:3000/' }, 'HEAD'),
    ).toMatchObject({ status: 403 });
    for (const headers of refused)
      expect(await get(`${proxy.url}/api/v4/user`, undefined, headers), JSON.stringify(headers)).toMatchObject({
        status: 403,
        body: expect.stringMatching(/^idp-conformance proxy: .*(another site|unless a page the proxy served asked)/),
      });
    // The 403 says what it saw of the Referer: none (and the opt-in), or its origin, bounded.
    const body = async (headers: Record<string, string>) =>
      ((await get(`${proxy!.url}/api/v4/user`, undefined, headers)) as { body: string }).body;
    expect(await body(visit)).toMatch(/\(Referer: none\).*--allow-no-referer/);
    expect(await body({ ...visit, referer: 'https://evil.example/start?code=x' })).toContain(
      '(Referer: https://evil.example)',
    );
    const long = `https://${'a'.repeat(200)}.example`;
    const seenLong = await body({ ...visit, referer: `${long}/` });
    expect(seenLong).toMatch(/\(Referer: https:\/\/a+…\)/);
    expect(seenLong).not.toContain(long);
    expect(reached).toEqual([]);
    const passed: Record<string, string>[] = [
      {},
      // Not a browser: the harness's own CORS checks send an Origin of their making through it.
      { origin: 'https://evil.example' },
      { ...site, origin: 'http://localhost:3000' },
      { ...site, origin: 'http://127.0.0.1:5173' },
      { ...site, origin: 'http://[::1]:8080' },
      { ...site, origin: 'http://app.localhost:3000' },
      { ...site, origin: 'https://APP.example' },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
      // The proxied provider's own pages prefetching its pages (Chromium says `none`), by either name.
      { 'sec-fetch-site': 'none', 'sec-purpose': 'prefetch', referer: `${proxy.url}/oauth/authorize?x=1` },
      {
        'sec-fetch-site': 'none',
        'sec-purpose': 'prefetch;prerender',
        referer: `http://LOCALHOST:${proxyPort}/`,
        host: `localhost:${proxyPort}`,
      },
      // A link followed or a redirect in the window (the team's application on another port or
      // name, an --allow-origin): no Origin, the page's Referer.
      { ...visit, referer: 'http://127.0.0.1:5173/login' },
      { ...visit, referer: 'http://localhost:3000/' },
      { ...visit, referer: 'https://app.example/' },
      // A loopback page that withholds its Referer (helmet's no-referrer) visiting the bound literal
      // or `localhost` is same-site: an IP literal's site is the IP itself, so that page is loopback.
      { ...visit, 'sec-fetch-site': 'same-site' },
      { ...visit, 'sec-fetch-site': 'same-site', host: `localhost:${proxyPort}` },
    ];
    for (const headers of passed)
      expect(await get(`${proxy.url}/api/v4/user`, undefined, headers), JSON.stringify(headers)).toEqual({
        status: 200,
        body: '{}',
      });
    expect(reached).toHaveLength(passed.length);
    await new Promise((resolve) => setImmediate(resolve));
    expect(judged).toHaveLength(passed.length);
  });
});

describe('a top-level visit with no Referer (an https page never sends one to the http proxy)', () => {
  it('is refused by default, also same-site to an --allow-host name; --allow-no-referer lets it (and only it) through', async () => {
    const reached: string[] = [];
    origin = await listen((req, res) => {
      reached.push(String(req.headers['sec-fetch-site']));
      res.end('{}');
    });
    const visit = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    proxy = await startProxy({ target: origin.url, allowHosts: ['proxy.dev.example'], onExchange: () => undefined });
    for (const headers of [visit, { ...visit, 'sec-fetch-site': 'same-site', host: 'proxy.dev.example' }])
      expect(await get(`${proxy.url}/`, undefined, headers), JSON.stringify(headers)).toMatchObject({
        status: 403,
        body: expect.stringContaining('--allow-no-referer'),
      });
    expect(reached).toEqual([]);
    await proxy.close();
    proxy = await startProxy({ target: origin.url, allowNoReferer: true, onExchange: () => undefined });
    expect(await get(`${proxy.url}/`, undefined, visit)).toMatchObject({ status: 200 });
    // The opt-in trusts a missing Referer only: another site's Referer, or a request that is no visit, stays refused.
    for (const headers of [
      { ...visit, referer: 'https://evil.example/' },
      { ...visit, 'sec-fetch-dest': 'iframe' },
      { 'sec-fetch-site': 'cross-site' },
    ])
      expect(await get(`${proxy.url}/`, undefined, headers), JSON.stringify(headers)).toMatchObject({ status: 403 });
    expect(reached).toEqual(['cross-site']);
  });
});
