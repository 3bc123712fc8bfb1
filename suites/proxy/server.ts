/**
 * The recording reverse proxy: forwards each request to the target as the client sent it (method,
 * raw request target, headers in their order and case, body) and each answer back the same way,
 * dropping only hop-by-hop headers (RFC 9110 §7.6.1), which belong to each connection. It adds
 * nothing (no Date, no Via, no X-Forwarded-*). A copy of each body up to `maxBodyBytes` is kept
 * for judging; a longer one is still forwarded whole, and judged on its headers only. All copies
 * held at once share one budget, so many concurrent clients cannot grow memory without bound, and
 * a target silent for `timeoutMs` gets its client a 504 instead of holding it forever.
 */
import {
  createServer,
  request as httpRequest,
  STATUS_CODES,
  type ClientRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIPv4, type AddressInfo } from 'node:net';
import { DEFAULT_TIMEOUT_MS } from '../target/http.js';
import { createBodyBuffer } from '../target/body-buffer.js';
import { untrustedCertificate } from '../target/tls.js';
import { keptConnections } from '../target/kept-connections.js';
import { inert } from '../diff/shape.js';
import type { Observed } from './flows.js';
import { basePathOf, upstreamPath } from './urls.js';

/** Bodies kept for judging, per direction: enough for any token or page answer. */
export const DEFAULT_PROXY_BODY_BYTES = 1024 * 1024;

/** Copies held at once, all exchanges under way together, in units of the per-body cap. */
export const KEPT_BODIES_BUDGET = 32;

/** As `run`'s --timeout: how long the target may stay silent before the client gets a 504. */
export const DEFAULT_PROXY_TIMEOUT_MS = DEFAULT_TIMEOUT_MS;

/**
 * Client connections held at once; past it a new one is closed on arrival (Node's
 * `maxConnections`), so sockets and their header buffers stay bounded as the kept bodies are.
 */
export const DEFAULT_PROXY_CONNECTIONS = 1024;

const MAX_HEADER_BYTES = 64 * 1024;

/** 103 Early Hints passed on per request: a page's preloads fit, an endless stream does not. */
const MAX_EARLY_HINTS = 8;

/**
 * How long a client may take to send its request, in ms, then Node's 408. Node's defaults held a
 * head trickled in (or a connection that sent nothing) 90 s and a body 300 s, each holding one of
 * maxConnections: 1,024 idle sockets shut every other client out for a minute and a half.
 */
export const PROXY_CLIENT_TIMEOUTS = { headersMs: 10_000, requestMs: 60_000, checkEveryMs: 1_000 };

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Raw headers ([name, value, name, value…]) without the hop-by-hop ones, those Connection names included. */
export function endToEnd(raw: readonly string[]): string[] {
  const named = new Set(HOP_BY_HOP);
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i].toLowerCase() === 'connection')
      for (const token of raw[i + 1].split(',')) named.add(token.trim().toLowerCase());
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!named.has(raw[i].toLowerCase())) kept.push(raw[i], raw[i + 1]);
  return kept;
}

/** Raw headers with every Host value replaced by `host` (the only change --rewrite-host makes). */
function withHost(raw: string[], host: string): string[] {
  return raw.map((value, i) => (i % 2 === 1 && raw[i - 1].toLowerCase() === 'host' ? host : value));
}

/** Raw headers as a Headers object for judging; a pair Headers refuses is left out of judging only. */
function headersOf(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) {
    try {
      headers.append(raw[i], raw[i + 1]);
    } catch {
      // Forwarded as it came; only the judge does not read it.
    }
  }
  return headers;
}

/** Bytes of body copies held now, across exchanges, against a ceiling. */
interface Budget {
  used: number;
  readonly limit: number;
}

/**
 * A tee of a body: every chunk passes on; a copy is kept until it would exceed `max` bytes or the
 * shared budget. `release` gives the copy's bytes back once the exchange has been judged.
 */
