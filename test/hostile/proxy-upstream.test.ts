/**
 * `proxy` in front of a hostile upstream: every client gets an answer, and the proxy lives on.
 * An upstream that trickles its headers a byte at a time, or sends 103 Early Hints without end
 * (Node reads and drops 1xx), kept the proxy's idle timer from firing, so the client was held for
 * ever; one whose status line Node reads but will not write (code 099, a control character in the
 * reason) threw in writeHead and ended the proxy process (an uncaught exception, no report); an
 * unasked 101 left the client waiting. Now the head must come within --timeout of the request
 * (504), and a status line that cannot be passed on, or a connection closed without an answer, is
 * a one-line 502; an answer that begins before the request is in is not cut off by that wait.
 * Raw sockets, since node:http will not write such answers.
 */
import { request } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from '../../suites/proxy/server.js';

const TIMEOUT_MS = 300;
/** Far past TIMEOUT_MS: a client still waiting then was held, not answered. */
const HELD_MS = 5_000;

/** What the upstream does, by the request's path. */
const BEHAVIOUR: Record<string, (s: Socket) => void> = {
  '/early-hints': (s) => {
    const t = setInterval(() => s.write('HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n'), 10);
    s.on('close', () => clearInterval(t));
  },
  '/trickle': (s) => {
    const head = 'HTTP/1.1 200 OK\r\nX-Slow: ';
    let i = 0;
    const t = setInterval(() => s.write(head[i++] ?? 'a'), 10);
    s.on('close', () => clearInterval(t));
  },
  '/status-099': (s) => s.write('HTTP/1.1 099 Odd\r\nContent-Length: 2\r\n\r\nok'),
  '/control-reason': (s) => s.write('HTTP/1.1 200 O\x01K\r\nContent-Length: 2\r\n\r\nok'),
  '/unasked-101': (s) => s.write('HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: x\r\n\r\n'),
  '/fine': (s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'),
  // An answer, then a second one on the idle connection; then an answer whose second one is held
  // back until the next request on that connection.
  '/stray': (s) => (s.write(own('/stray')), setTimeout(() => s.write(own('/stray-again')), 20)),
  '/held': (s) => (s.write(own('/held')), (held = s)),
  '/next': (s) => s.write(own('/next')),
  // Answers before the request's body is in, then sends its own body slowly (never idle for long).
  '/early': (s) => {
    s.write('HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n');
    let sent = 0;
    const t = setInterval(() => (s.write('x'), ++sent === 8 && clearInterval(t)), TIMEOUT_MS / 3);
    s.on('close', () => clearInterval(t));
  },
};

/** An answer naming the path it is for. */
const own = (path: string) => `HTTP/1.1 200 OK\r\nContent-Length: ${path.length}\r\n\r\n${path}`;
/** The connection of an answer held back: its second answer goes out as the next request comes in. */
let held: Socket | undefined;

let upstream: Server;
const sockets = new Set<Socket>();
let proxy: RunningProxy;
const judged: string[] = [];

beforeAll(async () => {
  upstream = createServer((s) => {
    s.on('error', () => undefined);
    sockets.add(s);
    // Every request on the connection (the proxy keeps connections alive); a body chunk is no request.
    s.on('data', (d: Buffer) => {
      const path = /^[A-Z]+ (\S+) HTTP\/1\.1\r\n/.exec(d.toString('latin1'))?.[1];
      if (!path) return;
      if (held?.writable) held.write(own('/held-back'));
      held = undefined;
      BEHAVIOUR[path](s);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  proxy = await startProxy({
    target: `http://127.0.0.1:${port}`,
    timeoutMs: TIMEOUT_MS,
    onExchange: (o) => judged.push(o.target),
  });
});

afterAll(async () => {
  await proxy.close();
  // The proxy's kept-alive connections upstream would hold close() for their idle time.
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

/** `body`: sent twice, the second time once the answer's head is in (the request ends after the answer began). */
function get(path: string, body?: string) {
  return new Promise<{ status: number; body: string } | { held: true } | { error: string }>((resolve) => {
    const headers = body ? { 'content-length': String(2 * body.length) } : {};
    const req = request(`${proxy.url}${path}`, { agent: false, method: body ? 'POST' : 'GET', headers }, (res) => {
      if (body) req.end(body);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.setTimeout(HELD_MS, () => {
      req.destroy();
      resolve({ held: true });
    });
    if (body) req.write(body);
    else req.end();
  });
}

describe('a hostile upstream behind the proxy', () => {
  it('that never finishes its head gets its client a 504 after --timeout', async () => {
    const answers = await Promise.all([get('/early-hints'), get('/trickle')]);
    for (const answer of answers)
      expect(answer).toEqual({
        status: 504,
        body: `idp-conformance proxy: the target did not answer within ${TIMEOUT_MS} ms\n`,
      });
  });

  it('whose status line cannot be passed on gets its client a one-line 502, and the proxy serves on', async () => {
    const [code, reason, upgrade] = await Promise.all([
      get('/status-099'),
      get('/control-reason'),
      get('/unasked-101'),
    ]);
    expect(code).toEqual({
      status: 502,
      body: "idp-conformance proxy: the target's status line cannot be passed on (ERR_HTTP_INVALID_STATUS_CODE)\n",
    });
    expect(reason).toEqual({
      status: 502,
      body: "idp-conformance proxy: the target's status line cannot be passed on (ERR_INVALID_CHAR)\n",
    });
    expect(upgrade).toEqual({
      status: 502,
      body: 'idp-conformance proxy: the target closed the connection without an answer\n',
    });
    expect(await get('/fine')).toEqual({ status: 200, body: 'ok' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(judged).toEqual(['/fine']);
  });

  it('that sends an answer nobody asked for between two is not kept connected: no client gets another one', async () => {
    expect(await get('/stray')).toEqual({ status: 200, body: '/stray' });
    await new Promise((resolve) => setTimeout(resolve, 80)); // the second answer comes while the connection waits
    expect(await get('/held')).toEqual({ status: 200, body: '/held' });
    // On a connection kept alive, the answer held back would be this client's.
    expect(await get('/next')).toEqual({ status: 200, body: '/next' });
  });

  it('that answers before the request is in is not cut off by the wait for its head', async () => {
    expect(await get('/early', 'half')).toEqual({ status: 200, body: 'xxxxxxxx' });
  });
});
