/**
 * Node http adapter. The same listener serves `idp-conformance simulate` and supertest (which
 * accepts a request listener). It reaches the core with a light request read from the
 * IncomingMessage and writes the core's Reply straight to the socket: no Fetch Request or
 * Response is made on this path (a handler's own Fetch Response, Git's, is written as it is).
 */
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Reply, type Answer } from '../http.js';
import { rememberUrl } from '../request.js';
import type { Sim, SimRequest } from '../types.js';

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Request headers as Fetch reads them: names lowercased, repeated headers joined with ", ". */
class NodeHeaders {
  private map?: Map<string, string>;

  constructor(private readonly raw: string[]) {}

  private all(): Map<string, string> {
    if (this.map) return this.map;
    const map = new Map<string, string>();
    for (let i = 0; i < this.raw.length; i += 2) {
      const name = this.raw[i].toLowerCase();
      const value = this.raw[i + 1];
      const seen = map.get(name);
      map.set(name, seen === undefined ? value : `${seen}, ${value}`);
    }
    return (this.map = map);
  }

  get(name: string): string | null {
    return this.all().get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.all().has(name.toLowerCase());
  }

  pairs(): [string, string][] {
    return [...this.all()];
  }
}

/** Fetch refuses these methods outright; the adapter answered them 400 and still does. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

class NodeRequest implements SimRequest {
  readonly headers: NodeHeaders;

  constructor(
    readonly method: string,
    readonly url: string,
    rawHeaders: string[],
    private readonly body: Buffer,
  ) {
    this.headers = new NodeHeaders(rawHeaders);
  }

  async text(): Promise<string> {
    // TextDecoder drops a leading byte order mark, as Fetch's text() does.
    return new TextDecoder().decode(this.body);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return new Uint8Array(this.body).buffer;
  }

  /** Multipart is rare here: let Fetch parse it. */
  formData(): Promise<FormData> {
    const body = this.body.length ? new Uint8Array(this.body) : undefined;
    return new Request(this.url, { method: this.method, headers: this.headers.pairs(), body }).formData();
  }
}

/** The light request of an IncomingMessage, or null when Fetch would have refused it (bad URL or method). */
export function toSimRequest(req: IncomingMessage, body: Buffer | null): SimRequest | null {
  const host = req.headers.host ?? '127.0.0.1';
  // Concatenate rather than resolve: `new URL('//x', base)` would read `//x` as a host.
  const href = `http://${host}${req.url ?? '/'}`;
  const method = req.method ?? 'GET';
  if (FORBIDDEN_METHODS.has(method.toUpperCase())) return null;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  const hasBody = body !== null && body.length > 0 && method !== 'GET' && method !== 'HEAD';
  const request = new NodeRequest(method, href, req.rawHeaders, hasBody ? body : Buffer.alloc(0));
  rememberUrl(request, url);
  return request;
}

/** Write a Fetch Response (a handler's own, e.g. Git's stream) to the socket. */
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

async function writeAnswer(res: ServerResponse, answer: Answer, head: boolean): Promise<void> {
  if (!(answer instanceof Reply)) return writeResponse(res, head ? new Response(null, answer) : answer);
  const headers = answer.headers.toNode();
  if (head || answer.body === null) {
    res.writeHead(answer.status, headers);
    res.end();
    return;
  }
  const body = typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
  headers['content-length'] = String(body.length);
  res.writeHead(answer.status, headers);
  res.end(body);
}

function badRequest(res: ServerResponse): void {
  res.writeHead(400, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: '400 Bad Request' }));
}

export function toNodeListener(sim: Sim): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    (async () => {
      let request: SimRequest | null;
      try {
        request = toSimRequest(req, await readBody(req));
      } catch {
        request = null;
      }
      if (!request) return badRequest(res);
      await writeAnswer(res, await sim.answer(request), request.method === 'HEAD');
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