function keep(max: number, budget: Budget) {
  // Copied as it comes (body-buffer.ts): a body in one-byte chunks would be a Buffer object per byte.
  const copy = createBodyBuffer();
  let over = false;
  const drop = () => {
    budget.used -= copy.size;
    copy.clear();
  };
  return {
    add(chunk: Buffer) {
      if (over) return;
      if (copy.size + chunk.length > max || budget.used + chunk.length > budget.limit) {
        over = true;
        return drop();
      }
      budget.used += chunk.length;
      copy.add(chunk);
    },
    body: (): Buffer | undefined => (over ? undefined : copy.bytes()),
    release: drop,
  };
}

export interface ProxyOptions {
  /** The provider's base URL; the client's request target is appended to its path. */
  target: string;
  host?: string;
  port?: number;
  maxBodyBytes?: number;
  /** How long the target may take to start answering (after the request) or stay silent mid-answer. */
  timeoutMs?: number;
  /** Client connections held at once (DEFAULT_PROXY_CONNECTIONS). */
  maxConnections?: number;
  /** How long a client may take to send its request (PROXY_CLIENT_TIMEOUTS). */
  clientTimeouts?: Partial<typeof PROXY_CLIENT_TIMEOUTS>;
  /**
   * Send the target's own host as Host instead of the client's (a provider behind virtual hosting
   * needs it). Off by default: the Host as sent keeps the provider's links pointing at the proxy.
   */
  rewriteHost?: boolean;
  /** Other Host values the proxy answers besides its own address (`name` any port, `name:port` that one). */
  allowHosts?: readonly string[];
  /** Browser origins besides loopback ones whose pages may send through the proxy (`scheme://host[:port]`). */
  allowOrigins?: readonly string[];
  /**
   * Let a top-level visit from another site with no Referer through: an https page never sends one
   * to the http proxy, so a sign-in on an https site that redirects back needs it; but so does any
   * page that withholds its Referer (a referrer policy), which this trusts as well.
   */
  allowNoReferer?: boolean;
  /** Every complete exchange, after its answer went back to the client. */
  onExchange: (exchange: Observed) => void;
  /** A judge that threw: the traffic went on regardless; the caller says so once. */
  onJudgeError?: (error: unknown) => void;
  /** A request the target did not answer (unreachable, TLS failing, silent): its client got a 502 or 504. */
  onUnanswered?: (reason: string) => void;
  /** A client that went away before its answer was whole: its exchange is not judged, and the target is not blamed. */
  onClientLeft?: () => void;
}

export interface RunningProxy {
  url: string;
  /** Bytes of body copies held for judging right now (bounded by the budget). */
  keptBytes(): number;
  close(): Promise<void>;
}

/**
 * The Host values the proxy answers: its own address as a loopback client names it (the bound
 * literal, `localhost`) and `allowHosts`. A DNS-rebinding page (its own name, now resolving to
 * 127.0.0.1) sends its own name, so it is refused: without this, any page the developer opened
 * could send requests through the proxy (to a provider maybe reachable only from this machine),
 * read the answers as its own origin's, and put exchanges of its making into the report.
 */
function hostGuard(bound: () => AddressInfo, allowHosts: readonly string[]): (host: string | undefined) => boolean {
  // Built at the first request: the port is known once the server is bound.
  let allowed: Set<string> | undefined;
  return (host) => {
    if (!allowed) {
      const { address, family, port } = bound();
      const literal = family === 'IPv6' ? `[${address}]` : address;
      allowed = new Set([`${literal}:${port}`, `localhost:${port}`, ...allowHosts].map((h) => h.toLowerCase()));
    }
    if (host === undefined) return false;
    const lower = host.toLowerCase();
    return allowed.has(lower) || allowed.has(lower.replace(/:\d+$/, ''));
  };
}

/** Is this host name this machine: `localhost` (and its subdomains, RFC 6761) or a loopback literal? */
function loopbackName(host: string): boolean {
  // The URL parser writes every IPv4 form (2130706433, 0x7f.1) as dotted decimal, and ::1 as ::1.
  return host === 'localhost' || host.endsWith('.localhost') || loopbackLiteral(host);
}

