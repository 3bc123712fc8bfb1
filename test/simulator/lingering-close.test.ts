/**
 * No connection resets under hostile input (issue 20): when the simulator answers before it has
 * read the whole request (413, a parser's 400 or 431, CONNECT's 405), it closes like nginx's
 * lingering close, so a client still sending gets its answer and a clean end, never ECONNRESET
 * or EPIPE. Loopback only, a bounded number of requests, each a client that streams its body
 * while the answer comes back (as Node's http client and fetch do).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limits } from '../../spec/index.js';
import { createSimulator } from '../../simulator/core.js';
import { MAX_HEAD_BYTES, serve, type Served } from '../../simulator/adapters/node.js';

interface Outcome {
  status: number | null;
  /** a socket error the client saw (ECONNRESET, EPIPE), answered or not */
  error: string | null;
}

/**
 * Send `head` and the first `upfront` bytes of `body`; once the answer starts to arrive, wait a moment (the
 * server has closed by then if it does not linger) and send the rest, then end. Read until the
 * server closes.
 */
function send(port: number, head: string, body: Buffer, upfront = 64 * 1024): Promise<Outcome> {
  return new Promise((resolve) => {
    // Half-open allowed: a client keeps sending its body after the server's FIN, as a client does
    // whose writes run ahead of its reads.
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    const chunks: Buffer[] = [];
    let error: string | null = null;
    const timer = setTimeout(() => socket.destroy(new Error('no end within 5 s')), 5_000);
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    socket.on('close', () => {
      clearTimeout(timer);
      const status = /^HTTP\/1\.[01] (\d{3}) /.exec(Buffer.concat(chunks).toString('latin1'));
      resolve({ status: status ? Number(status[1]) : null, error });
    });
    const CHUNK = 64 * 1024;
    let offset = 0;
    const rest = () => {
      while (offset < body.length && !socket.destroyed) {
        const piece = body.subarray(offset, (offset += CHUNK));
        if (!socket.write(piece)) return void socket.once('drain', rest);
      }
      if (!socket.destroyed) socket.end();
    };
    socket.on('data', (c: Buffer) => {
      if (!chunks.length) setTimeout(rest, 30);
      chunks.push(c);
    });
    socket.write(head, 'latin1');
    socket.write(body.subarray(0, (offset = upfront)));
  });
}

const MB = Buffer.alloc(1024 * 1024, 'a');

/** Hostile requests whose answer comes before their body was read, with the answer each gets. */
function cases(port: number): { name: string; head: string; body: Buffer; status: number; upfront?: number }[] {
  const host = `Host: 127.0.0.1:${port}`;
  const over = limits().requestBodyMaxBytes + 1;
  return [
    {
      name: '1 MB declared on the token endpoint (413 before reading)',
      head: `POST /oauth/token HTTP/1.1\r\n${host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${MB.length}\r\n\r\n`,
      body: MB,
      status: 413,
    },
    {
      name: '1 MB on a route that takes no body, keep-alive (413)',
      head: `GET /api/v4/version HTTP/1.1\r\n${host}\r\nContent-Length: ${MB.length}\r\n\r\n`,
      body: MB,
      status: 413,
    },
    {
      name: '1 MB chunked, over the limit while it arrives (413 after reading some)',
      head: `POST /api/v4/projects/1/issues HTTP/1.1\r\n${host}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`,
      body: Buffer.concat([
        Buffer.from(`${over.toString(16)}\r\n`),
        Buffer.alloc(over, 'a'),
        Buffer.from('\r\n0\r\n\r\n'),
      ]),
      status: 413,
      upfront: over + 64,
    },
    {
      name: 'a path past MAX_HEAD_BYTES (Node refuses the header block: 431)',
      head: `POST /${'p'.repeat(MAX_HEAD_BYTES + 1024)} HTTP/1.1\r\n${host}\r\nContent-Length: ${MB.length}\r\n\r\n`,
      body: MB,
      status: 431,
    },
    {
      name: 'a broken header line (400 from the parser) followed by a body',
      head: `POST /oauth/token HTTP/1.1\r\n${host}\r\nBad Header\r\nContent-Length: ${MB.length}\r\n\r\n`,
      body: MB,
      status: 400,
    },
    {
      name: 'CONNECT with a body (405)',
      head: `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n${host}\r\nContent-Length: ${MB.length}\r\n\r\n`,
      body: MB,
      status: 405,
    },
  ];
}

describe('closing after an early answer (lingering close)', () => {
  let served: Served;
  let port: number;
  beforeAll(async () => {
    served = await serve(createSimulator());
    port = Number(new URL(served.url).port);
  });
  afterAll(() => served.close());

  it('every hostile request gets its answer and no reset (20 rounds of each, 4 at a time)', async () => {
    const outcomes: (Outcome & { name: string; expected: number })[] = [];
    for (let round = 0; round < 20; round++) {
      for (const batch of [cases(port).slice(0, 3), cases(port).slice(3)]) {
        const answered = await Promise.all(batch.map((c) => send(port, c.head, c.body, c.upfront)));
        answered.forEach((o, i) => outcomes.push({ ...o, name: batch[i].name, expected: batch[i].status }));
      }
    }
    const bad = outcomes.filter((o) => o.error !== null || o.status !== o.expected);
    expect(bad.map((o) => `${o.name}: ${o.status} ${o.error ?? ''}`)).toEqual([]);
    expect(outcomes).toHaveLength(120);
  }, 120_000);

  it('the next request on a fresh connection is served as usual', async () => {
    const res = await fetch(`${served.url}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'x' }),
    });
    expect(res.status).toBe(400);
  });
});
