/**
 * Node http adapter. The same listener serves `idp-conformance simulate` and supertest (which
 * accepts a request listener). It reaches the core with a light request read from the
 * IncomingMessage and writes the core's Reply straight to the socket: no Fetch Request or
 * Response is made on this path (a handler's own Fetch Response, Git's, is written as it is).
 */
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { isIPv4, isIPv6, type AddressInfo, type Socket } from 'node:net';
import { Reply, type Answer } from '../http.js';
import type { Sim, SimRequest } from '../types.js';

/**
 * The body to `read`, or null once it is over `limit` bytes (declared or counted): nothing more is
 * kept (LIM-REQUEST-BODY-SIZE), so a huge upload costs at most `limit` bytes of memory. Called
 * once; `failed` instead when the stream breaks. Callbacks, not a promise: the answer is written
 * in the 'end' event's own tick (a promise and its await cost every POST microtask hops).
 */
function readBody(
  req: IncomingMessage,
  limit: number,
  read: (body: Buffer | null) => void,
  failed: (error: Error) => void,
): void {
  if (Number(req.headers['content-length']) > limit) return read(null);
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
      read(null);
    } else chunks.push(chunk);
  };
  const onEnd = () => {
    done();
    read(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  };
  const onError = (error: Error) => {
    done();
    failed(error);
  };
  req.on('data', onData).on('end', onEnd).on('error', onError);
}

/**
 * Closing after an answer, like nginx's lingering close: half-close (our FIN goes after the
 * answer), then read and discard what the client still sends until it closes its side, up to
 * LINGER_BYTES and LINGER_MS, and only then close. Closing with unread or arriving data sends a
 * reset, and a reset can destroy the answer before the client has read it (ECONNRESET, EPIPE).
 */
const LINGER_MS = 5000;
const LINGER_BYTES = 16 * 1024 * 1024;
const lingering = new WeakSet<Socket>();

function lingeringClose(socket: Socket, last?: string): void {
  if (lingering.has(socket) || socket.destroyed) return;
  lingering.add(socket);
  // The HTTP parser's listener goes: from here on the bytes are discarded, never a request.
  socket.removeAllListeners('data');
  let left = LINGER_BYTES;
  const close = () => socket.destroy();
  const timer = setTimeout(close, LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.on('error', close);
  socket.on('data', (chunk: Buffer) => {
    if ((left -= chunk.length) < 0) close();
  });
  // The client is done: close once our answer is out too.
  socket.once('end', () => (socket.writableFinished ? close() : socket.once('finish', close)));
  if (last === undefined) socket.end();
  else socket.end(last);
  socket.resume();
}

/** Node closes a connection after an answer that ends it (Connection: close) with destroySoon: linger instead. */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = () => lingeringClose(socket);
}

/** Node's own answers to a request it cannot parse (its defaults), then a lingering close. */
const PARSER_ANSWERS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/** The answer Node is writing on this socket, if any (what Node's own clientError handler checks). */
function answerUnderWay(socket: Socket): boolean {
  return !!(socket as { _httpMessage?: { headersSent: boolean } })._httpMessage?.headersSent;
}

