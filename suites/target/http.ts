/**
 * A target over real HTTP. node:http rather than fetch: the WHATWG URL parser would rewrite the
 * path (dot segments, some escapes), and the encoding checks need it on the wire as written.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { TargetConfig } from '../types.js';
import { createBodyBuffer } from './body-buffer.js';
import { decodeContent } from './content-coding.js';
import { keptConnections } from './kept-connections.js';
import { untrustedCertificate } from './tls.js';
import {
  createRateLimiter,
  DEFAULT_MAX_RETRY_AFTER,
  DEFAULT_RETRIES_429,
  givenUp,
  isRateLimited,
  REAL_CLOCK,
  retryWait,
  waitWithin,
  type Clock,
} from './rate.js';
import { SLOW_SHARE, TransportError, type RawRequest, type Target } from './types.js';

export interface HttpTargetOptions {
  /** Per-request timeout in milliseconds. */
  timeoutMs?: number;
  /** Requests per second (token bucket); unlimited when absent. */
  rate?: number;
  /** How often a rate-limited request is waited out and sent again before it is given up (RateLimited). */
  retries429?: number;
  /** Longest wait (Retry-After, a reset header) we sit out, in seconds; a longer one gives the request up at once. */
  maxRetryAfter?: number;
  /**
   * When the whole run must end (epoch ms, `--deadline`): no wait for the target's rate limit ends
   * past it, at start-up or in a check; one that would is given up at once (rate.ts waitWithin).
   * Each request's timeout is cut to the time left to it too (or to its own `until`): a target
   * answering every request just under --timeout took a run's start-up minutes past it.
   */
  deadline?: number;
  /**
   * Aborted when the run stops or leaves (a signal): the request under way is cut short, a later
   * one not sent, both as a TransportError coded 'deadline' (a bound of the run, not the target's silence).
   */
  abort?: AbortSignal;
  /** Where the waits pass: a test's virtual clock, so that they cost no real time. */
  clock?: Clock;
  /** Largest response body read, in bytes; a longer one fails the request (the check that sent it). */
  maxBodyBytes?: number;
  name?: string;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
/** A hostile or broken target cannot make the harness hold more than this per response. */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
/**
 * Response header bytes read per answer (node's maxHeaderSize): Link headers echo long URLs
 * several times over (Node's default is 16 KiB), and a hostile target cannot make the harness
 * hold more. An answer past it fails the request that got it.
 */
export const MAX_RESPONSE_HEADER_BYTES = 256 * 1024;
/** How much of a path an error message quotes. */
const PATH_IN_MESSAGE = 120;
export { BACKOFF_SECONDS, DEFAULT_MAX_RETRY_AFTER, DEFAULT_RETRIES_429 } from './rate.js';

const shownPath = (path: string) =>
  path.length > PATH_IN_MESSAGE ? `${path.slice(0, PATH_IN_MESSAGE)}… (${path.length} bytes)` : path;
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

const bytes = (n: number) =>
  n >= 1024 * 1024 && n % (1024 * 1024) === 0
    ? `${n / (1024 * 1024)} MiB`
    : n >= 1024 && n % 1024 === 0
      ? `${n / 1024} KiB`
      : `${n} bytes`;

