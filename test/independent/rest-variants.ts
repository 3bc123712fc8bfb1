/**
 * The allowed variants of the REST API (/api/v4), one list: each a rewrite of the simulator's
 * answers into a form the source (spec/source-spec.md, line L..) or an RFC allows, with the checks
 * it concerns. rest-variants.test.ts proves no must verdict changes under any of them, one at a
 * time (api-variants.test.ts applies many at once).
 */
import { gzipSync } from 'node:zlib';
import type { Variant } from './corpus.js';
import { jsonOf, setJson, type Answer, type Asked } from './oauth-proxy.js';
import { withVirtualClock } from './rate-limits.js';

export const rest = (asked: Asked) => asked.url.pathname.startsWith('/api/v4/');
/** A request that presents a credential in any of the source's three ways (L242-243). */
export const credentialed = (asked: Asked) =>
  !!asked.headers.authorization || !!asked.headers['private-token'] || asked.url.searchParams.has('access_token');
/** A request that presents none. */
export const anonymous = (asked: Asked) => !credentialed(asked);

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
/** Checks that read REST JSON answers. */
export const JSON_READERS = [
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

/** The same URL another way: query reversed, `_` percent-encoded, an extra parameter; absolute, path-absolute or query-only. */
function anotherWay(url: string, n: number): string {
  const parsed = new URL(url);
  const query = [...parsed.searchParams, ['via', 'variant-proxy']]
    .reverse()
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v).replace(/_/g, '%5F')}`)
    .join('&');
  return [`${parsed.origin}${parsed.pathname}?${query}`, `${parsed.pathname}?${query}`, `?${query}`][n % 3];
}

/** REST requests the rate-limited variant has seen. */
let restRequests = 0;

/** The checks that read Link and the offset headers (offset and keyset walks). */
const LINK_READERS = ['pagination.offset-headers', 'pagination.offset-rows', 'pagination.keyset-list-projects'];
const OFFSET_READERS = ['pagination.offset-headers', 'pagination.offset-rows', 'pagination.invalid-params-default'];

/** nginx's own error page, as it writes them (text/html, `Server: nginx`). */
export function nginxPage(answer: Answer, status: number, reason: string): void {
  answer.status = status;
  answer.head = new Map([
    ['content-type', ['text/html']],
    ['server', ['nginx']],
  ]);
  answer.body = Buffer.from(
    `<html>\r\n<head><title>${status} ${reason}</title></head>\r\n<body>\r\n<center><h1>${status} ${reason}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
  );
}

/** Headers nginx, Cloudflare and a CDN add to every answer they pass on (none is the provider's to judge). */
export const FRONT_HEADERS: Array<[string, string]> = [
  ['server', 'nginx'],
  ['via', '1.1 varnish, 1.1 cloudflare'],
  ['x-request-id', '01JDZ4K7V0Q6E3M9N8P2R5T1WX'],
  ['cf-ray', '8e8f2c1b3a4d5e6f-FRA'],
  ['cf-cache-status', 'DYNAMIC'],
  ['vary', 'Accept-Encoding, Origin'],
  ['strict-transport-security', 'max-age=63072000'],
  ['x-content-type-options', 'nosniff'],
  ['cache-control', 'max-age=0, private, must-revalidate'],
  ['last-modified', 'Thu, 26 Nov 2026 06:00:00 GMT'],
];