function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // A client that went away leaves nothing to say.
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  // An answer already under way (a 413 before a broken chunk) is whole on the socket (writeAnswer
  // writes head and body at once): it is the last.
  if (answerUnderWay(socket)) return lingeringClose(socket);
  const status = PARSER_ANSWERS[error.code ?? ''] ?? '400 Bad Request';
  lingeringClose(socket, `HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
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

  /** One header: a scan of the raw list (a request asks for few), the map only once it is built. */
  get(name: string): string | null {
    const key = name.toLowerCase();
    if (this.map) return this.map.get(key) ?? null;
    let found: string | null = null;
    for (let i = 0; i < this.raw.length; i += 2) {
      const raw = this.raw[i];
      if (raw.length === key.length && raw.toLowerCase() === key)
        found = found === null ? this.raw[i + 1] : `${found}, ${this.raw[i + 1]}`;
    }
    return found;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  pairs(): [string, string][] {
    return [...this.all()];
  }
}

/** Drops a leading byte order mark, as Fetch's text() does; one for all (a whole decode keeps no state). */
const UTF8 = new TextDecoder();

/** The body of a request that carries none (shared: nothing writes to it). */
const EMPTY = Buffer.alloc(0);

/** Fetch refuses these methods outright; the adapter answered them 400 and still does. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

class NodeRequest implements SimRequest {
  readonly headers: NodeHeaders;

  constructor(
    readonly method: string,
    readonly url: string,
    readonly parsedUrl: URL,
    rawHeaders: string[],
    private readonly body: Buffer,
  ) {
    this.headers = new NodeHeaders(rawHeaders);
  }

  async text(): Promise<string> {
    return this.textNow();
  }

  textNow(): string {
    return UTF8.decode(this.body);
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

/** `host[:port]` (RFC 9110 §7.2): a name or IPv4 literal, or a bracketed IPv6 literal; an optional port. */
const AUTHORITY = /^(?:[\w.~-]+|\[[\d:a-f.]+\])(?::\d*)?$/i;
/** An absolute-form request target (RFC 9112 §3.2.2): `http://authority` and the rest. */
const ABSOLUTE_FORM = /^http:\/\/([^/?#]*)([/?#].*)?$/is;

/** How many Host lines a request has (Node's `headers.host` keeps the first of several). */
function hostLines(raw: string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 4 && raw[i].toLowerCase() === 'host') n++;
  return n;
}

/**
 * The one URL of a request, or null (400): routing, the body limit and the control API's Host
 * check all read this parse, so no header can make them see different paths. An origin-form
 * target (`/p?q`) takes its authority from Host (127.0.0.1 when an HTTP/1.0 client sends none), an
 * absolute-form one from itself; either way it must be `host[:port]`, as must a Host sent beside it.
 */
export function requestTarget(req: IncomingMessage): URL | null {
  const host = req.headers.host;
  if (host !== undefined && (!AUTHORITY.test(host) || hostLines(req.rawHeaders) > 1)) return null;
  const target = req.url ?? '/';
  let authority = host ?? '127.0.0.1';
  let path = target;
  if (!target.startsWith('/')) {
    const absolute = ABSOLUTE_FORM.exec(target);
    if (!absolute || !AUTHORITY.test(absolute[1])) return null;
    authority = absolute[1];
    const rest = absolute[2] ?? '';
    path = rest.startsWith('/') ? rest : `/${rest}`;
  }
  // Concatenate rather than resolve: `new URL('//x', base)` would read `//x` as a host.
  return parsedOnce(`http://${authority}${path}`);
}

/**
 * Parsed URLs of recent short request targets: clients repeat a few (the token and device
 * endpoints, the key set), and a parse was 7 % of a device authorization's own time (in-process
 * A/B). Shared objects are safe because nothing writes to a request's URL (the handlers that
 * change one build their own: redirectTo, unencodedSlash). Bounded in entries and key length, so
 * a client sending only new or long targets costs a lookup and, past the bound, a clear.
 */
const URLS = new Map<string, URL>();
const URLS_MAX = 512;
const URL_CACHED_MAX_LENGTH = 256;

function parsedOnce(href: string): URL | null {
  const known = URLS.get(href);
  if (known) return known;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (href.length <= URL_CACHED_MAX_LENGTH) {
    if (URLS.size >= URLS_MAX) URLS.clear();
    URLS.set(href, url);
  }
  return url;
}

/** How many parsed URLs are kept (tests read the bound). */
export const cachedUrlCount = (): number => URLS.size;

/** The light request of an IncomingMessage, or null when Fetch would have refused it (bad URL or method). */
export function toSimRequest(
  req: IncomingMessage,
  body: Buffer | null,
  url: URL | null = requestTarget(req),
): SimRequest | null {
  const method = req.method ?? 'GET';
  if (FORBIDDEN_METHODS.has(method.toUpperCase()) || !url) return null;
  const hasBody = body !== null && body.length > 0 && method !== 'GET' && method !== 'HEAD';
  return new NodeRequest(method, url.href, url, req.rawHeaders, hasBody ? body : EMPTY);
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

/** Write an answer; a Reply synchronously, its headers as Node's flat list (no object built per answer). */
function writeAnswer(res: ServerResponse, answer: Answer, head: boolean): void | Promise<void> {
  if (!(answer instanceof Reply)) return writeResponse(res, head ? new Response(null, answer) : answer);
  const headers = answer.headers.toNodeList();
  if (head || answer.body === null) {
    res.writeHead(answer.status, headers);
    res.end();
    return;
  }
  // A string body goes out as it is: Node writes the head and a string body as one chunk (one
  // write, no copy into a Buffer first); a prebuilt Buffer is written as it is, never encoded again.
  const { body } = answer;
  headers.push('content-length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.length));
  res.writeHead(answer.status, headers);
  res.end(body);
}

function badRequest(res: ServerResponse): void {
  res.writeHead(400, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: '400 Bad Request' }));
}

function adapterError(res: ServerResponse, error: unknown): void {
  process.stderr.write(`simulator: adapter error: ${(error as Error).message}\n`);
  if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ message: '500 Internal Server Error' }));
}