function loopbackLiteral(host: string): boolean {
  return (isIPv4(host) && host.startsWith('127.')) || host === '::1';
}

/** The host name of a URL or a Host header, brackets off (`[::1]` is `::1`), or undefined. */
function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return undefined;
  }
}

/** Is this origin's host this machine? */
function loopbackOrigin(origin: string): boolean {
  const host = hostnameOf(origin);
  return host !== undefined && loopbackName(host);
}

/** The origin of a URL header (`Referer`), or undefined when absent or not a URL. */
function originOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * A link followed or a redirect in the browser's own window (a GET navigation of the top-level
 * document): it carries no Origin, so the team's application on another port (same-site) or on
 * `localhost` (cross-site) could not send the browser to the authorization endpoint at all. A page
 * of any site can make one unseen too (a window it opened and sends on again and again, a GET form
 * into a new window), so only one whose `Referer` is a trusted origin passes: the team's page (a
 * link, its server's redirect) sends its own. A frame's navigation or a form post is not one.
 */
function topLevelVisit(method: string | undefined, headers: IncomingMessage['headers']): boolean {
  return method === 'GET' && headers['sec-fetch-mode'] === 'navigate' && headers['sec-fetch-dest'] === 'document';
}

/** What the proxy saw of a Referer, for its 403: `none`, or its origin made inert and bounded. */
function refererSeen(referer: string | undefined): string {
  if (referer === undefined) return 'none';
  return inert(originOf(referer) ?? 'not a URL', 80);
}

/**
 * Why a browser request a page of another site made is refused, or undefined. A browser says where
 * a request comes from (`Sec-Fetch-Site`; and `Origin` on a fetch or a form post, `Referer` on a
 * navigation unless its page withholds it): one from another site is refused unless its Origin, or
 * a top-level visit's Referer, is loopback (the team's own application served locally, any port)
 * or an --allow-origin. A page the developer has open elsewhere could otherwise send requests
 * through the proxy with no CORS in the way (a form post, a no-cors fetch, an image, a window it
 * opened) and put exchanges of its making into the report, judged as the team's own client. A
 * client outside a browser sends no `Sec-Fetch-Site` (the harness's CORS checks send an `Origin`
 * of their own making) and sees no change.
 */
