/**
 * A target on a raw `net` (or `tls`) server, for answers node:http will not write: each request is
 * read by hand, and answered by the simulator (its Fetch entry, written out here) unless `answer`
 * takes it and writes what it likes on the socket. Connections are kept alive unless the request
 * asks for close, as a provider's server does.
 */
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import {
  createServer as createTlsServer,
  type SecureContextOptions,
  type Server as TlsServer,
  type TlsOptions,
} from 'node:tls';
import { createSimulator } from '../../simulator/core.js';
import type { Sim } from '../../simulator/types.js';

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The request asked for the connection to close after its answer. */
  close: boolean;
}

/** Return true when the request was answered (or left unanswered) on purpose. */
export type Answer = (req: RawRequest, socket: Socket) => boolean | Promise<boolean>;

export interface RawTarget {
  url: string;
  sim: Sim;
  /** A TLS target's certificate from the next connection on. */
  certify(options: SecureContextOptions): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** The answer as HTTP/1.1 bytes, with its length; `head`: no body. */
export async function written(response: Response, head: boolean, close: boolean): Promise<Buffer> {
  const body = head || !response.body ? Buffer.alloc(0) : Buffer.from(await response.arrayBuffer());
  const lines = [`HTTP/1.1 ${response.status} ${response.statusText || 'OK'}`];
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie' && !HOP_BY_HOP.has(name)) lines.push(`${name}: ${value}`);
  });
  for (const cookie of response.headers.getSetCookie()) lines.push(`set-cookie: ${cookie}`);
  lines.push(`content-length: ${body.length}`, `connection: ${close ? 'close' : 'keep-alive'}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}

/** Requests one after another off a connection's bytes; each handled before the next is read. */
function serveConnection(socket: Socket, handle: (req: RawRequest) => Promise<void>): void {
  let buffered = Buffer.alloc(0);
  let busy = Promise.resolve();
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [line, ...fields] = buffered.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const field of fields) {
        const colon = field.indexOf(':');
        headers[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (buffered.length < end + 4 + length) return;
      const body = buffered.subarray(end + 4, end + 4 + length);
      buffered = buffered.subarray(end + 4 + length);
      const [method, path] = line.split(' ');
      const close = /close/i.test(headers.connection ?? '');
      busy = busy.then(() => handle({ method, path, headers, body, close }));
    }
  });
}

/** The simulator's answer to a request read off the wire, as the target at `url` gives it. */
export function simulatorAnswer(sim: Sim, url: string, req: RawRequest): Promise<Response> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers.set(name, value);
  const carries = req.method !== 'GET' && req.method !== 'HEAD' && req.body.length > 0;
  return sim.handle(
    new Request(url + req.path, {
      method: req.method,
      headers,
      body: carries ? new Uint8Array(req.body) : undefined,
    }),
  );
}

export async function rawTarget(answer: Answer, tls?: TlsOptions): Promise<RawTarget> {
  const sim = createSimulator({});
  let url = '';
  const onConnection = (socket: Socket) =>
    serveConnection(socket, async (req) => {
      if (socket.destroyed || (await answer(req, socket))) return;
      const response = await simulatorAnswer(sim, url, req);
      if (socket.destroyed) return;
      socket.write(await written(response, req.method === 'HEAD', req.close));
      if (req.close) socket.end();
    });
  const server: Server = tls ? createTlsServer(tls, onConnection) : createTcpServer(onConnection);
  const sockets = new Set<Socket>();
  server.on(tls ? 'secureConnection' : 'connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    sim,
    certify: (options) => (server as TlsServer).setSecureContext(options),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
