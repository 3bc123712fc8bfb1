/**
 * Node http adapter: turns IncomingMessage into a Fetch Request and back. The same listener
 * serves `idp-conformance simulate` and supertest (which accepts a request listener).
 */
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Sim } from '../types.js';

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
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
        request = toRequest(req, await readBody(req));
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

/** Serve on loopback (127.0.0.1 unless told otherwise); port 0 picks a free port. */
export async function serve(sim: Sim, options: { port?: number; host?: string } = {}): Promise<Served> {
  const host = options.host ?? '127.0.0.1';
  // Node's own header limit must stay above the simulator's URL limit so that 414 comes from us.
  const server = createServer({ maxHeaderSize: 64 * 1024 }, toNodeListener(sim));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
