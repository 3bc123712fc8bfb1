/**
 * RFC 8288 `Link` header parsing, and the offset-pagination headers read as numbers.
 * The suites never build page URLs themselves: they only follow what these return.
 */
import type { HttpResponse } from '../types.js';

export type Links = Record<string, string[]>;

/**
 * All links of a response by relation type. A URL may itself hold commas or semicolons, so the
 * header is read token by token (`<uri>` then parameters) rather than split on commas.
 * Returns null when the header is syntactically broken, so a check can report that.
 */
export function parseLinkHeader(value: string | null): Links | null {
  const links: Links = {};
  if (value === null || value.trim() === '') return links;
  let i = 0;
  const skipSpace = () => {
    while (i < value.length && /\s/.test(value[i])) i++;
  };
  while (i < value.length) {
    skipSpace();
    if (value[i] !== '<') return null;
    const end = value.indexOf('>', i);
    if (end < 0) return null;
    const uri = value.slice(i + 1, end);
    i = end + 1;
    const rels: string[] = [];
    for (;;) {
      skipSpace();
      if (i >= value.length || value[i] === ',') {
        i++;
        break;
      }
      if (value[i] !== ';') return null;
      i++;
      skipSpace();
      const name = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/.exec(value.slice(i))?.[0];
      if (!name) return null;
      i += name.length;
      skipSpace();
      let param = '';
      if (value[i] === '=') {
        i++;
        skipSpace();
        if (value[i] === '"') {
          const close = value.indexOf('"', i + 1);
          if (close < 0) return null;
          param = value.slice(i + 1, close);
          i = close + 1;
        } else {
          param = /^[^;,\s]*/.exec(value.slice(i))![0];
          i += param.length;
        }
      }
      if (name.toLowerCase() === 'rel')
        rels.push(
          ...param
            .split(/\s+/)
            .filter(Boolean)
            .map((r) => r.toLowerCase()),
        );
    }
    for (const rel of rels) (links[rel] ??= []).push(uri);
  }
  return links;
}

/** An offset-pagination header as a number; null when absent or empty ("" marks no such page). */
export function numberHeader(response: HttpResponse, name: string): number | null {
  const raw = response.headers.get(name);
  if (raw === null || raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isInteger(n) ? n : NaN;
}