/** Split an absolute URL without parsing its path: `http://h:1/a%2Fb/../c?x` → origin + raw path. */
export function splitUrl(url: string): { protocol: 'http:' | 'https:'; host: string; path: string } {
  const m = /^(https?):\/\/([^/?#]+)([^#]*)/i.exec(url);
  if (!m) throw new TransportError(`not an http(s) URL: ${url}`, 'protocol');
  // Only what cannot travel in a request line is escaped (space, controls, non-ASCII).
  const path = (m[3] || '/').replace(/[^\u0021-\u007e]+/gu, (s) => encodeURIComponent(s));
  return {
    protocol: `${m[1].toLowerCase()}:` as 'http:' | 'https:',
    host: m[2],
    path: path.startsWith('/') ? path : '/' + path,
  };
}

/** `decoded`: the body is its content coding undone, and the headers say so (no Content-Encoding, no stale length). */
function toResponse(res: IncomingMessage, body: Buffer, decoded = false): Response {
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    try {
      headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
    } catch {
      /* a header value fetch cannot hold; the checks never rely on such */
    }
  }
  if (decoded) for (const name of ['content-encoding', 'content-length']) headers.delete(name);
  const status = res.statusCode ?? 502;
  // The Buffer itself, not a copy: a body may be --max-body long. No statusText: nothing reads the
  // reason phrase, and Fetch throws on one with control characters, which Node's parser lets in.
  return new Response(NULL_BODY.has(status) ? null : (body as Uint8Array<ArrayBuffer>), { status, headers });
}

/**
 * A kept-alive connection the target closed as it sat idle, reset as the request went out on it:
 * sent once more on a fresh connection (as browsers do, and as Node's documentation advises), when
 * a repeat cannot apply anything twice (resendable); any other reset is the target's answer.
 */
class StaleConnection extends TransportError {}

/** Methods that ask nothing of the target but an answer (RFC 9110 §9.2.1): sent twice, nothing changes. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/**
 * Whether a request a kept-alive connection reset under it, before any answer, may go out again
 * (RFC 9110 §9.2.2: not a non-idempotent one unless it is known never applied). A safe method may.
 * Any other only when the write itself failed, the connection already reset (EPIPE, ECONNRESET on
 * write): its bytes never reached the target whole, so no complete request was there to apply. A
 * reset read after the request went out (or the connection closed, Node's "socket hang up") may
 * follow the target applying it: a token request redeemed its code, a refresh rotated its token, a
 * revocation revoked; sent again, the target would refuse it rightly, and a rule be blamed for it.
 */
export function resendable(method: string, error: { code?: string; syscall?: string }): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  return error.syscall === 'write' && (error.code === 'EPIPE' || error.code === 'ECONNRESET');
}

/**
 * A device poll answered slow_down under 429 (RFC 8628 §3.5; Auth0 sends it so, and a 429 may
 * carry Retry-After): the provider's answer to that poll, which it counted and which grew the
 * interval, not its rate limiter's refusal. Repeating the poll would be a new poll, too fast again.
 */
async function isSlowDown(response: Response): Promise<boolean> {
  try {
    const body = JSON.parse(await response.clone().text()) as { error?: unknown } | null;
    return body?.error === 'slow_down';
  } catch {
    return false;
  }
}

/** A request the run's --deadline (or its own `until`) cut short: no verdict on the target's pace. */
const pastDeadline = (where: string, what: string) =>
  new TransportError(`${where}: ${what} before the run's --deadline`, 'deadline');
/** A request the run's interruption cut short: no verdict on the target either. */
const interrupted = (where: string, what: string) =>
  new TransportError(`${where}: ${what}: the run was interrupted`, 'deadline');

