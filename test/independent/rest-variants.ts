/**
 * The allowed variants of the REST API (/api/v4), one list: each a rewrite of the simulator's
 * answers into a form the source (spec/source-spec.md, line L..) or an RFC allows, with the checks
 * it concerns. rest-variants.test.ts proves no must verdict changes under any of them, one at a
 * time (api-variants.test.ts applies many at once).
 */
import type { Variant } from './corpus.js';
import { jsonOf, setJson, type Answer, type Asked } from './oauth-proxy.js';

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

/** The JSON value of a REST answer (object or array), or undefined. */
function restJson(asked: Asked, answer: Answer): unknown {
  if (!rest(asked) || !(answer.head.get('content-type')?.[0] ?? '').startsWith('application/json')) return undefined;
  try {
    return JSON.parse(answer.body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Each record of a list answer, or the one record of an object answer, rewritten. */
const everyRecord =
  (write: (record: Record<string, unknown>) => Record<string, unknown>) => (asked: Asked, answer: Answer) => {
    const value = restJson(asked, answer);
    if (!value || typeof value !== 'object') return false;
    const records = (Array.isArray(value) ? value : [value]) as Array<Record<string, unknown>>;
    const out = records.map((r) => (r && typeof r === 'object' ? write(r) : r));
    setJson(answer, Array.isArray(value) ? out : out[0]);
    return true;
  };

/** The checks that read REST JSON: records of lists, the current user, error bodies. */
const JSON_READERS = [
  'pagination.offset-rows',
  'pagination.keyset-list-projects',
  'scopes.read-user-reads-current-user',
  'scopes.presentation-bearer',
  'scopes.insufficient-scope-403',
  'scopes.missing-token-401',
  'versioning.rest-errors-json',
  'versioning.member-roles-lifecycle',
  'encoding.namespaced-path-encoded',
  'encoding.issue-iid-in-path',
];

/** REST requests the rate-limited variant has seen. */
let restRequests = 0;

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
  {
    name: 'REST JSON with application/json; charset=utf-8',
    cite: 'RFC 8259 §11 and RFC 9110 §8.3: a media type may carry parameters; L18 says only "JSON"',
    checks: JSON_READERS,
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked) || answer.head.get('content-type')?.[0] !== 'application/json') return false;
        answer.head.set('content-type', ['application/json; charset=utf-8']);
        return true;
      },
    },
  },
  {
    name: 'REST records with their members in reverse order and a member nobody asked for',
    cite: 'RFC 8259 §4: an object is an unordered collection; L186: the resource fields are not shown',
    checks: JSON_READERS,
    rewrite: {
      answer: everyRecord((record) => ({
        x_variant_note: 'added by the proxy',
        ...Object.fromEntries(Object.entries(record).reverse()),
      })),
    },
  },
  {
    name: 'REST records with null for the members the source does not name',
    cite: 'L182, L186: response fields not shown (the real service sends null for an unset description or avatar)',
    checks: JSON_READERS,
    rewrite: {
      answer: everyRecord((record) => ({
        ...record,
        ...Object.fromEntries(
          ['description', 'avatar_url', 'web_url'].filter((k) => k in record).map((k) => [k, null]),
        ),
      })),
    },
  },
  {
    name: 'REST errors with error instead of message',
    cite: 'L268: REST error bodies are not shown; the real service answers {"error": "404 Not Found"} for an unknown route',
    checks: JSON_READERS,
    rewrite: {
      answer(asked, answer) {
        const body = rest(asked) && answer.status >= 400 ? jsonOf(answer) : undefined;
        if (typeof body?.message !== 'string' || 'error' in body) return false;
        const { message, ...others } = body;
        setJson(answer, { error: message, ...others });
        return true;
      },
    },
  },
  {
    name: 'the hosted offering without x-total, x-total-pages and rel=last',
    cite: 'L222: the hosted offering may omit some pagination headers',
    checks: OFFSET_READERS,
    flags: { offering: 'hosted' },
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked) || !answer.head.has('x-total')) return false;
        answer.head.delete('x-total');
        answer.head.delete('x-total-pages');
        const links = simulatorLinks(answer).filter((l) => l.rel !== 'last');
        answer.head.set('link', [links.map(({ url, rel }) => `<${url}>; rel="${rel}"`).join(', ')]);
        return true;
      },
    },
  },
  {
    name: 'a 429 with Retry-After, and RateLimit headers, on the REST API',
    cite: 'RFC 6585 §4 and L283: REST requests are rate limited, values and headers not shown',
    checks: [...OFFSET_READERS, 'scopes.read-user-reads-current-user'],
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked)) return false;
        answer.head.set('ratelimit-limit', ['600']);
        answer.head.set('ratelimit-remaining', ['599']);
        answer.head.set('ratelimit-reset', ['1']);
        // The 10th REST request is refused (one wait of a second keeps the entry cheap); its retry is served.
        if (++restRequests !== 10) return false;
        answer.status = 429;
        answer.head = new Map([
          ['content-type', ['application/json']],
          ['retry-after', ['1']],
          ['ratelimit-limit', ['600']],
          ['ratelimit-remaining', ['0']],
          ['ratelimit-reset', ['1']],
        ]);
        setJson(answer, { message: 'Retry later' });
        return true;
      },
    },
  },
];
