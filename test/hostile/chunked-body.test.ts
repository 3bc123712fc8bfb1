/**
 * --max-body bounds the bytes of an answer, but a body also costs what it is cut into: each chunk
 * of the chunked transfer coding arrives as a Buffer of its own, and the HTTP target kept every one
 * until the end. A target that answers in chunks of one byte (six bytes on the wire each) made a
 * 1 MB body hold 480 MB, an 8 MB one (within the default --max-body) 3.3 GB. The body is now
 * copied as it comes (suites/target/body-buffer.ts), so an answer in one-byte chunks costs what
 * the same answer in one piece does. The HTTP target in a child process, its peak RSS read from
 * /proc: a resource bound, not a timing. Needs the build (npm test builds first); Linux only.
 * `proxy` keeps a copy of each answer for judging the same way, measured in process after a
 * forced collection.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { request } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy } from '../../suites/proxy/server.js';
import { listen, type Loopback } from '../suites/loopback.js';

const HTTP_TARGET = fileURLToPath(new URL('../../dist/suites/target/http.js', import.meta.url));
// 300 KB: a Buffer per byte held 144 MB of it (480 MB for 1 MB), the proxy 56; copied, a few MB.
const BODY_BYTES = 300_000;
const MIB = 1024 * 1024;

/** Asks `url` once with the HTTP target; prints the body's length and the process's peak RSS. */
const CLIENT = `
import { readFileSync } from 'node:fs';
import { createHttpTarget } from ${JSON.stringify(HTTP_TARGET)};
const url = process.argv[1];
const target = createHttpTarget({ baseUrl: url }, { timeoutMs: 120000 });
const answer = await target.send({ method: 'GET', url: url + '/body', headers: new Headers() });
const length = (await answer.arrayBuffer()).byteLength;
await target.close();
const peak = Number(/VmHWM:\\s*(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
console.log(JSON.stringify({ length, peak }));
`;

let oneByteChunks: Server;
let chunksUrl: string;
let onePiece: Loopback;

beforeAll(async () => {
  [oneByteChunks, chunksUrl] = await chunkedServer(true);
  onePiece = await listen((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.alloc(BODY_BYTES, 'a'));
  });
});

afterAll(async () => {
  oneByteChunks?.close();
  await onePiece?.close();
});

/**
 * A server answering BODY_BYTES in one-byte chunks, the chunked coding written by hand (10,000
 * chunks a write: res.write per byte is slow); `ends` false: the answer is never finished.
 */
async function chunkedServer(ends: boolean): Promise<[Server, string]> {
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
      const piece = '1\r\na\r\n'.repeat(10_000);
      let sent = 0;
      const pump = () => {
        while (sent < BODY_BYTES) {
          sent += 10_000;
          if (!socket.write(piece)) return void socket.once('drain', pump);
        }
        if (ends) socket.end('0\r\n\r\n');
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return [server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`];
}

function peakOf(url: string): Promise<{ length: number; peak: number }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CLIENT, url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`client exited ${code}`)))),
  );
}

describe.runIf(existsSync('/proc/self/status'))('an answer in one-byte chunks', () => {
  it('costs the memory the same answer in one piece does, not a Buffer per byte', async () => {
    const piece = await peakOf(onePiece.url);
    const chunks = await peakOf(chunksUrl);
    expect([piece.length, chunks.length]).toEqual([BODY_BYTES, BODY_BYTES]);
    expect((chunks.peak - piece.peak) / MIB).toBeLessThan(48);
  });
});

describe('proxy: a target answering in one-byte chunks', () => {
  it('the copy kept for judging costs the bytes, not a Buffer per byte', async () => {
    const [target, url] = await chunkedServer(false);
    const proxy = await startProxy({ target: url, timeoutMs: 120_000, onExchange: () => undefined });
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const used = () => {
      gc();
      const { heapUsed, arrayBuffers } = process.memoryUsage();
      return heapUsed + arrayBuffers;
    };
    const before = used();
    let received = 0;
    const client = request(`${proxy.url}/api/v4/projects`, { agent: false });
    client.on('error', () => undefined);
    try {
      // The answer never ends: the proxy holds its copy while the client has every byte.
      await new Promise<void>((resolve) =>
        client
          .on('response', (res) =>
            res.on('data', (c: Buffer) => {
              received += c.length;
              if (received === BODY_BYTES) resolve();
            }),
          )
          .end(),
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect((used() - before) / MIB).toBeLessThan(16);
    } finally {
      client.destroy();
      await proxy.close();
      target.close();
    }
  });
});