/** A REST answer with a JSON body. */
const restJsonAnswer = (asked: Asked, answer: Answer) =>
  rest(asked) && (answer.head.get('content-type')?.[0] ?? '').startsWith('application/json') && answer.body.length > 0;

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
    // Google's APIs (and gateways modelled on them) nest the error: {"error": {"code", "message", "status"}}.
    name: 'REST errors with error as an object ({"error": {"code": 404, "message": "…", "status": "NOT_FOUND"}})',
    cite: 'L268: REST error bodies are not shown; ERR-REST-JSON-BODY asks for message or error, whose type nobody shows',
    checks: ['versioning.rest-errors-json', 'scopes.missing-token-401'],
    rewrite: {
      answer(asked, answer) {
        const body = rest(asked) && answer.status >= 400 ? jsonOf(answer) : undefined;
        if (!body) return false;
        const { message, error, ...others } = body;
        setJson(answer, { ...others, error: { code: answer.status, message: message ?? error, status: 'REFUSED' } });
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
        // The 10th REST request is refused; its retry, a second later on the run's virtual clock, is served.
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
    http: withVirtualClock,
  },
  {
    name: 'Link URLs relative (path-absolute or query-only), query reordered and re-encoded, with an extra parameter',
    cite: 'RFC 8288 §3.2 and RFC 3986 §5: a URI-Reference resolved against the response URL; RFC 3986 §6.2.2 equivalence',
    checks: LINK_READERS,
    rewrite: {
      answer: everyLink((links) => [
        links.map(({ url, rel }, i) => `<${anotherWay(url, i)}>; rel="${rel}"`).join(', '),
      ]),
    },
  },
  {
    name: 'REST header names in upper case',
    cite: 'RFC 9110 §5.1: field names are case-insensitive',
    checks: [...OFFSET_READERS, 'pagination.keyset-list-projects'],
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked)) return false;
        answer.head = new Map([...answer.head].map(([name, values]) => [name.toUpperCase(), values]));
        return true;
      },
    },
  },
  {
    name: 'a moved project served in place at its old path',
    cite: 'L196: the service "may" answer with a redirect notice',
    checks: ['encoding.moved-path-redirect'],
    warns: ['ENC-MOVED-ANSWERS-REDIRECT'],
    rewrite: {
      async answer(asked, answer, sim) {
        const location = answer.head.get('location')?.[0];
        if (!rest(asked) || answer.status !== 301 || !location) return false;
        const served = await sim.handle(
          new Request(new URL(location, asked.url), { headers: asked.headers as Record<string, string> }),
        );
        answer.status = served.status;
        answer.head = new Map([['content-type', [served.headers.get('content-type') ?? 'application/json']]]);
        answer.body = Buffer.from(await served.arrayBuffer());
        return true;
      },
    },
  },
  {
    name: 'a moved path answered 307 with a path-absolute Location',
    cite: 'L196: a redirect notice, the client uses Location; RFC 9110 §10.2.2: Location is a URI-reference',
    checks: ['encoding.moved-path-redirect'],
    rewrite: {
      answer(asked, answer) {
        const location = answer.head.get('location')?.[0];
        if (!rest(asked) || answer.status !== 301 || !location) return false;
        const to = new URL(location, asked.url);
        answer.status = 307;
        answer.head.set('location', [`${to.pathname}${to.search}`]);
        return true;
      },
    },
  },
  {
    name: 'creates answered 200, deletes 200 with {}',
    cite: 'L268: REST status codes not shown; 201 is the real service (ENC-CREATED-201, should)',
    checks: ['versioning.member-roles-lifecycle', 'encoding.array-params-body', 'scopes.api-full-access'],
    warns: ['ENC-CREATED-201'],
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked)) return false;
        if (asked.method === 'POST' && answer.status === 201) answer.status = 200;
        else if (asked.method === 'DELETE' && answer.status === 204) {
          answer.status = 200;
          answer.head.set('content-type', ['application/json']);
          setJson(answer, {});
        } else return false;
        return true;
      },
    },
  },
  {
    name: 'GET /api/v4/user without a token refused with 403',
    cite: 'L247: which endpoints need authentication is not shown; 401 is the real service (AUTH-REQUIRED-401, should)',
    checks: ['scopes.missing-token-401', 'scopes.presentation-bearer', 'versioning.api-prefix'],
    warns: ['AUTH-REQUIRED-401'],
    rewrite: {
      answer(asked, answer) {
        if (asked.url.pathname !== '/api/v4/user' || !anonymous(asked) || answer.status !== 401) return false;
        answer.status = 403;
        return true;
      },
    },
  },
  {
    name: 'insufficient_scope only in the WWW-Authenticate challenge',
    cite: 'RFC 6750 §3: the error code is an attribute of the challenge; L268: REST error bodies not shown',
    checks: ['scopes.insufficient-scope-403', 'scopes.read-user-refused-where-api-needed'],
    rewrite: {
      answer(asked, answer) {
        const body = rest(asked) && answer.status === 403 ? jsonOf(answer) : undefined;
        if (body?.error !== 'insufficient_scope') return false;
        const { error: _code, ...others } = body;
        setJson(answer, others);
        return true;
      },
    },
  },
  {
    name: 'keyset asked outside the support table: the parameter ignored, offset pages served',
    cite: 'L207, L224-237: keyset on selected endpoints only; the source does not say how another refuses it',
    checks: ['pagination.keyset-unsupported-endpoint'],
    rewrite: {
      request(asked) {
        if (!/^\/api\/v4\/projects\/[^/]+\/issues$/.test(asked.url.pathname)) return false;
        if (asked.url.searchParams.get('pagination') !== 'keyset') return false;
        asked.url.searchParams.delete('pagination');
        return true;
      },
    },
  },
  {
    name: 'a page past the last answered 404',
    cite: 'L202-205, L284: what a page past the last answers is not shown (the real service: 200, an empty list)',
    checks: [...OFFSET_READERS, 'pagination.max-offset', 'pagination.users-offset-limit'],
    // Their limit shows only as a refusal of a page past the end: here every such page is refused.
    skips: {
      'pagination.max-offset': /refuses page \d+ .*past its last page .*cannot be told from that one/,
      'pagination.users-offset-limit': /\/users refuses page \d+ .*past its last page/,
    },
    rewrite: {
      answer(asked, answer) {
        const [page, pages] = ['x-page', 'x-total-pages'].map((name) => Number(answer.head.get(name)?.[0]));
        if (!rest(asked) || !(page > pages)) return false;
        answer.status = 404;
        answer.head = new Map([['content-type', ['application/json']]]);
        setJson(answer, { message: '404 Not Found' });
        return true;
      },
    },
  },
  {
    name: 'the keyset next link of projects with an opaque cursor instead of id_after',
    cite: 'L218: the next link adds a filter "such as id_after or cursor"',
    checks: ['pagination.keyset-list-projects', 'pagination.keyset-rows-list-projects'],
    rewrite: {
      request(asked) {
        const cursor = asked.url.searchParams.get('cursor');
        if (asked.url.pathname !== '/api/v4/projects' || !cursor?.startsWith('v1.')) return false;
        asked.url.searchParams.delete('cursor');
        for (const [k, v] of new URLSearchParams(Buffer.from(cursor.slice(3), 'base64url').toString()))
          asked.url.searchParams.set(k, v);
        return true;
      },
      answer: everyLink((links) => [
        links
          .map(({ url, rel }) => {
            const to = new URL(url);
            const filter = new URLSearchParams();
            for (const name of ['id_after', 'id_before']) {
              const value = to.searchParams.get(name);
              if (value === null) continue;
              filter.set(name, value);
              to.searchParams.delete(name);
            }
            if ([...filter].length)
              to.searchParams.set('cursor', `v1.${Buffer.from(filter.toString()).toString('base64url')}`);
            return `<${to.href}>; rel="${rel}"`;
          })
          .join(', '),
      ]),
    },
  },
  {
    name: 'an nginx and Cloudflare front: Server, Via, X-Request-Id, CF-Ray, Vary, HSTS, a weak ETag, Last-Modified',
    cite: 'RFC 9110 §5.1, §7.6.3, §8.8 and RFC 9111 §5.2: fields a proxy adds; nothing in the source forbids them',
    checks: [...OFFSET_READERS, 'pagination.keyset-list-projects', ...JSON_READERS],
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked)) return false;
        for (const [name, value] of FRONT_HEADERS) answer.head.set(name, [value]);
        // GitLab sends a weak ETag on its JSON answers (Rack::ETag); the harness sends no If-None-Match.
        answer.head.set('etag', [`W/"${answer.body.length.toString(16)}-${answer.status}"`]);
        return true;
      },
    },
  },
  {
    name: 'REST answers chunked, without Content-Length (nginx with gzip or proxy_buffering off)',
    cite: "RFC 9112 §6.1, §6.3: a chunked message carries no Content-Length; the length is the chunks'",
    checks: [...OFFSET_READERS, ...JSON_READERS],
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked) || !answer.body.length) return false;
        answer.head.set('transfer-encoding', ['chunked']);
        return true;
      },
    },
  },
  {
    name: 'REST dates with milliseconds and +00:00 instead of Z',
    cite: 'L73: fields not shown; ISO 8601 and RFC 3339 §5.6 allow both (GitLab itself sends 2026-11-26T06:00:00.000Z)',
    checks: ['encoding.plus-versus-percent-2b', ...JSON_READERS],
    rewrite: {
      answer: everyRecord((record) =>
        Object.fromEntries(
          Object.entries(record).map(([k, v]) => [
            k,
            typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v)
              ? v.replace(/(:\d\d)(\.\d+)?Z$/, (_m, s: string) => `${s}.000+00:00`)
              : v,
          ]),
        ),
      ),
    },
  },
  {
    name: 'validation errors as GitLab\'s {"message": {"field": ["is invalid"]}}',
    cite: 'L268: REST error bodies not shown; the real service sends a 400 with message as an object of field errors',
    checks: [
      'pagination.max-offset',
      'pagination.keyset-list-projects',
      'versioning.rest-errors-json',
      'pagination.users-offset-limit',
    ],
    rewrite: {
      answer(asked, answer) {
        const body = rest(asked) && answer.status === 400 ? jsonOf(answer) : undefined;
        if (typeof body?.message !== 'string') return false;
        setJson(answer, { message: { base: [body.message] } });
        return true;
      },
    },
  },
  {
    // A Windows-hosted gateway (IIS/ARR) re-encoding bodies does it; fetch's UTF-8 decode drops it (WHATWG Encoding).
    name: 'REST JSON with a byte order mark',
    cite: 'RFC 8259 §8.1: senders MUST NOT add one, parsers MAY ignore it; no rule of the source holds the sentence',
    checks: [...OFFSET_READERS, 'pagination.keyset-list-projects', ...JSON_READERS],
    rewrite: {
      answer(asked, answer) {
        if (!restJsonAnswer(asked, answer)) return false;
        answer.body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), answer.body]);
        return true;
      },
    },
  },
  {
    name: "the long URL refused by nginx's own 414 page (text/html)",
    // Real deployments answer it so: nginx (large_client_header_buffers) refuses it before GitLab sees it.
    cite: 'L264, L282: a too long URL gives 414; the source gives the status only, and the harness judges no body of it',
    checks: ['encoding.uri-too-long-414', 'encoding.long-params-in-body'],
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked) || answer.status !== 414) return false;
        nginxPage(answer, 414, 'Request-URI Too Large');
        return true;
      },
    },
  },
  {
    name: 'a 503 with Retry-After from the load balancer on every 7th REST request (HAProxy, a CDN shielding a busy origin)',
    cite: 'RFC 9110 §15.6.4, §10.2.3: 503 is temporary and Retry-After says when to come back; L283: limits not shown',
    checks: [...OFFSET_READERS, 'scopes.read-user-reads-current-user', 'pagination.keyset-list-projects'],
    get rewrite() {
      let requests = 0;
      return {
        refuse(asked: Asked): Answer | undefined {
          if (!rest(asked) || ++requests % 7 !== 0) return undefined;
          return {
            status: 503,
            head: new Map([
              ['content-type', ['text/html']],
              ['retry-after', ['1']],
            ]),
            body: Buffer.from(
              '<html><body><h1>503 Service Unavailable</h1>No server is available to handle this request.</body></html>',
            ),
          };
        },
      };
    },
    http: withVirtualClock,
  },
  {
    // An API gateway's JWT/OAuth plugin (Kong, Apigee) checks scopes itself and answers 401.
    name: 'a token without the needed scope refused 401 invalid_token by an API gateway',
    cite: 'L248: API calls needing a scope the application lacks "must fail" (any refusal); 403 insufficient_scope is RFC 6750 §3.1 (SCOPE-INSUFFICIENT-403, should)',
    checks: ['scopes.read-user-refused-where-api-needed', 'scopes.insufficient-scope-403'],
    warns: ['SCOPE-INSUFFICIENT-403'],
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked) || answer.status !== 403 || jsonOf(answer)?.error !== 'insufficient_scope') return false;
        answer.status = 401;
        answer.head.set('www-authenticate', ['Bearer realm="api", error="invalid_token"']);
        setJson(answer, { message: '401 Unauthorized' });
        return true;
      },
    },
  },
  {
    // Serializers that drop nulls (Jackson NON_NULL, Go omitempty) in a reimplementation or a gateway re-encoding JSON.
    name: 'REST records without their null members (absent instead of null)',
    cite: 'L73, L182, L186: the fields are not shown; absent and null both say "no value" there',
    checks: JSON_READERS,
    rewrite: {
      answer: everyRecord((record) => Object.fromEntries(Object.entries(record).filter(([, v]) => v !== null))),
    },
  },
  {
    // A gateway re-encoding JSON for JavaScript clients writes 64-bit integers as strings (Twitter's id_str habit).
    name: 'REST ids and iids as decimal strings ("id": "42")',
    cite: 'L69: resources carry id and iid, their type not shown',
    checks: [
      ...JSON_READERS,
      'pagination.keyset-rows-list-projects',
      'encoding.array-params-query',
      'encoding.plus-versus-percent-2b',
    ],
    rewrite: {
      answer: everyRecord((record) =>
        Object.fromEntries(
          Object.entries(record).map(([k, v]) => [
            k,
            (k === 'id' || k === 'iid') && typeof v === 'number' ? String(v) : v,
          ]),
        ),
      ),
    },
  },
  {
    // nginx `gzip on; gzip_proxied any; gzip_types application/json;`: compressed, hence chunked.
    name: 'REST JSON gzip-compressed and chunked by the front (Content-Encoding: gzip, Vary: Accept-Encoding)',
    cite: 'RFC 9110 §8.4, §12.5.3: a request without Accept-Encoding accepts any content coding; RFC 9112 §6.1',
    checks: [...OFFSET_READERS, ...JSON_READERS],
    rewrite: {
      answer(asked, answer) {
        if (!restJsonAnswer(asked, answer)) return false;
        answer.body = gzipSync(answer.body);
        answer.head.set('content-encoding', ['gzip']);
        answer.head.set('vary', ['Accept-Encoding']);
        answer.head.set('transfer-encoding', ['chunked']);
        return true;
      },
    },
  },
  {
    name: 'Link with spaces inside <>, and a title quoting ; and , plus a title* ext-value before rel',
    cite: 'RFC 3986 App. C: whitespace inside <> is ignored; RFC 8288 §3, §3.4.1 and RFC 9110 §5.6.4: quoted-string params, title*',
    checks: LINK_READERS,
    rewrite: {
      answer: everyLink((links) => [
        links
          .map(({ url, rel }) => `< ${url} >; title="${rel}; page, as told"; title*=UTF-8''${rel}%20page; rel="${rel}"`)
          .join(', '),
      ]),
    },
  },
  {
    // Gitea and Forgejo send X-Total-Count on every list page, offset or not.
    name: "Gitea's X-Total-Count beside x-total on offset pages, and on keyset pages",
    cite: 'L221: the offset headers named, "no further" ones on keyset pages: X-Total-Count is none of them (RFC 9110 §5.1)',
    checks: [...OFFSET_READERS, 'pagination.keyset-list-projects'],
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked) || answer.status !== 200 || !answer.head.has('link')) return false;
        answer.head.set('x-total-count', [answer.head.get('x-total')?.[0] ?? '1000']);
        return true;
      },
    },
  },
  {
    name: 'validation errors answered 422 Unprocessable Content instead of 400',
    cite: 'L268: REST status codes not shown; RFC 9110 §15.5.21: 422 for content it cannot process (PAG-MAX-OFFSET-400, should)',
    checks: ['pagination.max-offset', 'pagination.invalid-params-default', 'versioning.rest-errors-json'],
    warns: ['PAG-MAX-OFFSET-400'],
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked) || answer.status !== 400) return false;
        answer.status = 422;
        return true;
      },
    },
  },
  {
    // Cloudflare's Early Hints and a front's preload: a Link field of its own on every answer.
    name: "a CDN's own Link field (rel=preload) on every REST answer, beside the pagination links",
    cite: 'RFC 8288 §3, §2.1: Link carries links of any relation; L217 names prev, next, first, last for pagination',
    checks: LINK_READERS,
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked)) return false;
        answer.head.set('link', [
          ...(answer.head.get('link') ?? []),
          '</assets/application.css>; rel=preload; as=style',
        ]);
        return true;
      },
    },
  },
  {
    // An API gateway (Kong, Apigee, Spring) writing its refusals as RFC 9457 problem details, the message kept.
    name: 'REST errors as application/problem+json (type, title, status, detail) beside message',
    cite: 'L268: REST error bodies not shown; RFC 9457 §3 and RFC 6839 §3.1: a +json type is JSON; extra members are allowed',
    checks: [
      'versioning.rest-errors-json',
      'versioning.unknown-route-404',
      'scopes.missing-token-401',
      'scopes.insufficient-scope-403',
    ],
    rewrite: {
      answer(asked, answer) {
        const body = rest(asked) && answer.status >= 400 ? jsonOf(answer) : undefined;
        if (!body) return false;
        answer.head.set('content-type', ['application/problem+json']);
        setJson(answer, { type: 'about:blank', title: 'Error', status: answer.status, detail: 'refused', ...body });
        return true;
      },
    },
  },
  {
    name: 'keyset asked outside the support table: GitLab\'s 405 "Keyset pagination is not yet available for this type of request"',
    cite: 'L207, L224-237: keyset on selected endpoints only; the source does not say how another refuses it',
    checks: ['pagination.keyset-unsupported-endpoint'],
    rewrite: {
      answer(asked, answer) {
        if (!/^\/api\/v4\/projects\/[^/]+\/issues$/.test(asked.url.pathname)) return false;
        if (asked.url.searchParams.get('pagination') !== 'keyset') return false;
        answer.status = 405;
        answer.head = new Map([
          ['content-type', ['application/json']],
          ['allow', ['GET, HEAD']],
        ]);
        setJson(answer, { error: 'Keyset pagination is not yet available for this type of request' });
        return true;
      },
    },
  },
  {
    name: 'the hosted offering with Link alone: every x- pagination header left out, rel=last kept',
    cite: 'L222: the hosted offering may omit some pagination headers (which ones is not said)',
    checks: OFFSET_READERS,
    flags: { offering: 'hosted' },
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked) || !answer.head.has('x-page')) return false;
        for (const name of ['x-page', 'x-per-page', 'x-next-page', 'x-prev-page', 'x-total', 'x-total-pages'])
          answer.head.delete(name);
        return true;
      },
    },
  },
  {
    // A front that tells clients of a removed API version so, instead of matching no route.
    name: 'the removed /api/v3 answered 410 Gone',
    cite: 'L289: a whole API version is removed with a major release; RFC 9110 §15.5.11: 410, intentionally removed',
    checks: ['versioning.api-prefix'],
    rewrite: {
      answer(asked, answer) {
        if (!asked.url.pathname.startsWith('/api/v3/')) return false;
        answer.status = 410;
        answer.head = new Map([['content-type', ['application/json']]]);
        setJson(answer, { error: '410 Gone' });
        return true;
      },
    },
  },
  {
    // Grape's parameter validation (GitLab's API framework) and Gitea's both refuse a malformed integer.
    name: 'a page or per_page that is no positive integer refused 400 {"error": "per_page is invalid"}',
    cite: 'L202-205: the defaults and the maximum only; what a malformed value gets is not shown (PAG-INVALID-PARAMS, should)',
    checks: ['pagination.invalid-params-default', 'pagination.offset-headers', 'pagination.offset-rows'],
    warns: ['PAG-INVALID-PARAMS'],
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked) || answer.status !== 200) return false;
        const bad = ['page', 'per_page'].find((name) => {
          const value = asked.url.searchParams.get(name);
          return value !== null && !/^[1-9]\d*$/.test(value);
        });
        if (!bad) return false;
        answer.status = 400;
        answer.head = new Map([['content-type', ['application/json']]]);
        setJson(answer, { error: `${bad} is invalid` });
        return true;
      },
    },
  },
  {
    // A front that hides what needs authentication from anonymous callers (GitHub does so for private resources).
    name: 'GET /api/v4/user without a token answered 404, as if nothing were there',
    cite: 'L247: which endpoints need authentication is not shown; L268: status codes not shown (AUTH-REQUIRED-401, should)',
    checks: ['versioning.api-prefix', 'scopes.missing-token-401', 'versioning.unknown-route-404'],
    warns: ['AUTH-REQUIRED-401'],
    rewrite: {
      answer(asked, answer) {
        if (asked.url.pathname !== '/api/v4/user' || !anonymous(asked) || answer.status !== 401) return false;
        answer.status = 404;
        setJson(answer, { message: '404 Not Found' });
        return true;
      },
    },
  },
  {
    // Rails and several fronts label every answer, the empty ones too.
    name: 'REST 204 answers labelled Content-Type: application/json, with no content',
    cite: 'RFC 9110 §15.3.5: a 204 has no content, whatever its Content-Type says; L268: status codes not shown',
    checks: ['versioning.member-roles-lifecycle', 'scopes.api-full-access'],
    rewrite: {
      answer(asked, answer) {
        if (!rest(asked) || answer.status !== 204) return false;
        answer.head.set('content-type', ['application/json']);
        return true;
      },
    },
  },
];
