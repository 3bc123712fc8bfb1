/**
 * Pieces for the hostile-target tests: a collector on another loopback origin that counts what
 * reaches it (and which of it carries a credential), and a proxy in front of the simulator that
 * rewrites chosen answers (URLs that point at that collector, hostile members, headers).
 */
import { writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { serve } from '../../simulator/adapters/node.js';
import { targetConfig } from '../../simulator/control/config.js';
import { createSimulator } from '../../simulator/core.js';
import type { Sim } from '../../simulator/types.js';

export interface Collector {
  url: string;
  /** Every request received, with the credentials it carried (header names, body field names). */
  received: Array<{ method: string; path: string; credentials: string[] }>;
  close(): Promise<void>;
}

/** Header and form/JSON field names that carry a credential; a query may carry a token too. */
const CREDENTIAL_HEADERS = ['private-token', 'authorization', 'cookie', 'proxy-authorization'];
const CREDENTIAL_FIELDS =
  /(^|[?&"])(password|user%5Bpassword%5D|user\[password\]|client_secret|private_token|access_token|refresh_token|code)(=|":)/i;

async function start(server: Server, host = '127.0.0.1'): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

const stop = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/**
 * Counts, then answers with `then` (a 404 by default), on `host` (another loopback address is
 * another site, so the browser gives its frames a process of their own). A WebSocket handshake is
 * counted as method WEBSOCKET and refused.
 */
export async function startCollector(
  then: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void = (_, res) => {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('collected');
  },
  host = '127.0.0.1',
): Promise<Collector> {
  const received: Collector['received'] = [];
  const count = (req: IncomingMessage, method: string, body = '') => {
    const credentials = CREDENTIAL_HEADERS.filter((h) => req.headers[h] !== undefined);
    if (CREDENTIAL_FIELDS.test(req.url ?? '')) credentials.push('query');
    if (CREDENTIAL_FIELDS.test(body)) credentials.push('body');
    received.push({ method, path: req.url ?? '/', credentials });
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      count(req, req.method ?? 'GET', body.toString('utf8'));
      then(req, res, body);
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    count(req, 'WEBSOCKET');
    socket.destroy();
  });
  const url = await start(server, host);
  return { url, received, close: () => stop(server) };
}

/** Pass a request on to `upstream` with its Host kept, and hand the answer to `answer`. */
export function forward(
  upstream: string,
  req: IncomingMessage,
  body: Buffer,
  answer: (status: number, headers: Array<[string, string]>, body: Buffer) => void,
): void {
  const { port } = new URL(upstream);
  const out = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (res) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      const pairs: Array<[string, string]> = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i], res.rawHeaders[i + 1]]);
      answer(res.statusCode ?? 502, pairs, Buffer.concat(chunks));
    });
  });
  out.on('error', () => answer(502, [['content-type', 'text/plain']], Buffer.from('proxy: upstream failed')));
  out.end(body);
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/**
 * A proxy in front of `upstream` (keeping Host, so the simulator writes the proxy's URLs) whose
 * `rewrite` may change each answer's headers and body.
 */
export async function startProxy(
  upstream: string,
  rewrite: (
    req: IncomingMessage,
    answer: { status: number; headers: Array<[string, string]>; body: Buffer },
    /** The request's body, as it was passed on. */
    sent: Buffer,
  ) => { status: number; headers: Array<[string, string]>; body: Buffer },
): Promise<{
  url: string;
  handle: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;
  close(): Promise<void>;
}> {
  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) =>
    forward(upstream, req, body, (status, headers, payload) => {
      const out = rewrite(req, { status, headers, body: payload }, body);
      for (const [name, value] of out.headers) if (!HOP_BY_HOP.has(name.toLowerCase())) res.appendHeader(name, value);
      res.setHeader('content-length', out.body.length);
      res.writeHead(out.status);
      res.end(out.body);
    });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  const url = await start(server);
  return { url, handle, close: () => stop(server) };
}

type Rewrite = Parameters<typeof startProxy>[1];
type Proxy = Awaited<ReturnType<typeof startProxy>>;

/**
 * The simulator over HTTP behind a proxy that rewrites its answers, its control API open through
 * the proxy (a collector that passes requests on adds its host to `sim.options.controlHosts`), and
 * the proxy's target config written to `dir/target.json` (`config`).
 */
export async function proxiedSimulator(
  dir: string,
  rewrite: Rewrite,
): Promise<{ sim: Sim; proxy: Proxy; config: string; close(): Promise<void> }> {
  const sim = createSimulator({});
  const served = await serve(sim);
  const proxy = await startProxy(served.url, rewrite);
  sim.options.controlHosts = [served.url, proxy.url].map((u) => new URL(u).host);
  const config = join(dir, 'target.json');
  writeFileSync(config, JSON.stringify(targetConfig(sim, proxy.url)));
  return {
    sim,
    proxy,
    config,
    close: async () => {
      await proxy.close();
      await served.close();
    },
  };
}

/** Every occurrence of `from` (an origin) in a header value replaced by `to`. */
export const reorigin = (value: string, from: string, to: string) => value.split(from).join(to);

/** Values of a request that are credentials: what a target sees and may echo. */
export function credentialsOf(headers: Record<string, string | string[] | undefined>, body: Buffer): string[] {
  const found: string[] = [];
  const form = new URLSearchParams(body.toString('utf8'));
  for (const name of ['password', 'user[password]', 'client_secret', 'code', 'code_verifier', 'refresh_token'])
    found.push(...form.getAll(name));
  const auth = /^(Basic|Bearer) (.+)$/i.exec(String(headers.authorization ?? ''));
  // Basic: the client's secret (its id is no secret).
  const basic = auth?.[1].toLowerCase() === 'basic' && Buffer.from(auth[2], 'base64').toString('utf8');
  if (basic) found.push(decodeURIComponent(basic.slice(basic.indexOf(':') + 1)));
  else if (auth) found.push(auth[2]);
  if (typeof headers['private-token'] === 'string') found.push(headers['private-token']);
  // The start-up probe's own placeholder (`idp-conformance-start-up-premise`) is the harness's text, no credential.
  return found.filter((v) => v.length >= 8 && !v.startsWith('idp-conformance'));
}