/** Run an answer's writing; whatever it throws, now or later, is the adapter's 500. */
function guarded(res: ServerResponse, run: () => Promise<void> | void): void {
  try {
    run()?.catch((error: unknown) => adapterError(res, error));
  } catch (error) {
    adapterError(res, error);
  }
}

export function toNodeListener(sim: Sim): (req: IncomingMessage, res: ServerResponse) => void {
  // Written in the same tick when the simulator answers at once (sim.answer: most requests).
  const answer = (res: ServerResponse, request: SimRequest | null): Promise<void> | void => {
    if (!request) return badRequest(res);
    const head = request.method === 'HEAD';
    const reply = sim.answer(request);
    return reply instanceof Promise ? reply.then((r) => writeAnswer(res, r, head)) : writeAnswer(res, reply, head);
  };
  // A request with a body: read it (up to the route's limit) before answering.
  const withBody = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    const read = (body: Buffer | null): Promise<void> | void => {
      let request: SimRequest | null;
      try {
        if (body === null) {
          // The unread rest is discarded while the 413 goes out (its Connection: close then
          // lingers, see lingeringClose), never buffered.
          req.resume();
          const refused = toSimRequest(req, null, url);
          if (!refused) return badRequest(res);
          return writeAnswer(res, sim.tooLarge(refused), refused.method === 'HEAD');
        }
        request = toSimRequest(req, body, url);
      } catch {
        request = null;
      }
      return answer(res, request);
    };
    readBody(
      req,
      sim.bodyLimit(req.method ?? 'GET', url.pathname, req.headers.authorization),
      (body) => guarded(res, () => read(body)),
      () => guarded(res, () => answer(res, null)),
    );
  };
  return (req, res) => {
    let url: URL | null;
    let carries: boolean;
    let request: SimRequest | null = null;
    try {
      url = requestTarget(req);
      if (!url) return badRequest(res);
      // Most requests (GETs) carry no body: nothing to read, no stream listener, no promise to wait
      // for (Node discards an unread request when the answer ends).
      carries = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
      if (!carries) request = toSimRequest(req, EMPTY, url);
    } catch {
      return badRequest(res);
    }
    guarded(res, () => (carries ? withBody(req, res, url) : answer(res, request)));
  };
}