export function createHttpTarget(config: TargetConfig, options: HttpTargetOptions = {}): Target {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const clock = options.clock ?? REAL_CLOCK;
  const limiter = createRateLimiter(options.rate, clock.now, clock.sleep, options.abort);
  const retries = options.retries429 ?? DEFAULT_RETRIES_429;
  const maxWait = options.maxRetryAfter ?? DEFAULT_MAX_RETRY_AFTER;
  // The last answer that was a rate limit, for rateLimitHold.
  let lastRefused = '';
  const slow = { inARow: 0, total: 0, timeoutMs };
  const agents = keptConnections();

  const once = (raw: RawRequest, fresh = false): Promise<Response> => {
    const { protocol, host, path } = splitUrl(raw.url);
    const headers: Record<string, string | string[]> = {};
    raw.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = raw.body === undefined ? undefined : Buffer.from(raw.body, 'utf8');
    if (body) headers['content-length'] = String(body.length);
    const [hostname, port] = host.startsWith('[')
      ? [host.slice(1, host.indexOf(']')), host.split(']:')[1]]
      : host.split(':');
    const send = protocol === 'https:' ? httpsRequest : httpRequest;
    const shown = shownPath(path);
    const broken = (what: string) => new TransportError(`${raw.method} ${shown}: ${host} ${what}`, 'protocol');
    const UNASKED_UPGRADE = 'answered 101 Switching Protocols, an upgrade the request did not ask for';
    const until = raw.until ?? options.deadline;
    const left = until === undefined ? Infinity : until - Date.now();
    if (left <= 0) return Promise.reject(pastDeadline(`${raw.method} ${shown}`, 'was not sent'));
    const { abort } = options;
    if (abort?.aborted || raw.stop?.aborted) return Promise.reject(interrupted(`${raw.method} ${shown}`, 'not sent'));
    const waitMs = Math.min(timeoutMs, left);
    return new Promise<Response>((resolve, reject) => {
      let answered = false;
      const req = send(
        {
          protocol,
          hostname,
          port: port ? Number(port) : undefined,
          method: raw.method,
          path,
          headers,
          // The retry of a stale connection opens its own: every kept one may have gone stale at once.
          agent: fresh ? false : agents[protocol],
          maxHeaderSize: MAX_RESPONSE_HEADER_BYTES,
        },
        (res) => {
          answered = true;
          // Three digits Node reads, but no status (RFC 9110 §15): Fetch cannot hold it, no check can read it.
          const status = res.statusCode ?? 0;
          if (status < 100 || status > 599) {
            reject(broken(`answered status ${String(status).padStart(3, '0')}, which is no HTTP status (100-599)`));
            return void req.destroy();
          }
          // A 101 without the Upgrade header comes here: its body never ends, nor does the connection say so.
          if (status === 101) {
            reject(broken(UNASKED_UPGRADE));
            return void req.destroy();
          }
          // Refused before reading when announced too long; cut off as soon as the count passes the cap.
          const tooLarge = (what: string) => {
            const error = new TransportError(
              `${raw.method} ${shown}: ${what}, more than the ${bytes(maxBody)} a response may have (--max-body)`,
              'too-large',
            );
            // Destroyed without the error: one given here would be thrown again, unhandled, by the socket.
            reject(error);
            req.destroy();
          };
          const announced = Number(res.headers['content-length']);
          if (Number.isFinite(announced) && announced > maxBody)
            return tooLarge(`the answer announced a body of ${announced} bytes`);
          // Copied as it comes: a body in one-byte chunks would otherwise be a Buffer object per byte.
          const received = createBodyBuffer();
          res.on('data', (c: Buffer) => {
            if (received.size + c.length > maxBody)
              return tooLarge(`the body went on past ${received.size + c.length} bytes`);
            received.add(c);
          });
          res.on('end', () => {
            const body = received.bytes();
            const coding = res.headers['content-encoding'];
            if (!coding || !body.length) return resolve(toResponse(res, body));
            // Undone as a browser would, within the same bound; one it cannot undo stays as sent
            // (the checks then read it as it is, and say which coding it was: runner/http.ts).
            const decoded = decodeContent(coding, body, maxBody);
            if (decoded.ok) return resolve(toResponse(res, decoded.body, true));
            if (decoded.why === 'too-large')
              return tooLarge(`the body (Content-Encoding: ${coding.slice(0, 40)}) decoded past ${bytes(maxBody)}`);
            resolve(toResponse(res, body));
          });
          res.on('error', (e) => {
            // Node says only "aborted" of an answer whose connection closed before its end.
            if (e.message !== 'aborted')
              return reject(new TransportError(`${raw.method} ${shown}: ${e.message}`, 'protocol'));
            const of = Number.isFinite(announced) ? ` of the ${announced} it announced` : '';
            reject(broken(`closed the connection before the answer ended (${received.size} bytes${of})`));
          });
        },
      );
      // The whole exchange, not the silence between bytes: a target trickling a byte at a time
      // (headers or body) would otherwise hold the run forever.
      const timer = setTimeout(() => {
        if (waitMs < timeoutMs)
          return req.destroy(
            pastDeadline(`${raw.method} ${shown}`, answered ? 'got no whole answer' : 'got no answer'),
          );
        const what = answered ? `the answer did not end within ${timeoutMs} ms` : `no answer within ${timeoutMs} ms`;
        req.destroy(new TransportError(`${raw.method} ${shown}: ${what}`, 'timeout'));
      }, waitMs);
      const onAbort = () =>
        req.destroy(interrupted(`${raw.method} ${shown}`, answered ? 'got no whole answer' : 'got no answer'));
      abort?.addEventListener('abort', onAbort, { once: true });
      // An unasked 101 hands the connection over and answers nothing: Node would close it in silence.
      req.on('upgrade', (_res, socket: Socket) => {
        socket.destroy();
        reject(broken(UNASKED_UPGRADE));
      });
      req.once('close', () => {
        clearTimeout(timer);
        abort?.removeEventListener('abort', onAbort);
        // Whatever else ends an exchange without a word ends it here (an error, if any, said it first).
        // An answer begun and never ended is said too: its timer is gone with the connection.
        setImmediate(() =>
          reject(
            broken(
              answered ? 'closed the connection before the answer ended' : 'closed the connection without an answer',
            ),
          ),
        );
      });
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (e instanceof TransportError) return reject(e);
        const code = e.code ?? '';
        if ((code === 'ECONNRESET' || code === 'EPIPE') && req.reusedSocket && !answered) {
          if (resendable(raw.method, e))
            return reject(
              new StaleConnection(`${raw.method} ${shown}: ${host} closed a kept-alive connection`, 'unreachable'),
            );
          // No answer, as a reset on a fresh connection is none (session.ts counts it toward silence);
          // yet it may have done what was asked: a broken exchange, no rule's answer.
          return reject(
            new TransportError(
              `${raw.method} ${shown}: ${host} closed the connection without an answer once the request had gone out; not sent again, as the provider may have applied it`,
              'unreachable',
            ),
          );
        }
        if (code === 'HPE_HEADER_OVERFLOW')
          return reject(
            new TransportError(
              `${raw.method} ${shown}: the answer's headers went past the ${bytes(MAX_RESPONSE_HEADER_BYTES)} a response may have`,
              'too-large',
            ),
          );
        const untrusted = untrustedCertificate(host, code);
        if (untrusted) return reject(new TransportError(`${raw.method} ${shown}: ${untrusted}`, 'untrusted'));
        const unreachable = [
          'ECONNREFUSED',
          'ENOTFOUND',
          'EHOSTUNREACH',
          'ENETUNREACH',
          'EAI_AGAIN',
          'ECONNRESET',
        ].includes(code);
        // Node's HTTP parser names what it could not read (HPE_INVALID_CONTENT_LENGTH, ...).
        const what = unreachable ? 'is unreachable' : code.startsWith('HPE_') ? 'answered no valid HTTP' : 'failed';
        reject(
          new TransportError(
            `${raw.method} ${shown}: ${host} ${what} (${code || e.message})`,
            unreachable ? 'unreachable' : 'protocol',
          ),
        );
      });
      req.end(body);
    });
  };

  return {
    kind: 'http',
    name: options.name ?? config.baseUrl,
    baseUrl: config.baseUrl.replace(/(?<!\/)\/+$/, ''),
    config,
    timeoutMs,
    slowAnswers: () => ({ ...slow }),
    rateLimitHold() {
      const ms = limiter.pausedFor();
      return ms > 0 ? `${lastRefused}; requests held ${Math.ceil(ms / 1000)} s more` : undefined;
    },
    /**
     * A rate-limited answer (rate.ts isRateLimited) is the provider declining to serve us now, no
     * answer to the question the request asked: it is waited out (the wait it names, else
     * BACKOFF_SECONDS) and sent again, and still refused after `retries`, or asking a wait past
     * `maxWait` (retrying sooner is pointless), it is given up as a TransportError 'rate-limited':
     * the check that sent it is errored with that line, none of its rules is judged on it.
     */
    async send(raw) {
      let waited = 0;
      for (let attempt = 0; ; attempt++) {
        await limiter.take(raw.stop);
        // Timed from the send, after --rate's wait: the target's own pace, as --timeout bounds it.
        const sent = performance.now();
        const response = await once(raw).catch((error: unknown) => {
          if (error instanceof StaleConnection) return once(raw, true);
          throw error;
        });
        if (performance.now() - sent < SLOW_SHARE * timeoutMs) slow.inARow = 0;
        else {
          slow.inARow++;
          slow.total++;
        }
        if (!isRateLimited(response.status, response.headers) || (await isSlowDown(response))) return response;
        const where = `${raw.method} ${shownPath(splitUrl(raw.url).path)}`;
        lastRefused = `${where} answered ${response.status}`;
        // Never past --deadline: the start-up's requests and revocation have no check's limit to cut them short.
        const bound = options.deadline === undefined ? maxWait : waitWithin(maxWait, options.deadline - clock.now());
        const { asked, wait } = retryWait(response.headers, attempt, bound, clock.now);
        // The server speaks for every request: what it names holds the others too, even as this one is given up.
        if (wait <= bound && (asked !== null || attempt < retries)) limiter.pause(wait);
        if (attempt < retries && wait <= bound) {
          waited += wait;
          continue;
        }
        throw givenUp(where, response.status, { attempt, waited, wait, maxWait: bound, asked });
      }
    },
    async close() {
      agents.destroy();
    },
  };
}
