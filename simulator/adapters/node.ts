/**
 * Node http adapter: turns IncomingMessage into a Fetch Request and back. The same listener
 * serves `idp-conformance simulate` and supertest (which accepts a request listener).
 */
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Sim } from '../types.js';

/**
 * The body, or null once it is over `limit` bytes (declared or counted): nothing more is kept
 * (LIM-REQUEST-BODY-SIZE), so a huge upload costs at most `limit` bytes of memory.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  if (Number(req.headers['content-length']) > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        chunks.length = 0;
        resolve(null);
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/** How long the rest of an oversized body is drained (unkept) so the 413 reaches the client. */
const DRAIN_MS = 2000;

/**
 * After a 413 the connection closes; until then the unread rest is discarded, not buffered:
 * closing a socket with unread data sends a reset that can destroy the answer in flight.
 */
function drainThenClose(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  res.once('finish', () => {
    const timer = setTimeout(() => req.socket.destroy(), DRAIN_MS);
    timer.unref();
    req.socket.once('close', () => clearTimeout(timer));
  });
}

export function toRequest(req: IncomingMessage, body: Buffer | null): Request {
  const host = req.headers.host ?? '127.0.0.1';
  // Concatenate rather than resolve: `new URL('//x', base)` would read `//x` as a host.
  const url = `http://${host}${req.url ?? '/'}`;
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const method = req.method ?? 'GET';
  const hasBody = body !== null && body.length > 0 && method !== 'GET' && method !== 'HEAD';
  return new Request(url, { method, headers, body: hasBody ? new Uint8Array(body) : undefined });
}

export async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie') headers[key] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : null;
  res.writeHead(response.status, headers);
  res.end(body ?? undefined);
}

export function toNodeListener(sim: Sim): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    (async () => {
      let request: Request;
      try {
        const path = (req.url ?? '/').split('?')[0];
        const body = await readBody(req, sim.bodyLimit(req.method ?? 'GET', path));
        if (body === null) {
          drainThenClose(req, res);
          await writeResponse(res, sim.tooLarge(toRequest(req, null)));
          return;
        }
        request = toRequest(req, body);
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: '400 Bad Request' }));
        return;
      }
      await writeResponse(res, await sim.handle(request));
    })().catch((error) => {
      process.stderr.write(`simulator: adapter error: ${(error as Error).message}\n`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: '500 Internal Server Error' }));
    });
  };
}

export interface Served {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Is this address loopback (where only this machine can reach the control API)? */
export function isLoopback(host: string): boolean {
  return /^127\./.test(host) || host === '::1' || host === '[::1]' || host.toLowerCase() === 'localhost';
}

/**
 * Serve on loopback (127.0.0.1 unless told otherwise); port 0 picks a free port. The control
 * API then answers only a Host naming this address (AUTH-CONTROL-API-LOCAL) or `allowHosts`.
 */
export async function serve(
  sim: Sim,
  options: { port?: number; host?: string; allowHosts?: string[] } = {},
): Promise<Served> {
  const host = options.host ?? '127.0.0.1';
  // Node's own header limit must stay above the simulator's URL limit so that 414 comes from us.
  const server = createServer({ maxHeaderSize: 64 * 1024 }, toNodeListener(sim));
  // Every socket, also those Node no longer counts as HTTP (CONNECT, a 413 draining): close() ends them.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // Node hands CONNECT to a 'connect' listener and, without one, drops the connection: answer it.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    const body = JSON.stringify({ error: '405 Method Not Allowed' });
    socket.end(
      `HTTP/1.1 405 Method Not Allowed\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (sim.options.controlHosts === undefined) {
    const own = [new URL(url).host, `127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
    sim.options.controlHosts = [...new Set([...own, ...(options.allowHosts ?? [])])];
  }
  return {
    url,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }),
  };
}
