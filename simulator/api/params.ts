/**
 * Request parameters the way the REST API reads them: query string and body merged into one
 * nested value. Bracket names follow the Rack conventions the source describes:
 *   name=v            -> { name: 'v' }
 *   name[]=a&name[]=b -> { name: ['a', 'b'] }
 *   name[key]=v       -> { name: { key: 'v' } }
 *   name[0][key]=v    -> { name: [{ key: 'v' }] }   (an object whose keys are all indexes is an array)
 *   name[][key]=v     -> { name: [{ key: 'v' }] }   (a repeated key starts the next hash)
 * A JSON body (Content-Type application/json) gives the same shapes directly.
 */
import type { Ctx } from '../types.js';
import { ApiError } from '../errors.js';

export type Value = string | boolean | number | null | Value[] | { [key: string]: Value };
export type Params = Record<string, Value>;

/** A parameter the REST API cannot read: 400 `{message}` naming it. */
export class ParamError extends ApiError {
  constructor(message: string) {
    super(400, message);
  }
}

const MAX_DEPTH = 8;

function splitName(name: string): string[] {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
  if (!m) return [name];
  const keys = [m[1]];
  for (const part of m[2].matchAll(/\[([^[\]]*)\]/g)) keys.push(part[1]);
  if (keys.length > MAX_DEPTH) throw new ParamError(`${m[1]} is nested too deeply`);
  return keys;
}

function isHash(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function assign(target: Record<string, unknown>, keys: string[], value: string, full: string): void {
  const [head, ...rest] = keys;
  if (rest.length === 0) {
    if (head in target && typeof target[head] !== 'string')
      throw new ParamError(`${full} conflicts with another parameter of the same name`);
    target[head] = value;
    return;
  }
  const [next, ...after] = rest;
  if (next === '') {
    // name[] or name[][key]
    const list = (target[head] ??= []) as unknown[];
    if (!Array.isArray(list)) throw new ParamError(`${full} conflicts with another parameter of the same name`);
    if (after.length === 0) {
      list.push(value);
      return;
    }
    let last = list[list.length - 1] as Record<string, unknown> | undefined;
    // Rack: a key already present in the last hash starts a new hash
    if (!isHash(last) || hasPath(last, after)) list.push((last = {}));
    assign(last, after, value, full);
    return;
  }
  const hash = (target[head] ??= {}) as Record<string, unknown>;
  if (!isHash(hash)) throw new ParamError(`${full} conflicts with another parameter of the same name`);
  assign(hash, rest, value, full);
}

function hasPath(hash: Record<string, unknown>, keys: string[]): boolean {
  const [head, ...rest] = keys;
  if (!(head in hash)) return false;
  if (rest.length === 0 || rest[0] === '') return true;
  return isHash(hash[head]) && hasPath(hash[head], rest);
}

/** Objects keyed only by indexes (name[0][key]) become arrays ordered by index. */
function normalize(value: unknown): Value {
  if (Array.isArray(value)) return value.map(normalize);
  if (isHash(value)) {
    const keys = Object.keys(value);
    if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
      return keys.sort((a, b) => Number(a) - Number(b)).map((k) => normalize(value[k]));
    }
    const out: Record<string, Value> = {};
    for (const k of keys) out[k] = normalize(value[k]);
    return out;
  }
  return value as Value;
}

/** Flat name/value pairs (a query string or a form) into nested parameters. */
export function parsePairs(pairs: Iterable<[string, string]>): Params {
  const root: Record<string, unknown> = {};
  for (const [name, value] of pairs) assign(root, splitName(name), value, name);
  return normalize(root) as Params;
}

/**
 * The query string as the service reads it: `+` is a space and `%2B` a plus. With the fault
 * `plus-read-as-plus` a bare `+` stays a plus, the mistake clients make when they skip %2B.
 */
export function queryPairs(ctx: Ctx): [string, string][] {
  if (!ctx.sim.fault('plus-read-as-plus')) return [...ctx.query];
  const raw = ctx.url.search.slice(1);
  if (!raw) return [];
  return raw
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const cut = pair.indexOf('=');
      const [k, v] = cut < 0 ? [pair, ''] : [pair.slice(0, cut), pair.slice(cut + 1)];
      const decode = (s: string) => {
        try {
          return decodeURIComponent(s);
        } catch {
          return s;
        }
      };
      return [decode(k), decode(v)];
    });
}

/** Query and body merged (the body wins on a clash, as in the real service). */
export async function readParams(ctx: Ctx): Promise<Params> {
  const query = parsePairs(queryPairs(ctx));
  const body = await ctx.body();
  if (body.kind === 'invalid') throw new ParamError(body.reason);
  if (body.kind === 'form') return { ...query, ...parsePairs(body.form) };
  if (body.kind === 'json') {
    if (!isHash(body.json)) throw new ParamError('a JSON body must be an object');
    return { ...query, ...(body.json as Params) };
  }
  return query;
}

export function str(params: Params, name: string): string | undefined {
  const v = params[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'object') throw new ParamError(`${name} is invalid`);
  return String(v);
}

/** Boolean arguments accept only true or false (JSON booleans or the strings). */
export function bool(params: Params, name: string): boolean | undefined {
  const v = params[name];
  if (v === undefined) return undefined;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw new ParamError(`${name} is invalid: a boolean argument must be true or false`);
}

/** A list argument: name[]=a&name[]=b, a JSON array, or the comma-separated form. */
export function list(params: Params, name: string): string[] | undefined {
  const v = params[name];
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) {
    if (v.some((x) => typeof x === 'object' && x !== null)) throw new ParamError(`${name} must be a list of strings`);
    return v.map(String);
  }
  if (typeof v === 'object') throw new ParamError(`${name} must be a list`);
  return String(v)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** An array of hashes: name[0][key]=v, name[][key]=v, or a JSON array of objects. */
export function hashes(params: Params, name: string): Record<string, Value>[] | undefined {
  const v = params[name];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => !isHash(x))) throw new ParamError(`${name} must be an array of hashes`);
  return v as Record<string, Value>[];
}

/** A hash: name[key]=v or a JSON object. */
export function hash(params: Params, name: string): Record<string, Value> | undefined {
  const v = params[name];
  if (v === undefined || v === null) return undefined;
  if (!isHash(v)) throw new ParamError(`${name} must be a hash`);
  return v;
}
