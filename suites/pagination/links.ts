/**
 * RFC 8288 `Link` header parsing, and the offset-pagination headers read as numbers.
 * The suites never build page URLs themselves: they only follow what these return.
 */
import type { HttpResponse } from '../types.js';

export type Links = Record<string, string[]>;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;

/**
 * All links of a response by relation type. A URL may itself hold commas or semicolons, so the
 * header is read token by token (`<uri>` then parameters) rather than split on commas. What
 * RFC 8288 §3 and RFC 9110 §5.6 let a server write is read: several fields joined with commas,
 * empty list elements, `rel` quoted or not, several relation types in one `rel`, quoted strings
 * with backslash escapes, parameters without a value; only the first `rel` of a link counts
 * (RFC 8288 §3.3). URI references are returned as written (see resolveLink).
 * Returns null when the header is syntactically broken, so a check can report that.
 */
export function parseLinkHeader(value: string | null): Links | null {
  // No prototype: a relation is the target's word (rel="constructor", rel="__proto__"), only ever a key.
  const links = Object.create(null) as Links;
  if (value === null) return links;
  let i = 0;
  const skipSpace = () => {
    while (i < value.length && /\s/.test(value[i])) i++;
  };
  /** A quoted-string at i (RFC 9110 §5.6.4), unescaped; null when it never closes. */
  const quoted = (): string | null => {
    let out = '';
    for (i++; i < value.length; i++) {
      if (value[i] === '\\' && i + 1 < value.length) out += value[++i];
      else if (value[i] === '"') {
        i++;
        return out;
      } else out += value[i];
    }
    return null;
  };
  while (i < value.length) {
    skipSpace();
    // Empty list elements (`a, , b`, a trailing comma) are allowed and mean nothing.
    if (value[i] === ',') {
      i++;
      continue;
    }
    if (i >= value.length) break;
    if (value[i] !== '<') return null;
    const end = value.indexOf('>', i);
    if (end < 0) return null;
    const uri = value.slice(i + 1, end);
    i = end + 1;
    let rels: string[] | undefined;
    for (;;) {
      skipSpace();
      if (i >= value.length || value[i] === ',') {
        i++;
        break;
      }
      if (value[i] !== ';') return null;
      i++;
      skipSpace();
      // `<uri>;` followed by nothing or by the next link: an empty parameter.
      if (i >= value.length || value[i] === ',' || value[i] === ';') continue;
      const name = TOKEN.exec(value.slice(i))?.[0];
      if (!name) return null;
      i += name.length;
      skipSpace();
      let param = '';
      if (value[i] === '=') {
        i++;
        skipSpace();
        if (value[i] === '"') {
          const text = quoted();
          if (text === null) return null;
          param = text;
        } else {
          param = /^[^;,\s]*/.exec(value.slice(i))![0];
          i += param.length;
        }
      }
      if (name.toLowerCase() === 'rel' && rels === undefined)
        rels = param
          .split(/\s+/)
          .filter(Boolean)
          .map((r) => r.toLowerCase());
    }
    for (const rel of rels ?? []) (links[rel] ??= []).push(uri);
  }
  return links;
}

/** The relations of pagination (L217); a Link of another relation (a CDN's rel=preload) is no page's. */
export const PAGINATION_RELS = ['prev', 'next', 'first', 'last'] as const;

/** Only the pagination relations of parsed links (null stays null: a malformed header). */
export function paginationOnly(links: Links | null): Links | null {
  if (links === null) return null;
  return Object.fromEntries(PAGINATION_RELS.filter((r) => links[r]?.length).map((r) => [r, links[r]]));
}

/**
 * Does the answer carry a pagination link? A malformed Link counts as one: reading the page
 * reports it (PAG-LINK-HEADER), once.
 */
export function carriesPaginationLink(response: { headers: Headers }): boolean {
  const links = paginationOnly(parseLinkHeader(response.headers.get('link')));
  return links === null || Object.keys(links).length > 0;
}

/**
 * A link's URI reference as an absolute URL: resolved against the URL of the response that
 * carried it (RFC 8288 §3.2, RFC 3986 §5), so `/api/v4/x?page=2` and `?page=2` work as well as
 * an absolute URL, which is returned exactly as written.
 */
export function resolveLink(reference: string, base: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(reference)) return reference;
  try {
    return new URL(reference, base).href;
  } catch {
    return reference;
  }
}

/**
 * A URL in the form RFC 3986 §6 counts as equivalent: scheme and host case, the default port,
 * dot segments, the case of percent-encodings and percent-encoded unreserved characters
 * normalised, and the query compared as a set of decoded parameters (their order carries no
 * meaning for the service). Two links with the same key lead to the same page.
 */
export function urlKey(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const unreserved = (s: string) =>
    s.replace(/%[0-9a-f]{2}/gi, (pct) => {
      const c = String.fromCharCode(parseInt(pct.slice(1), 16));
      return /[A-Za-z0-9\-._~]/.test(c) ? c : pct.toUpperCase();
    });
  const params = [...parsed.searchParams].map(([k, v]) => `${k}=${v}`).sort();
  return `${parsed.protocol}//${parsed.host}${unreserved(parsed.pathname)}?${JSON.stringify(params)}`;
}

/** An offset-pagination header as a number; null when absent or empty ("" marks no such page). */
export function numberHeader(response: HttpResponse, name: string): number | null {
  const raw = response.headers.get(name);
  if (raw === null || raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isInteger(n) ? n : NaN;
}
