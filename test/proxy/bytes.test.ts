/**
 * The proxy never changes the traffic: the same requests sent straight to a loopback origin and
 * through the proxy arrive there identical (method, raw target, headers in order and case, body)
 * and come back identical (status, reason, headers, body), hop-by-hop headers aside.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endToEnd, startProxy, type RunningProxy } from '../../suites/proxy/server.js';
import type { Observed } from '../../suites/proxy/judge.js';

interface Seen {
  method: string;
  url: string;
  headers: string[];
  body: string;
}

const NOT_UTF8 = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0xe9, 0x0a]);
let origin: ReturnType<typeof createServer>;
let originUrl: string;
let proxy: RunningProxy;
const seen: Seen[] = [];
const observed: Observed[] = [];
/** The Host values the cases send, which the proxy answers as a client names it (see safety.test.ts). */
const HOSTS = ['h', 'example.test', 'client.test'];

function answer(req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    seen.push({ method: req.method!, url: req.url!, headers: endToEnd(req.rawHeaders), body: body.toString('hex') });
    res.sendDate = false;
    // Interim answers before the final one (RFC 8297), as a CDN or the provider's front sends them.
    if (req.url === '/early-hints') {
      res.writeEarlyHints({ link: '</app.css>; rel=preload; as=style' });
      // Names every object has are fields like any other (the proxy once merged Object's own members in).
      res.writeEarlyHints({
        link: '</app.js>; rel=preload; as=script',
        'x-hint': 'second',
        constructor: 'c',
        toString: 't',
      });
    }
    const reply = Buffer.concat([NOT_UTF8, body]);
    // Odd but legal: a reason phrase of our own, repeated and mixed-case headers, a binary body.
    res.writeHead(418, 'Short And Stout', [
      'Content-Type',
      'application/octet-stream',
      'Set-Cookie',
      'a=1; Path=/',
      'set-cookie',
      'b=2',
      'X-Odd',
      ' spaced ',
      'Content-Length',
      String(reply.length),
    ]);
    res.end(reply);
  });
}

/** Send one request to `base` with exactly these raw headers; resolve with what came back. */
function send(base: string, method: string, path: string, headers: string[], body?: Buffer, chunked = false) {
  const url = new URL(base);
  return new Promise<{ status: number; reason: string; headers: string[]; body: string; interim: string[] }>(
    (resolve, reject) => {
      // The 1xx answers before the final one, each as its status and raw headers.
      const interim: string[] = [];
      const req = request(
        { hostname: url.hostname, port: url.port, method, path, headers, setHost: false, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode!,
              reason: res.statusMessage!,
              headers: endToEnd(res.rawHeaders),
              body: Buffer.concat(chunks).toString('hex'),
              interim,
            }),
          );
        },
      );
      req.on('information', (info) => interim.push(`${info.statusCode} ${info.rawHeaders.join('|')}`));
      req.on('error', reject);
      if (body && chunked) {
        req.write(body.subarray(0, 3));
        req.end(body.subarray(3));
      } else req.end(body);
    },
  );
}

beforeAll(async () => {
  origin = createServer({ maxHeaderSize: 64 * 1024 }, answer);
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  proxy = await startProxy({ target: originUrl, allowHosts: HOSTS, onExchange: (e) => observed.push(e) });
});

afterAll(async () => {
  await proxy.close();
  origin.closeAllConnections();
  await new Promise<void>((r) => origin.close(() => r()));
});

const CASES: { name: string; method: string; path: string; headers: string[]; body?: Buffer; chunked?: boolean }[] = [
  {
    name: 'encoded slash, dot segments, raw plus, bad escape',
    method: 'GET',
    path: '/api/v4/projects/a%2Fb/../%2e%2E/x?q=%zz&r=+&s=%2F#',
    headers: ['Host', 'example.test:8080', 'X-Case', 'Mixed', 'x-case', 'lower', 'Accept', '*/*'],
  },
  {
    name: 'a 20 KiB header, above the default limit of Node',
    method: 'GET',
    path: '/api/v4/user',
    headers: ['Host', 'h', 'X-Big', 'b'.repeat(20 * 1024)],
  },
  {
    name: 'double slash and a non-ASCII escape',
    method: 'DELETE',
    path: '//double//slash/%E9%00',
    headers: ['Host', 'h', 'Authorization', 'Bearer not-a-real-token'],
  },
  {
    name: 'non-UTF-8 form body with a length',
    method: 'POST',
    path: '/oauth/token',
    headers: [
      'Host',
      'h',
      'Content-Type',
      'application/x-www-form-urlencoded',
      'Content-Length',
      String(NOT_UTF8.length),
    ],
    body: NOT_UTF8,
  },
  {
    name: '103 Early Hints before the answer, passed on in order',
    method: 'GET',
    path: '/early-hints',
    headers: ['Host', 'h'],
  },
  {
    name: 'chunked body',
    method: 'PUT',
    path: '/api/v4/x',
    headers: ['Host', 'h', 'Content-Type', 'application/octet-stream'],
    body: NOT_UTF8,
    chunked: true,
  },
];

describe('the proxy forwards byte for byte', () => {
  for (const c of CASES)
    it(c.name, async () => {
      seen.length = 0;
      const direct = await send(originUrl, c.method, c.path, c.headers, c.body, c.chunked);
      const through = await send(proxy.url, c.method, c.path, c.headers, c.body, c.chunked);
      expect(seen).toHaveLength(2);
      expect(seen[1]).toEqual(seen[0]);
      expect(through).toEqual(direct);
      expect(direct.status).toBe(418);
    });

  it('--rewrite-host changes the Host value and nothing else', async () => {
    const rewriting = await startProxy({
      target: originUrl,
      rewriteHost: true,
      allowHosts: HOSTS,
      onExchange: () => undefined,
    });
    try {
      seen.length = 0;
      const headers = ['X-Before', '1', 'Host', 'client.test', 'X-After', '2'];
      await send(rewriting.url, 'GET', '/a%2Fb', headers);
      expect(seen[0].url).toBe('/a%2Fb');
      expect(seen[0].headers).toEqual(['X-Before', '1', 'Host', new URL(originUrl).host, 'X-After', '2']);
    } finally {
      await rewriting.close();
    }
  });

  it('keeps a copy for judging only up to the cap, and forwards a longer body whole', async () => {
    const small = await startProxy({
      target: originUrl,
      maxBodyBytes: 4,
      allowHosts: HOSTS,
      onExchange: (e) => observed.push(e),
    });
    try {
      observed.length = 0;
      const body = Buffer.alloc(64 * 1024, 7);
      const direct = await send(originUrl, 'POST', '/big', ['Host', 'h', 'Content-Length', String(body.length)], body);
      const through = await send(small.url, 'POST', '/big', ['Host', 'h', 'Content-Length', String(body.length)], body);
      expect(through).toEqual(direct);
      await new Promise((r) => setImmediate(r));
      expect(observed).toHaveLength(1);
      expect(observed[0].requestBody).toBeUndefined();
      expect(observed[0].responseBody).toBeUndefined();
      expect(observed[0].target).toBe('/big');
    } finally {
      await small.close();
    }
  });
});
