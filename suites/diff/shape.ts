/**
 * One exchange reduced to what a diff compares: its operation, status, OAuth error code, the shape
 * of its JSON body (member paths and types), a few headers, and where a redirect points. Tokens,
 * codes, ids, timestamps, cookies and CSRF values are dropped here, as they come: what is kept is
 * bounded and holds no value the spec does not list (vocabulary.ts). The names it keeps are the
 * target's to choose (members, cookies, Vary entries, challenge and query parameters, path
 * segments), and a target may echo a credential as one (review 24: `$.glpat-…`): each goes through
 * the run's redactor (`Mask`), as every text `run` reports does, so it is safe to report. Masking,
 * not a list of the names the spec knows: a member or header nobody documents is what a diff is for.
 */
import type { Exchange } from '../report/model.js';
import { conformsToSpec } from './conforms.js';
import { paginationShape } from './pagination.js';
import { operationOf } from './operation.js';
import { isVocabulary } from './vocabulary.js';
import { own } from '../shared/own.js';
import { paginationOnly, parseLinkHeader } from '../pagination/links.js';

export interface ExchangeShape {
  operation: string;
  /** `200`, or `no answer` when the request failed in transport. */
  status: string;
  /** The OAuth `error` code of the body, or of the redirect's query. */
  error?: string;
  /** JSON member path → type (or `string "word"` for a word of the spec); `$` for the body itself. */
  members: Record<string, string>;
  /** Selected headers, by lower-case name, normalised. */
  headers: Record<string, string>;
  /** The redirect target by role, with its parameter names: `{redirect_uri}?code,state`. */
  location?: string;
  /** Whether the JSON body matches what spec/openapi.yaml documents here (absent: nothing documented). */
  conforms?: boolean;
  /** Where it does not: the member path of the first violation (a value the spec fixes, say). */
  violation?: string;
  /** Rules whose assertions judged this exchange just after it and held (compare.ts). */
  accepted?: string[];
  /** Sent after the check's first failed assertion on this side. */
  afterFailure?: boolean;
  /** The harness revoking the tokens it holds: as many as the target handed out. */
  housekeeping?: boolean;
}

/** Bounds on what one exchange may add, whatever the target sends. */
const MAX_MEMBERS = 300;
const MAX_DEPTH = 8;
const MAX_ITEMS = 20;
const MAX_NAME = 64;

/** Masks the secrets a text holds (the run's redactor: suites/runner/redact.ts). */
export type Mask = (text: string) => string;
const unmasked: Mask = (text) => text;

/**
 * Printable ASCII and the mask's `…` only, bounded: a name from the target can neither rewrite a
 * terminal nor grow.
 */
