/**
 * One URL per request (issue 20, item 2): a Host that is not `host[:port]` is 400, an
 * absolute-form target is held to the same rule, and routing and the body limit read the same
 * parsed path. Raw sockets, since no HTTP client sends such requests.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../../simulator/core.js';
import type { IncomingMessage } from 'node:http';
import { cachedUrlCount, MAX_HEAD_BYTES, requestTarget, serve, type Served } from '../../simulator/adapters/node.js';

interface Answer {
  status: number;
  body: string;
}

/**
 * Send a raw request (head lines, then `bodyBytes` of 'a' if any) and read one answer by its
 * Content-Length. The connection stays open (keep-alive) so an answer sent before the body was
 * read is not lost to a reset.
 */
function exchange(port: number, lines: string[], bodyBytes = 0): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let raw = Buffer.alloc(0);
    const timer = setTimeout(() => fail(new Error('no answer within 15 s')), 15_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    socket.on('error', (e) => fail(new Error(`connection error instead of an answer: ${e.message}`)));
    socket.on('data', (chunk) => {
      raw = Buffer.concat([raw, chunk]);
      const text = raw.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = text.slice(0, end);
      let body: string;
      if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
        if (!text.endsWith('\r\n0\r\n\r\n')) return;
        body = dechunk(raw.subarray(end + 4).toString('utf8'));
      } else {
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (raw.length < end + 4 + length) return;
        body = raw.subarray(end + 4, end + 4 + length).toString('utf8');
      }
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(text.slice(9, 12)), body });
    });
    const head = [...lines, ...(bodyBytes ? [`Content-Length: ${bodyBytes}`] : []), '', ''].join('\r\n');
    socket.write(head);
    if (bodyBytes) socket.write(Buffer.alloc(bodyBytes, 'a'));
  });
}

