/**
 * The allowed variants of the REST API (/api/v4), one list: each a rewrite of the simulator's
 * answers into a form the source (spec/source-spec.md, line L..) or an RFC allows, with the checks
 * it concerns. rest-variants.test.ts proves no must verdict changes under any of them, one at a
 * time (api-variants.test.ts applies many at once).
 */
import type { Variant } from './corpus.js';
import { type Answer, type Asked } from './oauth-proxy.js';

const rest = (asked: Asked) => asked.url.pathname.startsWith('/api/v4/');

/** `<url>; rel="x"` pairs of the simulator's own Link (it writes exactly that form). */
export function simulatorLinks(answer: Answer): Array<{ url: string; rel: string }> {
  const value = answer.head.get('link')?.join(', ') ?? '';
  return [...value.matchAll(/<([^<>]*)>; rel="([^"]*)"/g)].map((m) => ({ url: m[1], rel: m[2] }));
}

/** A rewrite of the Link of every REST answer that has one. */
const everyLink =
  (write: (links: Array<{ url: string; rel: string }>) => string[]) => (asked: Asked, answer: Answer) => {
    const links = simulatorLinks(answer);
    if (!rest(asked) || !links.length) return false;
    answer.head.set('link', write(links));
    return true;
  };

/** The checks that read Link and the offset headers (offset and keyset walks). */
const LINK_READERS = ['pagination.offset-headers', 'pagination.offset-rows', 'pagination.keyset-list-projects'];
const OFFSET_READERS = ['pagination.offset-headers', 'pagination.offset-rows', 'pagination.invalid-params-default'];

export const REST_VARIANTS: Variant[] = [
  {
    name: 'Link with rel unquoted, after another parameter, with whitespace around ; and =',
    cite: 'RFC 8288 §3: link-param = token BWS [ "=" BWS ( token / quoted-string ) ], in any order',
    checks: LINK_READERS,
    rewrite: {
      answer: everyLink((links) => [
        links.map(({ url, rel }) => `<${url}> ;  type="application/json" ; rel = ${rel}`).join(' ,  '),
      ]),
    },
  },
  {
    name: 'Link with the relations of one URL in one rel',
    cite: 'RFC 8288 §3.3: rel may hold several relation types, separated by spaces',
    checks: LINK_READERS,
    rewrite: {
      answer: everyLink((links) => {
        const byUrl = new Map<string, string[]>();
        for (const { url, rel } of links) byUrl.set(url, [...(byUrl.get(url) ?? []), rel]);
        return [[...byUrl].map(([url, rels]) => `<${url}>; rel="${rels.join(' ')}"`).join(', ')];
      }),
    },
  },
  {
    name: 'Link as one header line per link-value',
    cite: 'RFC 8288 §3 and RFC 9110 §5.3: a list field may be sent as several field lines',
    checks: LINK_READERS,
    rewrite: { answer: everyLink((links) => links.map(({ url, rel }) => `<${url}>; rel="${rel}"`)) },
  },
  {
    name: 'x-next-page and x-prev-page left out where there is no such page',
    cite: 'L221 names the headers and no value for a missing page; the simulator sends them empty',
    checks: OFFSET_READERS,
    rewrite: {
      answer(asked, answer) {
        let changed = false;
        for (const name of ['x-next-page', 'x-prev-page'])
          if (rest(asked) && answer.head.get(name)?.[0] === '') changed = answer.head.delete(name);
        return changed;
      },
    },
  },
];