export function inert(text: string, max = MAX_NAME): string {
  const clean = text.replace(/[^\x20-\x7e…]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** A name the target chose as a shape keeps it: masked, then inert and bounded (`max`). */
type Name = (text: string, max?: number) => string;
const namer =
  (mask: Mask): Name =>
  (text, max) =>
    inert(mask(text), max);
const plainName = namer(unmasked);

/** An OAuth error code is a word, whether or not the spec lists it; anything else is not one. */
const errorCode = (value: unknown) => (typeof value === 'string' && /^[a-z_]{1,40}$/.test(value) ? value : undefined);

/** A member name, or `{key}` where the name is data (an id, a long key). */
function key(name: string, said: Name): string {
  return /^\d+$/.test(name) || name.length > MAX_NAME ? '{key}' : said(name);
}

function typeOf(value: unknown, name: string, said: Name): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') {
    if (isVocabulary(name, value)) return `string "${value}"`;
    // A URL's parameter names are its contract (verification_uri_complete carries user_code).
    if (/^https?:\/\/[^\s?#]+\?/i.test(value)) return `string URL?${urlParams(value, said)}`;
    return 'string';
  }
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function walk(
  value: unknown,
  path: string,
  name: string,
  into: Map<string, Set<string>>,
  depth: number,
  said: Name,
): void {
  if (into.size >= MAX_MEMBERS && !into.has(path)) return;
  const types = into.get(path) ?? new Set<string>();
  types.add(typeOf(value, name, said));
  into.set(path, types);
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value.slice(0, MAX_ITEMS)) walk(item, `${path}[]`, name, into, depth + 1, said);
    return;
  }
  for (const [k, v] of Object.entries(value)) walk(v, `${path}.${key(k, said)}`, k, into, depth + 1, said);
}

/** Member path → its types (several when array items differ), `|`-joined in a stable order. */
export function jsonShape(value: unknown, said = plainName): Record<string, string> {
  const into = new Map<string, Set<string>>();
  walk(value, '$', '', into, 0, said);
  return Object.fromEntries([...into].map(([path, types]) => [path, [...types].sort().join('|')]));
}

function bodyShape(
  body: string | undefined,
  contentType: string,
  documented: (value: unknown) => true | string | undefined,
  said: Name,
): { members: Record<string, string>; error?: string; conforms?: boolean; violation?: string; value?: unknown } {
  if (!body) return { members: { $: 'empty' } };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { members: { $: /html/.test(contentType) ? 'HTML' : 'text' } };
  }
  const error = value && typeof value === 'object' ? errorCode((value as { error?: unknown }).error) : undefined;
  const judged = documented(value);
  const conforms =
    judged === undefined
      ? {}
      : judged === true
        ? { conforms: true }
        : { conforms: false, violation: said(judged, Infinity) };
  return { members: jsonShape(value, said), ...(error ? { error } : {}), ...conforms, value };
}

const list = (value: string, said: Name, lower = true) =>
  [
    ...new Set(
      value
        .split(',')
        .map((s) => said((lower ? s.toLowerCase() : s).trim(), 40))
        .filter(Boolean),
    ),
  ]
    .sort()
    .join(',');

/** Query (or fragment) parameter names, sorted. */
function paramNames(params: URLSearchParams, said: Name): string {
  return [...new Set([...params.keys()].map((k) => said(k, 40)))].sort().join(',');
}

/** The parameter names of a URL's query, `?` when it is no URL. */
function urlParams(url: string, said: Name): string {
  try {
    return paramNames(new URL(url, 'http://x').searchParams, said);
  } catch {
    return '?';
  }
}

/**
 * `rel=next(page,per_page) rel=first(…)`: each pagination link's relation and the parameter names
 * it keeps, read as the pagination suite reads Link (RFC 8288: however the links are written; a
 * link of another relation, a CDN's rel=preload, is no page's). None: no pagination link.
 */
function linkShape(value: string, said: Name): string | undefined {
  const links = paginationOnly(parseLinkHeader(value));
  if (links === null) return 'malformed';
  if (!Object.keys(links).length) return undefined;
  // A set, not indexOf per link: a Link field of thousands of links stays one pass.
  const shapes = new Set(
    Object.entries(links).flatMap(([rel, urls]) => urls.map((url) => `rel=${said(rel, 20)}(${urlParams(url, said)})`)),
  );
  return [...shapes].slice(0, 10).sort().join(' ');
}

/** `bearer error=invalid_token,realm`: the scheme, its parameter names, and the error code. */
function challengeShape(value: string, said: Name): string {
  const scheme = /^\s*([\w-]+)/.exec(value)?.[1]?.toLowerCase() ?? '?';
  const params = [...value.matchAll(/(?<![\w-])([\w-]+)\s*=\s*("([^"]*)"|[^,\s]*)/g)].map(([, name, , quoted]) => {
    const n = name.toLowerCase();
    const v = quoted ?? '';
    return n === 'error' && errorCode(v) ? `error=${said(v)}` : said(n, 20);
  });
  return `${said(scheme, 20)} ${[...new Set(params)].sort().join(',')}`.trim();
}

/** A number, empty, or something else: the values are data, their form is the contract. */
const numeric = (value: string) => (value.trim() === '' ? 'empty' : /^\d+$/.test(value.trim()) ? 'number' : 'other');