/** A chunked body's data (the answers here are small and ASCII). */
function dechunk(text: string): string {
  let body = '';
  for (let at = 0; ;) {
    const eol = text.indexOf('\r\n', at);
    const size = parseInt(text.slice(at, eol), 16);
    if (!size) return body;
    body += text.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

const BAD_REQUEST = { error: '400 Bad Request' };

describe('one URL per request', () => {
  let served: Served;
  let port: number;
  beforeAll(async () => {
    served = await serve(createSimulator());
    port = Number(new URL(served.url).port);
  });
  afterAll(() => served.close());

  const get = (target: string, host: string | string[]) =>
    exchange(port, [`GET ${target} HTTP/1.1`, ...(Array.isArray(host) ? host : [host]).map((h) => `Host: ${h}`)]);

  it('a Host carrying a path does not reach the control API: 400, no config', async () => {
    const res = await get('/users/sign_in', `127.0.0.1:${port}/-/simulator/config?`);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual(BAD_REQUEST);
  });

  it.each([
    (p: number) => `127.0.0.1:${p}/x`,
    (p: number) => `127.0.0.1:${p}?x`,
    (p: number) => `127.0.0.1:${p}#x`,
    (p: number) => `user@127.0.0.1:${p}`,
    (p: number) => `127.0.0.1:${p}\\x`,
    (p: number) => `[::1:${p}`,
    (p: number) => `127.0.0.1:${p}x`,
    () => '',
  ])('Host %s is 400', async (host) => {
    const res = await get('/users/sign_in', host(port));
    expect(res.status, host(port)).toBe(400);
    expect(JSON.parse(res.body)).toEqual(BAD_REQUEST);
  });

  it('a 70 KB request target gets the simulator 414, not the 431 of Node; a head past 256 KiB still gets 431 (issue 20)', async () => {
    const long = await get(`/api/v4/projects?search=${'a'.repeat(70 * 1024)}`, `127.0.0.1:${port}`);
    expect(long.status).toBe(414);
    expect(JSON.parse(long.body)).toEqual({ message: expect.stringMatching(/^414 Request-URI Too Large/) });
    const pad = 'a'.repeat(MAX_HEAD_BYTES + 1024);
    const huge = await exchange(port, ['GET /users/sign_in HTTP/1.1', `Host: 127.0.0.1:${port}`, `X-Pad: ${pad}`]);
    expect(huge.status).toBe(431);
  });

  it('two Host headers are 400', async () => {
    expect((await get('/users/sign_in', [`127.0.0.1:${port}`, `127.0.0.1:${port}`])).status).toBe(400);
  });

  it('host[:port] as names, IPv4 and bracketed IPv6 literals, and no Host (HTTP/1.0 style) are served as before', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`])
      expect((await get('/-/simulator/config', host)).status, host).toBe(200);
    expect((await get('/users/sign_in', `idp_1.example.test:${port}`)).status).toBe(200);
    expect((await get('/users/sign_in', 'localhost')).status).toBe(200);
    expect((await exchange(port, ['GET /users/sign_in HTTP/1.0'])).status).toBe(200);
  });

  it('an absolute-form target is held to the same rule, and its authority is the one routed', async () => {
    const own = `127.0.0.1:${port}`;
    expect((await get(`http://${own}/-/simulator/config`, own)).status).toBe(200);
    // The control API judges the target's authority (the Host beside it is ignored, RFC 9112 §3.2.2).
    expect((await get(`http://evil.example:${port}/-/simulator/config`, own)).status).toBe(403);
    expect((await get(`http://${own}?x`, own)).status).not.toBe(400);
    for (const target of [
      `http://user@${own}/-/simulator/config`,
      `https://${own}/-/simulator/config`,
      `http://${own}:9/-/simulator/config`,
    ]) {
      const res = await get(target, own);
      expect(res.status, target).toBe(400);
      expect(JSON.parse(res.body)).toEqual(BAD_REQUEST);
    }
    // A bad Host beside an absolute-form target is still a bad request.
    expect((await get(`http://${own}/users/sign_in`, `${own}/-/simulator/config?`)).status).toBe(400);
  });

  it('a big body to a Git path with a Host naming /oauth/token is 400, never parsed by /oauth/token', async () => {
    const res = await exchange(
      port,
      ['POST /group/project.git/git-receive-pack HTTP/1.1', `Host: 127.0.0.1:${port}/oauth/token?`],
      2 * 1024 * 1024,
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual(BAD_REQUEST);
  });
});

describe('the parsed URLs kept for repeated targets', () => {
  const request = (host: string, url: string) =>
    ({ headers: { host }, url, rawHeaders: ['Host', host] }) as unknown as IncomingMessage;

  it('a repeated target is parsed once; another Host is its own URL; the cache is bounded in entries and key length', () => {
    const first = requestTarget(request('127.0.0.1:1', '/oauth/token'));
    expect(requestTarget(request('127.0.0.1:1', '/oauth/token'))).toBe(first);
    const other = requestTarget(request('127.0.0.2:1', '/oauth/token'));
    expect(other).not.toBe(first);
    expect(other?.origin).toBe('http://127.0.0.2:1');
    expect(first?.origin).toBe('http://127.0.0.1:1');

    for (let i = 0; i < 1500; i++) {
      const url = requestTarget(request('127.0.0.1:1', `/api/v4/projects?page=${i}`));
      expect(url?.searchParams.get('page')).toBe(String(i));
      expect(cachedUrlCount()).toBeLessThanOrEqual(512);
    }
    const long = `/api/v4/projects?search=${'a'.repeat(300)}`;
    const before = cachedUrlCount();
    const parsed = requestTarget(request('127.0.0.1:1', long));
    expect(parsed?.searchParams.get('search')).toHaveLength(300);
    expect(cachedUrlCount()).toBe(before);
    expect(requestTarget(request('127.0.0.1:1', long))).not.toBe(parsed);
  });
});
