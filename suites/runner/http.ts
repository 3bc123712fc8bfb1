/**
 * The Http of suites/types.ts over a Target. Builds requests exactly as written, and records every
 * exchange (secrets redacted) so a failure can show the last ones.
 */
import type { Exchange } from '../report/model.js';
import type { FollowOptions, Http, HttpRequest, HttpResponse } from '../types.js';
import { TransportError, type RawRequest, type Target, type TargetResponse } from '../target/types.js';
import { originGuard } from '../target/origin.js';
import { codings } from '../target/content-coding.js';
import { MAX_JSON_DEPTH, tooDeep } from '../report/json-depth.js';
import {
  BrokenExchange,
  CheckFailure,
  DeadlineCut,
  HarnessError,
  NoAnswer,
  OversizedAnswer,
  RateLimited,
} from './errors.js';
import { keep, type Redactor } from './redact.js';
import { answersJson, JSON_ACCEPT } from '../shared/oauth.js';

/** Exchanges kept per check: the failure is nearly always in the last few. */
export const EXCHANGES_KEPT = 6;

export interface Recorder {
  readonly exchanges: Exchange[];
  /** Exchanges recorded since the last clear(), including those no longer kept. */
  readonly count: number;
  /** While false nothing is recorded (the runner's own housekeeping). */
  enabled: boolean;
  clear(): void;
  add(exchange: Exchange): void;
}

/**
 * `accepts` may turn an exchange away (one from a check that already ended); `tap` sees every
 * exchange recorded, kept or not (`diff` normalises each one as it comes; values are raw there).
 */
export function createRecorder(
  limit = EXCHANGES_KEPT,
  accepts: () => boolean = () => true,
  tap?: (exchange: Exchange) => void,
): Recorder {
  const exchanges: Exchange[] = [];
  let count = 0;
  return {
    exchanges,
    get count() {
      return count;
    },
    enabled: true,
    clear() {
      exchanges.splice(0);
      count = 0;
    },
    add(exchange) {
      if (!this.enabled || !accepts()) return;
      count++;
      tap?.(exchange);
      // One in, at most one out: the recorder never holds more than `limit`, each cut to RECORD_LIMIT.
      exchanges.push(keep(exchange));
      if (exchanges.length > limit) exchanges.shift();
    },
  };
}