/** Each compared header's shape; undefined: nothing of the contract in it (as if absent). */
const HEADERS: Record<string, (value: string, said: Name, request: Exchange['request']) => string | undefined> = {
  'content-type': (v, said) => said(v.split(';')[0].trim().toLowerCase(), 60),
  'cache-control': (v, said) => list(v.replace(/=[^,]*/g, ''), said),
  pragma: (v, said) => list(v, said),
  'www-authenticate': challengeShape,
  'x-total': numeric,
  'x-total-pages': numeric,
  'x-page': numeric,
  'x-per-page': numeric,
  'x-next-page': numeric,
  'x-prev-page': numeric,
  link: linkShape,
  links: () => 'present',
  'access-control-allow-origin': (v, _, request) =>
    v === '*' ? '*' : v === headerOf(request.headers, 'origin') ? '{request origin}' : '{other origin}',
  'access-control-allow-methods': (v, said) => list(v.toUpperCase(), said, false),
  'access-control-allow-headers': (v, said) => list(v, said),
  'access-control-expose-headers': (v, said) => list(v, said),
  'access-control-allow-credentials': (v, said) => said(v.trim().toLowerCase(), 10),
  'access-control-max-age': numeric,
  vary: (v, said) => list(v, said),
  // A cookie's name and attributes are its contract; its value is a secret.
  'set-cookie': (v, said) =>
    v
      .split('\n')
      .map((c) => {
        const [pair, ...attrs] = c.split(';');
        const name = said(pair.split('=')[0].trim(), 40);
        const flags = attrs.map((a) => said(a.split('=')[0].trim().toLowerCase(), 20)).sort();
        return [name, ...flags].join(';');
      })
      .sort()
      .join(' '),
};

function headerOf(headers: Record<string, string>, name: string): string | undefined {
  const found = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return found === undefined ? undefined : headers[found];
}

/** Where a redirect points, by role: the client's redirect_uri, the target itself, elsewhere. */
function locationShape(value: string, requestUrl: string, mask: Mask): { location: string; error?: string } {
  const said = namer(mask);
  let url: URL;
  let from: URL;
  try {
    from = new URL(requestUrl);
    url = new URL(value, from);
  } catch {
    return { location: '{not a URL}' };
  }
  const redirectUri = from.searchParams.get('redirect_uri');
  const bare = `${url.origin}${url.pathname}`;
  const role =
    redirectUri !== null && bare === redirectUri.split(/[?#]/)[0]
      ? '{redirect_uri}'
      : url.origin === from.origin
        ? operationOf('GET', url.pathname, mask).slice('GET '.length)
        : '{other origin}';
  const fragment = new URLSearchParams(url.hash.slice(1));
  const error = errorCode(url.searchParams.get('error') ?? fragment.get('error'));
  return {
    location: `${role}?${paramNames(url.searchParams, said)}${url.hash ? `#${paramNames(fragment, said)}` : ''}`,
    ...(error ? { error } : {}),
  };
}

/** `mask`: the run's redactor (it has learned this exchange's secrets), for every name the target chose. */
export function shapeOf(exchange: Exchange, mask = unmasked): ExchangeShape {
  const { request, response } = exchange;
  const said = namer(mask);
  const operation = operationOf(request.method, request.url, mask);
  if (!response) return { operation, status: 'no answer', members: {}, headers: {} };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    const normalise = own(HEADERS, name.toLowerCase());
    const shape = normalise?.(value, said, request);
    if (shape !== undefined) headers[name.toLowerCase()] = shape;
  }
  const status = String(response.status);
  const {
    members,
    error: bodyError,
    value,
    ...documented
  } = bodyShape(response.body, headers['content-type'] ?? '', (json) => conformsToSpec(operation, status, json), said);
  Object.assign(headers, paginationShape(response.headers, request.url, value));
  const location = headerOf(response.headers, 'location');
  const redirect = location === undefined ? undefined : locationShape(location, request.url, mask);
  const code = bodyError ?? redirect?.error;
  const error = code === undefined ? undefined : said(code);
  return {
    operation,
    status,
    ...(error !== undefined ? { error } : {}),
    members,
    headers,
    ...(redirect ? { location: redirect.location } : {}),
    ...documented,
  };
}
