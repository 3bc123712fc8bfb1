/**
 * Response builders. JSON goes out as `application/json` with no charset parameter, as the real
 * service sends it (some clients accept nothing else).
 *
 * Handlers answer with a Reply: status, headers and a finished body, a plain object that costs
 * nothing to build. The Fetch adapters (sim.handle, msw, supertest through it) turn it into a
 * WHATWG Response at the edge; the Node adapter writes it straight to the socket. A handler that
 * must stream (Git) may still answer a Fetch Response: an Answer is either.
 */
export type HeaderInit = Record<string, string>;

/**
 * Lowercase header names, as Fetch's Headers; `set-cookie` keeps each value apart. One flat list
 * of names and values, in the order set: an answer has a handful of headers, and a Map and the
 * list made of it for Node's writeHead cost every answer more than a scan of a few strings.
 */
export class ReplyHeaders {
  /** [name, value, name, value, …]; only set-cookie may repeat. */
  private readonly list: string[] = [];

  constructor(init: HeaderInit = {}) {
    for (const name in init) this.set(name, init[name]);
  }

  private indexOf(key: string): number {
    for (let i = 0; i < this.list.length; i += 2) if (this.list[i] === key) return i;
    return -1;
  }

  get(name: string): string | null {
    const key = name.toLowerCase();
    if (key === 'set-cookie') return this.cookies().join(', ') || null;
    const at = this.indexOf(key);
    return at < 0 ? null : this.list[at + 1];
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  set(name: string, value: string): void {
    const key = name.toLowerCase();
    if (key === 'set-cookie') this.delete(key);
    const at = key === 'set-cookie' ? -1 : this.indexOf(key);
    if (at < 0) this.list.push(key, value);
    else this.list[at + 1] = value;
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const at = key === 'set-cookie' ? -1 : this.indexOf(key);
    if (at < 0) this.list.push(key, value);
    else this.list[at + 1] = `${this.list[at + 1]}, ${value}`;
  }

  delete(name: string): void {
    const key = name.toLowerCase();
    for (let i = this.list.length - 2; i >= 0; i -= 2) if (this.list[i] === key) this.list.splice(i, 2);
  }

  getSetCookie(): string[] {
    return this.cookies();
  }

  private cookies(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.list.length; i += 2) if (this.list[i] === 'set-cookie') out.push(this.list[i + 1]);
    return out;
  }

  /** Fetch's order: every other header in the order set, then the cookies. */
  forEach(visit: (value: string, name: string) => void): void {
    for (let i = 0; i < this.list.length; i += 2)
      if (this.list[i] !== 'set-cookie') visit(this.list[i + 1], this.list[i]);
    for (const value of this.cookies()) visit(value, 'set-cookie');
  }

  /** As Fetch's Headers (which refuse a value the simulator should not build: a bug of ours). */
  toHeaders(): Headers {
    const headers = new Headers();
    this.forEach((value, name) => headers.append(name, value));
    return headers;
  }

  /** For node's writeHead: names and values in one flat list (a copy), each set-cookie its own pair. */
  toNodeList(): string[] {
    return this.list.slice();
  }
}

export class Reply {
  readonly headers: ReplyHeaders;

  constructor(
    readonly status: number,
    /** The whole body; null for none. */
    readonly body: string | Uint8Array | null,
    headers: HeaderInit = {},
  ) {
    this.headers = new ReplyHeaders(headers);
  }

  /** The same answer as a WHATWG Response (the Fetch contract of sim.handle and msw). */
  toResponse(withBody = true): Response {
    return new Response(withBody ? (this.body as BodyInit | null) : null, {
      status: this.status,
      headers: this.headers.toHeaders(),
    });
  }
}

/** What a handler or middleware answers. */
export type Answer = Reply | Response;

export function isAnswer(value: unknown): value is Answer {
  return value instanceof Reply || value instanceof Response;
}

/** The answer with some headers set (CORS, rate limit), whichever kind it is. */
export function withHeaders(answer: Answer, headers: HeaderInit): Answer {
  if (answer instanceof Reply) {
    for (const name in headers) answer.headers.set(name, headers[name]);
    return answer;
  }
  const out = new Response(answer.body, answer);
  for (const name in headers) out.headers.set(name, headers[name]);
  return out;
}

const JSON_TYPE: HeaderInit = { 'content-type': 'application/json' };

/** The Reply with `headers` set over `first` (no object spread per answer). */
function replyWith(status: number, body: string | Uint8Array | null, first: HeaderInit, headers: HeaderInit): Reply {
  const reply = new Reply(status, body, first);
  for (const name in headers) reply.headers.set(name, headers[name]);
  return reply;
}

export function json(status: number, body: unknown, headers: HeaderInit = {}): Reply {
  return replyWith(status, status === 204 ? null : JSON.stringify(body), JSON_TYPE, headers);
}

/**
 * JSON already serialised (constant documents computed once: discovery, keys, kept pages); a
 * prebuilt Buffer is written as it is, never encoded again per answer.
 */
export function jsonText(status: number, body: string | Uint8Array, headers: HeaderInit = {}): Reply {
  return replyWith(status, body, JSON_TYPE, headers);
}

export function html(status: number, body: string, headers: HeaderInit = {}): Reply {
  return new Reply(status, body, { 'content-type': 'text/html; charset=utf-8', ...headers });
}

export function text(status: number, body: string, headers: HeaderInit = {}): Reply {
  return new Reply(status, body, { 'content-type': 'text/plain; charset=utf-8', ...headers });
}

export function redirect(location: string, status = 302, headers: HeaderInit = {}): Reply {
  return new Reply(status, null, { location, ...headers });
}

/** The REST API's plain error shape: `{ "message": ... }` (404, 400, 405, 410, 414). */
export function apiError(status: number, message: string, headers: HeaderInit = {}): Reply {
  return json(status, { message }, headers);
}