function appendQuery(path: string, query: HttpRequest['query']): string {
  if (!query) return path;
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value])
      parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(v))}`);
  }
  if (!parts.length) return path;
  return path + (path.includes('?') ? '&' : '?') + parts.join('&');
}

/**
 * The `user:password` of an HTTP Basic client credential, each form-encoded first (RFC 6749
 * §2.3.1): a secret in standard base64 keeps its `+`, which a provider decoding as the RFC says
 * would otherwise read as a space. Unreserved characters are unchanged, so most secrets are sent
 * as they are.
 */
export const basicPair = (user: string, password: string) =>
  `${encodeURIComponent(user).replace(/%20/g, '+')}:${encodeURIComponent(password).replace(/%20/g, '+')}`;

function formBody(form: NonNullable<HttpRequest['form']>): string {
  if (form instanceof URLSearchParams) return form.toString();
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) if (v !== undefined) params.append(k, v);
  return params.toString();
}

/** Sees every exchange after it happened (the session adopts token responses for revocation). */
export type Observer = (request: RawRequest, response: HttpResponse) => void;

/**
 * `gate` is asked before every request and may throw (or reject) to refuse it (the run was interrupted).
 */
export function createHttp(
  target: Target,
  recorder: Recorder,
  redactor: Redactor,
  observe?: Observer,
  /** Asked before each request leaves; it may throw (the run stopped, an endpoint known absent). */
  gate?: (raw: RawRequest) => void | Promise<void>,
  /** Source path → URL on a trusted origin where discovery puts that endpoint (runner/endpoints.ts). */
  routes?: ReadonlyMap<string, string>,
): Http {
  const baseUrl = target.baseUrl;
  const leaves = originGuard(baseUrl, target.config.trustedOrigins);

  const exchange = async (
    raw: RawRequest,
    display: string,
    leaving?: FollowOptions['leaving'],
    endpoint?: string,
  ): Promise<HttpResponse> => {
    // Awaited only when it asks something first (session.ts: a question elsewhere before a skip).
    const asking = gate?.(raw);
    if (asking) await asking;
    // The one place a request leaves: off the target's origin nothing is sent, credentials or not.
    const why = leaves(raw.url);
    if (why) {
      const what = leaving?.what ?? `${raw.method} ${redactor.url(raw.url)}`;
      const message = `${what} ${why}: nothing was sent there`;
      if (leaving?.rules?.length)
        throw new CheckFailure(message, { link: redactor.url(raw.url), rules: leaving.rules });
      const hint = why.startsWith('leaves') ? " (trustedOrigins lists the provider's other origins)" : '';
      throw new HarnessError(message + hint);
    }
    // Recorded raw and masked only when shown (Redactor.exchange); secrets are learned right away.
    const record: Exchange = {
      request: {
        method: raw.method,
        url: display,
        headers: Object.fromEntries(raw.headers),
        ...(raw.body !== undefined ? { body: raw.body } : {}),
      },
    };
    let response: TargetResponse;
    try {
      response = await target.send(raw);
    } catch (error) {
      redactor.learn(record);
      recorder.add(record);
      // A timeout, a request the target would not serve now, an answer that is no HTTP or a connection
      // gone: none says anything about the rule the request was for. An answer past the harness's
      // limits did come, and is the check's failure.
      if (error instanceof TransportError) {
        const message = redactor.text(error.message);
        if (error.code === 'timeout') throw new NoAnswer(message);
        if (error.code === 'rate-limited' || error.code === 'unserved') throw new RateLimited(message, error.status);
        if (error.code === 'deadline') throw new DeadlineCut(message);
        if (error.code === 'too-large')
          throw new OversizedAnswer(message, raw.method, raw.url, formGrant(raw.body) ?? undefined);
        throw new BrokenExchange(message);
      }
      throw error;
    }
    const text = await response.text();
    const responseHeaders: Record<string, string> = Object.fromEntries(response.headers);
    const cookies = response.headers.getSetCookie();
    if (cookies.length) responseHeaders['set-cookie'] = cookies.join('\n');
    record.response = { status: response.status, headers: responseHeaders, ...(text ? { body: text } : {}) };
    redactor.learn(record);
    recorder.add(record);
    const grant = formGrant(raw.body);
    // Refused here, for every check alike: nothing downstream (schemas, comparisons, redaction) walks
    // it. Past the harness's limits as an answer past --max-body is, and said as one (review 28).
    if (tooDeep(text, response.headers.get('content-type') ?? ''))
      throw new OversizedAnswer(
        `${raw.method} ${redactor.url(display)} answered ${response.status} with JSON nested deeper than ${MAX_JSON_DEPTH} levels, the most the harness reads`,
        raw.method,
        raw.url,
        grant ?? undefined,
      );
    let parsed: { ok: true; value: unknown } | { ok: false } | undefined;
    const result: HttpResponse = {
      status: response.status,
      headers: response.headers,
      text,
      url: display,
      ...(endpoint !== undefined ? { endpoint } : {}),
      ...(grant !== null ? { grant } : {}),
      json<T>(): T {
        parsed ??= (() => {
          try {
            return { ok: true as const, value: JSON.parse(text) as unknown };
          } catch {
            // Stryker disable next-line ObjectLiteral: `{}` reads as not ok just the same
            return { ok: false as const };
          }
        })();
        if (!parsed.ok) {
          // A body still in a content coding (one the HTTP target could not undo) reads as noise: say why.
          const encoding = response.headers.get('content-encoding');
          const hint = codings(encoding).length
            ? ` (it is Content-Encoding: ${encoding!.slice(0, 40)}, which the harness could not decode)`
            : '';
          throw new CheckFailure(
            `${raw.method} ${redactor.url(display)} answered ${response.status} with a body that is not JSON${hint}`,
            {
              contentType: response.headers.get('content-type'),
              body: redactor.text(text.slice(0, 200)),
            },
          );
        }
        return parsed.value as T;
      },
    };
    observe?.(raw, result);
    return result;
  };

  /** `path`: relative to the base URL, when the request goes to one the spec names (send, not follow). */
  const build = (request: Omit<HttpRequest, 'path'>, url: string, path?: string): RawRequest => {
    const headers = new Headers();
    const method = (
      request.method ?? (request.form !== undefined || request.json !== undefined ? 'POST' : 'GET')
    ).toUpperCase();
    // The one place OAuth requests are dressed as clients send them: Accept JSON where JSON answers.
    if (path !== undefined && answersJson(method, path)) headers.set('accept', JSON_ACCEPT);
    let body: string | undefined;
    if (request.form !== undefined) {
      headers.set('content-type', 'application/x-www-form-urlencoded');
      body = formBody(request.form);
    } else if (request.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(request.json);
    }
    if (request.bearer !== undefined) {
      redactor.remember(request.bearer);
      headers.set('authorization', `Bearer ${request.bearer}`);
    }
    const basic = request.clientBasic ?? request.basic;
    if (basic) {
      redactor.remember(basic.password);
      const pair = request.clientBasic ? basicPair(basic.user, basic.password) : `${basic.user}:${basic.password}`;
      // Encoded, the secret is another string: its forms are masked too.
      redactor.remember(pair.slice(pair.indexOf(':') + 1));
      headers.set('authorization', `Basic ${Buffer.from(pair).toString('base64')}`);
    }
    // Explicit headers win: a check may send a malformed Authorization on purpose, or none of Accept (undefined).
    for (const [k, v] of Object.entries(request.headers ?? {})) {
      if (v === undefined) headers.delete(k);
      else headers.set(k, v);
    }
    return {
      method,
      url: appendQuery(url, request.query),
      headers,
      body,
    };
  };

  const urlOf = (path: string) => {
    const [pathname, query] = path.split(/\?(.*)/s);
    const routed = routes?.get(pathname);
    return routed === undefined
      ? baseUrl + path
      : query
        ? `${routed}${routed.includes('?') ? '&' : '?'}${query}`
        : routed;
  };

  const send = (request: HttpRequest) => {
    const path = request.path.startsWith('/') ? request.path : `/${request.path}`;
    const raw = build(request, urlOf(path), path);
    return exchange(raw, raw.url, undefined, path.split('?')[0]);
  };

  return {
    baseUrl,
    urlOf,
    send,
    get: (path, options = {}) => send({ ...options, path, method: 'GET' }),
    post: (path, options = {}) => send({ ...options, path, method: 'POST' }),
    follow(absoluteUrl, { leaving, ...options } = {}) {
      // A relative reference is taken against the base URL, never guessed further.
      const url = /^https?:\/\//i.test(absoluteUrl)
        ? absoluteUrl
        : baseUrl + (absoluteUrl.startsWith('/') ? '' : '/') + absoluteUrl;
      const raw = build(options, url);
      return exchange(raw, raw.url, leaving);
    },
    leaves,
    record(entry) {
      redactor.learn(entry);
      recorder.add(entry);
    },
  };
}

/** The grant_type of a form body, if the body is a form that names one (never throws). */
function formGrant(body: string | undefined): string | null {
  return body?.includes('grant_type=') ? new URLSearchParams(body).get('grant_type') : null;
}
