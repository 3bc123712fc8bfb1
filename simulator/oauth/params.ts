/**
 * Parameters of an OAuth request, from a form-encoded or JSON body (or the query for GET).
 * RFC 6749 §3.1-3.2: a parameter sent more than once, or a body we cannot read, is invalid_request.
 */
import type { Ctx, ParsedBody } from '../types.js';
import { InvalidRequest } from './errors.js';

export type Params = ReadonlyMap<string, string>;

function fromSearch(search: URLSearchParams): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of search) {
    if (out.has(key)) throw InvalidRequest(`The parameter ${key} was sent more than once`);
    out.set(key, value);
  }
  return out;
}

/**
 * One name or value of a form body: `+` is a space, then percent-decoding (WHATWG URL §5.1);
 * undefined where that is malformed (a stray `%`, bytes that are not UTF-8).
 */
export function formDecode(text: string): string | undefined {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/**
 * Characters the form reader's searches for `&` and `=` have passed over, counted where they pass
 * them (the test of its linearity reads it: a count, not a clock).
 */
export const formReading = { scanned: 0 };

/** Where `c` is in `text` from `from` (the end when it is not), counted in formReading. */
function search(text: string, c: string, from: number): number {
  const at = text.indexOf(c, from);
  const end = at < 0 ? text.length : at;
  formReading.scanned += end - from;
  return end;
}

/**
 * An application/x-www-form-urlencoded body straight into parameters, as URLSearchParams reads it
 * (sequences split at `&`, empty ones skipped, a name without `=` has the empty value) but without
 * building it: the token endpoint reads every request this way. Undefined where a name or value
 * needs URLSearchParams' lenient decoding (it keeps a stray `%`, replaces bytes that are not UTF-8).
 * Linear: each `&` and `=` is searched for once (a body of names without `=` made a search per
 * sequence run to the end: 150 ms for 256 KiB).
 */
function fromFormText(text: string): Map<string, string> | undefined {
  const out = new Map<string, string>();
  let eq = -1;
  for (let start = 0; start < text.length;) {
    const end = search(text, '&', start);
    if (end > start) {
      if (eq < start) eq = search(text, '=', start);
      const cut = eq < end ? eq : end;
      const key = formDecode(text.slice(start, cut));
      const value = cut < end ? formDecode(text.slice(cut + 1, end)) : '';
      if (key === undefined || value === undefined) return undefined;
      if (out.has(key)) throw InvalidRequest(`The parameter ${key} was sent more than once`);
      out.set(key, value);
    }
    start = end + 1;
  }
  return out;
}

/** The parameters of a parsed body (RFC 6749 §3.1-3.2's reading of every kind). */
function paramsOf(body: ParsedBody): Params {
  switch (body.kind) {
    case 'none':
      return new Map();
    case 'invalid':
      throw InvalidRequest(`The request body could not be read: ${body.reason}`);
    case 'form':
      return (body.text === undefined ? undefined : fromFormText(body.text)) ?? fromSearch(body.form);
    case 'json': {
      if (typeof body.json !== 'object' || body.json === null || Array.isArray(body.json)) {
        throw InvalidRequest('A JSON body must be an object of parameters');
      }
      const out = new Map<string, string>();
      for (const [key, value] of Object.entries(body.json)) {
        if (typeof value === 'string') out.set(key, value);
        else if (typeof value === 'number' || typeof value === 'boolean') out.set(key, String(value));
        else if (value !== null) throw InvalidRequest(`The parameter ${key} must be a string`);
      }
      return out;
    }
  }
}

export async function bodyParams(ctx: Ctx): Promise<Params> {
  return paramsOf(await ctx.body());
}

/**
 * `use` of the body's parameters: at once when the body is at hand (ctx.bodyNow: the Node
 * adapter), so a handler built on it answers without a promise; else once the body is read.
 */
export function withBodyParams<T>(ctx: Ctx, use: (params: Params) => T | Promise<T>): T | Promise<T> {
  const now = ctx.bodyNow?.();
  return now ? use(paramsOf(now)) : bodyParams(ctx).then(use);
}

export function queryParams(ctx: Ctx): Params {
  return fromSearch(ctx.query);
}

/** A parameter that must be present and non-empty. */
export function required(params: Params, name: string): string {
  const value = params.get(name);
  if (value === undefined || value === '') throw InvalidRequest(`The parameter ${name} is missing`);
  return value;
}