export interface Served {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * Is this IP literal loopback (127.0.0.0/8, ::1, or 127/8 mapped into IPv6)? Only literals: a name
 * is judged by the address its socket bound to (serve(), simulate), never by a lookup that could
 * answer differently at bind time.
 */
export function isLoopback(address: string): boolean {
  const ip = address.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const v4 = ip.startsWith('::ffff:') ? ip.slice('::ffff:'.length) : ip;
  if (isIPv4(v4)) return v4.startsWith('127.');
  // A zone (fe80::1%eth0) is never loopback, and the URL parser would refuse it.
  return isIPv6(ip) && !ip.includes('%') && new URL(`http://[${ip}]`).hostname === '[::1]';
}

/**
 * The Host values the control API answers (AUTH-CONTROL-API-LOCAL): on loopback this server's own
 * names and `allowHosts`; off loopback only `allowHosts`, so a remote client's `Host: 127.0.0.1`
 * is no way in.
 */
export function controlHostsFor(bound: AddressInfo, url: string, allowHosts: string[] = []): string[] {
  if (!isLoopback(bound.address)) return [...new Set(allowHosts)];
  const own = [new URL(url).host, `127.0.0.1:${bound.port}`, `localhost:${bound.port}`, `[::1]:${bound.port}`];
  return [...new Set([...own, ...allowHosts])];
}

/**
 * How long a client may hold a connection without finishing a request, in ms. Node's defaults let
 * a request's head trickle in (or a connection send nothing) for 60 s, checked every 30 s, so each
 * such connection stayed up to 90 s, and a body trickle 300 s: a client that opens them faster than
 * they end runs a shared simulator out of file descriptors. Then 408, and a lingering close.
 */
export interface ConnectionTimeouts {
  /** The whole head of a request (or the first byte of a connection's first one). */
  headersMs: number;
  /** The whole request, body included (a Git push of 32 MiB on loopback takes well under it). */
  requestMs: number;
  /** An idle keep-alive connection between requests. */
  keepAliveMs: number;
  /** How often connections are checked against the first two. */
  checkEveryMs: number;
}

export const CONNECTION_TIMEOUTS: ConnectionTimeouts = {
  headersMs: 10_000,
  requestMs: 60_000,
  keepAliveMs: 5_000,
  checkEveryMs: 1_000,
};

/** The largest request head Node reads (request line and headers) before its own 431. */
export const MAX_HEAD_BYTES = 256 * 1024;

/**
 * Serve on loopback (127.0.0.1 unless told otherwise); port 0 picks a free port. The control
 * API then answers only the Hosts of controlHostsFor (AUTH-CONTROL-API-LOCAL).
 */
export async function serve(
  sim: Sim,
  options: { port?: number; host?: string; allowHosts?: string[]; timeouts?: Partial<ConnectionTimeouts> } = {},
): Promise<Served> {
  const host = options.host ?? '127.0.0.1';
  const timeouts = { ...CONNECTION_TIMEOUTS, ...options.timeouts };
  // Node's own header limit must stay above the simulator's URL limit so that 414 comes from us,
  // also for a URL far past it (issue 20 names 70 KB paths: at 64 KiB Node answered 431 first);
  // still a bound, as a head past it is held whole until it ends.
  const server = createServer(
    {
      maxHeaderSize: MAX_HEAD_BYTES,
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: timeouts.checkEveryMs,
    },
    toNodeListener(sim),
  );
  // Every socket, also those Node no longer counts as HTTP (CONNECT, a 413 draining): close() ends them.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    lingerOnClose(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', answerClientError);
  // Node hands CONNECT to a 'connect' listener and, without one, drops the connection: answer it.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    const body = JSON.stringify({ error: '405 Method Not Allowed' });
    lingeringClose(
      socket,
      `HTTP/1.1 405 Method Not Allowed\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound.port}`;
  sim.options.controlHosts ??= controlHostsFor(bound, url, options.allowHosts);
  return {
    url,
    server,
    // The simulator's repositories go with the server (sim.close): `simulate`'s exit and tests.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }).then(() => sim.close()),
  };
}