function crossSiteRefusal(
  method: string | undefined,
  headers: IncomingMessage['headers'],
  allowOrigins: ReadonlySet<string>,
  allowNoReferer: boolean,
): string | undefined {
  const site = String(headers['sec-fetch-site'] ?? '').toLowerCase();
  // Speculation rules let a page of any site have the browser prefetch or prerender a URL unseen,
  // and Chromium marks that request `none` whoever asked (the proxy's own pages too): only the
  // Referer tells, and only a page the proxy served (its own origin, as the Host names it) may.
  if (/prefetch/i.test(String(headers['sec-purpose'] ?? headers.purpose ?? '')))
    return originOf(headers.referer) === originOf(`http://${headers.host}`)
      ? undefined
      : 'requests the browser makes ahead of a visit (prefetch, prerender) are refused unless a page the proxy served asked';
  if (site === '' || site === 'same-origin' || site === 'none') return undefined;
  const trusted = (origin: string) => loopbackOrigin(origin) || allowOrigins.has(origin.toLowerCase());
  const origin = headers.origin;
  if (origin !== undefined)
    return trusted(origin)
      ? undefined
      : 'requests from a page of another site (its Origin) are refused; --allow-origin names one to accept';
  if (topLevelVisit(method, headers)) {
    const referer = headers.referer;
    if (referer !== undefined) {
      const from = originOf(referer);
      return from !== undefined && trusted(from)
        ? undefined
        : `a visit from a page of another site (Referer: ${refererSeen(referer)}) is refused; --allow-origin names one to accept`;
    }
    // No Referer: an https page never sends one to the http proxy, and any page may withhold it.
    // Same-site to a Host that is a loopback literal or `localhost` is a loopback page (an IP's
    // site is the IP itself), trusted as its Referer would be; the rest only on the opt-in.
    const host = hostnameOf(`http://${headers.host ?? ''}`);
    if (
      allowNoReferer ||
      (site === 'same-site' && host !== undefined && (host === 'localhost' || loopbackLiteral(host)))
    )
      return undefined;
    return 'a visit from a page of another site (Referer: none) is refused; an https page never sends one to the proxy: --allow-no-referer accepts such visits';
  }
  return `requests a page of another site made (Sec-Fetch-Site: ${inert(site, 20)}) are refused`;
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const target = new URL(options.target);
  const basePath = basePathOf(target);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  // Kept alive as the run's are, guarded: an answer the target sends between two would otherwise be
  // handed to the next client's request on that connection (another client's tokens, perhaps).
  const agents = keptConnections();
  const agent = target.protocol === 'https:' ? agents['https:'] : agents['http:'];
  const max = options.maxBodyBytes ?? DEFAULT_PROXY_BODY_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROXY_TIMEOUT_MS;
  const budget: Budget = { used: 0, limit: KEPT_BODIES_BUDGET * max };
  const ownHost = hostGuard(() => server.address() as AddressInfo, options.allowHosts ?? []);
  const allowOrigins = new Set((options.allowOrigins ?? []).map((o) => o.toLowerCase()));
  const allowNoReferer = options.allowNoReferer === true;

  // Set on close: connections cut then are the proxy's doing, not their clients'.
  let closing = false;
  // Requests forwarded so far: each exchange's number (Observed.number).
  let forwarded = 0;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    res.sendDate = false;
    // The client went away first (its own timeout, a closed tab), or the proxy cut the answer.
    let clientLeft = false;
    let cut = false;
    const refuse = (status: number, text: string) => {
      if (res.writableEnded || clientLeft) return;
      if (res.headersSent) {
        cut = true;
        return void res.destroy();
      }
      // The reason phrase named: a target's that writeHead refused would otherwise stay on `res`.
      res.writeHead(status, STATUS_CODES[status], { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`idp-conformance proxy: ${text}\n`);
    };
    // Origin-form only: an absolute-form or `*` target would need a forward proxy, which this is not.
    if (!req.url?.startsWith('/')) return refuse(400, 'the request target must be a path');
    if (!ownHost(req.headers.host))
      return refuse(403, "the Host header must name the proxy's own address (or one given with --allow-host)");
    const crossSite = crossSiteRefusal(req.method, req.headers, allowOrigins, allowNoReferer);
    if (crossSite) return refuse(403, crossSite);
    const startedAt = Date.now();
    const requestBody = keep(max, budget);
    let responseBody: ReturnType<typeof keep> | undefined;
    const release = () => {
      requestBody.release();
      responseBody?.release();
    };
    let upstream: ClientRequest;
    try {
      upstream = send({
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: upstreamPath(basePath, req.url),
        headers: options.rewriteHost ? withHost(endToEnd(req.rawHeaders), target.host) : endToEnd(req.rawHeaders),
        setHost: false,
        agent,
        maxHeaderSize: MAX_HEADER_BYTES,
      });
    } catch (error) {
      release();
      return refuse(400, `cannot forward this request target (${(error as NodeJS.ErrnoException).code ?? 'invalid'})`);
    }
    const number = ++forwarded;
    // A target silent this long (no answer yet, or stalled mid-answer) releases its client:
    // a 504 when nothing was sent yet, else the connection is cut (the answer cannot be completed).
    const silent = () => {
      upstream.destroy();
      if (!res.headersSent && !clientLeft) options.onUnanswered?.(`silent ${timeoutMs} ms`);
      refuse(504, `the target did not answer within ${timeoutMs} ms`);
    };
    upstream.setTimeout(timeoutMs, silent);
    // The head, too, within that time of the request's end: headers trickled a byte at a time, or
    // 1xx answers without end (which Node reads and drops), keep the idle timer from ever firing.
    let headTimer: NodeJS.Timeout | undefined;
    let answered = false;
    // A target may answer before the request is in (a 413, an early 200): its head came already.
    upstream.on('finish', () => {
      if (!answered) headTimer = setTimeout(silent, timeoutMs);
    });
    upstream.on('close', () => {
      clearTimeout(headTimer);
      // Closed with no answer and no error (Node drops a 101 nobody asked for): the client is told.
      if (!answered) refuse(502, 'the target closed the connection without an answer');
    });
    // 103 Early Hints go on to the client as they come (a browser preloads on them), a bounded few:
    // a target sending them without end still meets the head timer above. Other 1xx are hop-by-hop.
    let hints = 0;
    upstream.on('information', (info) => {
      if (info.statusCode !== 103 || res.headersSent || clientLeft || ++hints > MAX_EARLY_HINTS) return;
      const raw = endToEnd(info.rawHeaders);
      // No prototype: a field named constructor or toString is a field, not Object's member.
      const fields = Object.create(null) as Record<string, string>;
      for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i].toLowerCase() === 'link' ? 'link' : raw[i];
        fields[name] = name in fields ? `${fields[name]}, ${raw[i + 1]}` : raw[i + 1];
      }
      try {
        res.writeEarlyHints(fields);
      } catch {
        // A Link Node will not write (not a link-value): the hint is dropped, the answer still comes.
      }
    });
    upstream.on('response', (answer) => {
      answered = true;
      clearTimeout(headTimer);
      try {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
      } catch (error) {
        // A status line Node reads but will not write (a code under 100, a control character in
        // the reason): no answer the proxy can pass on as it came, said to the client.
        upstream.destroy();
        const code = (error as NodeJS.ErrnoException).code ?? 'invalid';
        return refuse(502, `the target's status line cannot be passed on (${code})`);
      }
      responseBody = keep(max, budget);
      const copy = responseBody;
      answer.on('data', (chunk: Buffer) => copy.add(chunk));
      answer.pipe(res);
      answer.on('end', () => {
        const observed: Observed = {
          method: req.method ?? 'GET',
          target: req.url!,
          requestHeaders: headersOf(req.rawHeaders),
          requestBody: requestBody.body(),
          status: answer.statusCode ?? 0,
          responseHeaders: headersOf(answer.rawHeaders),
          responseBody: copy.body(),
          at: Date.now(),
          startedAt,
          number,
          // Requests numbered above it were sent after this answer was whole (flows.ts sentAfter).
          arrived: forwarded,
        };
        release();
        // Judging never touches the traffic: the answer is already on its way.
        setImmediate(() => {
          try {
            options.onExchange(observed);
          } catch (error) {
            options.onJudgeError?.(error);
          }
        });
      });
      answer.on('error', () => {
        cut = true;
        res.destroy();
      });
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      // The upstream request destroyed because the client left, or the proxy is closing and cut it
      // itself: nothing the target did.
      if (clientLeft || closing) return;
      // A timeout's own destroy, or an answer cut midway, is no request left unanswered here.
      if (!res.headersSent && !res.writableEnded) options.onUnanswered?.(error.code ?? 'error');
      refuse(
        502,
        untrustedCertificate(target.host, error.code ?? '') ?? `the target does not answer (${error.code ?? 'error'})`,
      );
    });
    req.on('data', (chunk: Buffer) => requestBody.add(chunk));
    req.pipe(upstream);
    // A client that goes away takes its upstream request with it.
    res.on('close', () => {
      release();
      if (res.writableFinished) return;
      if (!cut && !closing) {
        clientLeft = true;
        options.onClientLeft?.();
      }
      upstream.destroy();
    });
  };

  // Node's 16 KiB header limit would refuse requests the target takes: the simulator's own 64 KiB.
  const timeouts = { ...PROXY_CLIENT_TIMEOUTS, ...options.clientTimeouts };
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: timeouts.checkEveryMs,
    },
    handle,
  );
  server.maxConnections = options.maxConnections ?? DEFAULT_PROXY_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    keptBytes: () => budget.used,
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        server.closeAllConnections();
        server.close(() => resolve());
        agents.destroy();
      }),
  };
}
