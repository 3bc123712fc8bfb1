/**
 * REST API deviations seen on real servers, each with the rules whose sentence it breaks: the table
 * rest-deviations.test.ts proves `run` blames exactly, and test/diff/corpus.test.ts proves `diff`
 * shows once, at the operation it concerns.
 */
import { expect } from 'vitest';
import type { Report } from '../../suites/report/model.js';
import type { Deviation } from './corpus.js';
import { jsonOf, setJson, type Answer, type Asked, type Rewrite } from './oauth-proxy.js';
import { JSON_READERS, nginxPage, simulatorLinks } from './rest-variants.js';

const offsetPage = (asked: Asked, answer: Answer) =>
  asked.url.pathname.startsWith('/api/v4/') && answer.status === 200 && answer.head.has('x-page');
const keysetPage = (asked: Asked, answer: Answer) =>
  asked.url.pathname.startsWith('/api/v4/') &&
  answer.status === 200 &&
  asked.url.searchParams.get('pagination') === 'keyset';

/** Checks that present a flow's access token to the REST API, and the one that reports its refusal. */
const LEANING_ON_REST_TOKENS = [
  'scopes.presentation-query',
  'scopes.read-user-reads-current-user',
  'scopes.read-user-refused-where-api-needed',
  'scopes.insufficient-scope-403',
  'scopes.revoked-token-401',
  'scopes.api-full-access',
];

/** Every /api/v4 request with a flow's token (Bearer or access_token) answered 401; PATs still served. */
export const closedToOAuthTokens: Rewrite = {
  answer(asked, answer) {
    const bearer = /^bearer /i.test(String(asked.headers.authorization ?? ''));
    if (!asked.url.pathname.startsWith('/api/v4/') || !(bearer || asked.url.searchParams.has('access_token')))
      return false;
    answer.status = 401;
    answer.head = new Map([
      ['content-type', ['application/json']],
      ['www-authenticate', ['Bearer realm="api", error="invalid_token"']],
    ]);
    answer.body = Buffer.from('{"message":"401 Unauthorized"}');
    return true;
  },
};

const OFFSET_CHECKS = ['pagination.offset-headers', 'pagination.offset-rows'];

/** The keyset premise is reported once, by the protocol check; the rows check is untested, naming it. */
function keysetRowsUntested(report: Report): void {
  const rows = report.checks.find((c) => c.id === 'pagination.keyset-rows-list-project-jobs');
  expect(rows?.status).toBe('skipped');
  expect(rows?.message).toMatch(/serves no keyset pages \(the protocol check reports it on PAG-KEYSET-PROJECT-JOBS\)/);
}

const projectJobs = (asked: Asked) => /^\/api\/v4\/projects\/[^/]+\/jobs$/.test(asked.url.pathname);

/** What keyset pagination turned off for project jobs breaks, however the instance answers it. */
const KEYSET_OFF_FOR_JOBS = {
  cite: 'L224-237: project jobs are in the keyset support table (order_by=id, sort=desc)',
  checks: ['pagination.keyset-list-project-jobs', 'pagination.keyset-rows-list-project-jobs'],
  breaks: ['PAG-KEYSET-PROJECT-JOBS'],
  after: keysetRowsUntested,
};

/** The path of the request as the client wrote it on the wire (`%2F` kept). */
const rawPath = (asked: Asked) => asked.url.pathname;

/** Every REST JSON answer labelled `type` instead (its body unchanged). */
const relabelled = (type: string): Rewrite => ({
  answer(asked, answer) {
    if (
      !asked.url.pathname.startsWith('/api/v4/') ||
      !answer.head.get('content-type')?.[0]?.startsWith('application/json')
    )
      return false;
    answer.head.set('content-type', [type]);
    return true;
  },
});

/** What a REST JSON answer under another label breaks: L18's rule, once, where /api/v4/user is read; the JSON is read all the same. */
const REST_JSON_MISLABELLED = {
  cite: 'L18: the REST API returns JSON (RFC 8259 §11: application/json)',
  breaks: ['ENC-RESPONSE-JSON'],
};

export const REST_DEVIATIONS: Deviation[] = [
  {
    name: 'REST JSON answered as text/plain',
    ...REST_JSON_MISLABELLED,
    // Half of the JSON readers each (rest-variants.ts), so no reader fails on the label either.
    checks: ['versioning.api-prefix', ...JSON_READERS.slice(0, 5)],
    rewrite: relabelled('text/plain; charset=utf-8'),
  },
  {
    name: 'REST JSON answered as application/octet-stream',
    ...REST_JSON_MISLABELLED,
    checks: ['versioning.api-prefix', ...JSON_READERS.slice(5)],
    rewrite: relabelled('application/octet-stream'),
  },
  {
    name: 'rel=next on the last offset page, to the empty page past it',
    cite: 'RFC 8288 §3 and L217: a next link names the next page; the last page has none',
    checks: OFFSET_CHECKS,
    breaks: ['PAG-LINK-RELS'],
    rewrite: {
      answer(asked, answer) {
        // Only an offset page is read as a list: a compound hands this part the sign-in page too.
        if (!offsetPage(asked, answer) || answer.head.get('x-next-page')?.[0] !== '') return false;
        if (!(JSON.parse(answer.body.toString('utf8')) as unknown[]).length) return false;
        const past = new URL(asked.url);
        past.searchParams.set('page', String(Number(answer.head.get('x-page')![0]) + 1));
        answer.head.set('link', [...(answer.head.get('link') ?? []), `<${past.href}>; rel="next"`]);
        return true;
      },
    },
  },
  {
    name: 'x-page one more than the page it is on',
    cite: 'L221: x-page starts at 1',
    checks: ['pagination.offset-headers'],
    // The first page's wrong x-page is the first failure; the check stops there.
    breaks: ['PAG-X-PAGE-STARTS-AT-1'],
    rewrite: {
      answer(asked, answer) {
        if (!offsetPage(asked, answer)) return false;
        answer.head.set('x-page', [String(Number(answer.head.get('x-page')![0]) + 1)]);
        return true;
      },
    },
  },
  {
    name: 'x-next-page left empty on the pages of a collection above 10,000 records',
    cite: 'L221: offset responses carry x-next-page; L279: above 10,000 records only x-total, x-total-pages and rel=last go',
    checks: ['pagination.totals-omitted-above-limit'],
    breaks: ['PAG-OFFSET-HEADERS'],
    rewrite: {
      answer(asked, answer) {
        // Pages without totals are the large collection's here (the simulator's small ones carry them).
        if (!offsetPage(asked, answer) || answer.head.has('x-total')) return false;
        answer.head.set('x-next-page', ['']);
        return true;
      },
    },
  },
  {
    name: 'x-total and x-total-pages left out of a small collection on self-managed',
    cite: 'L221: offset responses carry x-total and x-total-pages; L222, L279: only hosted, or above 10,000 records, omit them',
    checks: OFFSET_CHECKS,
    breaks: ['PAG-OFFSET-HEADERS'],
    rewrite: {
      answer(asked, answer) {
        if (!offsetPage(asked, answer)) return false;
        answer.head.delete('x-total');
        answer.head.delete('x-total-pages');
        return true;
      },
    },
  },
  {
    name: 'no keyset next link on a page while more rows follow',
    cite: 'L217-219: each response carries Link; the keyset next link adds a filter; only the end has none',
    checks: ['pagination.keyset-list-projects'],
    // With no next link the page carries no Link at all (L217: each response carries one).
    breaks: ['PAG-KEYSET-NEXT-LINK', 'PAG-LINK-HEADER'],
    rewrite: {
      answer(asked, answer) {
        const links = simulatorLinks(answer);
        if (!keysetPage(asked, answer) || !links.some((l) => l.rel === 'next')) return false;
        const kept = links.filter((l) => l.rel !== 'next').map(({ url, rel }) => `<${url}>; rel="${rel}"`);
        if (kept.length) answer.head.set('link', [kept.join(', ')]);
        else answer.head.delete('link');
        return true;
      },
    },
  },
  {
    name: 'rel=prev on the first offset page, to itself',
    cite: 'RFC 8288 §3 and L217: a prev link names the previous page; the first has none',
    checks: OFFSET_CHECKS,
    breaks: ['PAG-LINK-RELS'],
    rewrite: {
      answer(asked, answer) {
        if (!offsetPage(asked, answer) || answer.head.get('x-page')?.[0] !== '1') return false;
        answer.head.set('link', [...(answer.head.get('link') ?? []), `<${asked.url.href}>; rel="prev"`]);
        return true;
      },
    },
  },
  {
    name: 'x-per-page echoing a per_page above the maximum while the page holds the maximum',
    cite: 'L205, L221: per_page is capped at 100 and x-per-page tells the page size',
    checks: ['pagination.offset-headers'],
    breaks: ['PAG-OFFSET-HEADERS'],
    rewrite: {
      answer(asked, answer) {
        const asks = Number(asked.url.searchParams.get('per_page'));
        if (!offsetPage(asked, answer) || !(asks > 100)) return false;
        answer.head.set('x-per-page', [String(asks)]);
        return true;
      },
    },
  },
  {
    name: 'an unknown /api/v4 route answered 404 text/html by a front proxy',
    cite: 'ERR-REST-JSON-BODY (documented): REST errors answer JSON; the status, 404, is right',
    checks: ['versioning.unknown-route-404', 'versioning.rest-errors-json'],
    breaks: ['ERR-REST-JSON-BODY'],
    rewrite: {
      answer(asked, answer) {
        if (!asked.url.pathname.startsWith('/api/v4/') || answer.status !== 404) return false;
        answer.head = new Map([['content-type', ['text/html']]]);
        answer.body = Buffer.from('<html><body><h1>404 Not Found</h1></body></html>');
        return true;
      },
    },
  },
  {
    name: 'a REST API closed to OAuth access tokens (401 to each, personal access tokens still served)',
    cite: 'L248: a token received from the flow must succeed on GET /api/v4/user',
    checks: [
      'scopes.presentation-bearer',
      ...LEANING_ON_REST_TOKENS,
      // They ask the REST API whether a token works, and go on with the other oracles.
      'grants.refresh-rotation',
      'tokens.revoke-access-token',
      'tokens.info-presentations',
      'device.token-response',
      // The personal access token still reads the API.
      'pagination.offset-headers',
    ],
    breaks: ['TOK-VERIFY-USER'],
    rewrite: closedToOAuthTokens,
    after(report) {
      // Reported once, by one check; what leans on it is skipped, naming the reporter.
      expect(report.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual([
        'scopes.presentation-bearer',
      ]);
      const skipped = new Map(report.checks.filter((c) => c.status === 'skipped').map((c) => [c.id, c.message]));
      for (const id of LEANING_ON_REST_TOKENS)
        expect(skipped.get(id), id).toMatch(/takes no OAuth access token .*presentation-bearer.*TOK-VERIFY-USER/);
      expect(report.checks.find((c) => c.id === 'pagination.offset-headers')?.status).toBe('passed');
    },
  },
  {
    // nginx's client_max_body_size set low (8k) on the API location: its 413 page before GitLab reads the body.
    name: "a body of 8 KiB or more refused by nginx's own 413 page (client_max_body_size 8k)",
    cite: 'L264: a query string too long: "send the parameters in a body instead"; L190: parameters may travel in a body',
    checks: ['encoding.long-params-in-body'],
    breaks: ['ENC-LONG-PARAMS-IN-BODY'],
    rewrite: {
      request(asked) {
        if (!asked.url.pathname.startsWith('/api/v4/') || asked.body.length < 8192) return false;
        asked.body = Buffer.alloc(0);
        asked.headers['x-refused-by-front'] = '413';
        return true;
      },
      answer(asked, answer) {
        if (asked.headers['x-refused-by-front'] !== '413') return false;
        nginxPage(answer, 413, 'Request Entity Too Large');
        return true;
      },
    },
  },
  {
    // nginx `proxy_pass http://gitlab/;` (a URI part) normalises the path: %2F arrives as /.
    name: 'a front proxy that decodes %2F in the path before the service sees it',
    cite: 'L194: a namespaced path is sent with / as %2F; "a proxy in front of the service must not decode encoded path parameters"',
    checks: ['encoding.namespaced-path-encoded', 'encoding.issue-iid-in-path', 'versioning.tree-missing-path-404'],
    // The encoded path matches no endpoint (L194: "otherwise the path matches no endpoint"), as the
    // fault encoded-slash-rejected has it; the checks that reach the project that way stop there.
    breaks: ['ENC-NAMESPACED-PATH', 'ENC-PATH-PARAM-ENCODED'],
    rewrite: {
      request(asked) {
        if (!rawPath(asked).startsWith('/api/v4/projects/') || !/%2F/i.test(rawPath(asked))) return false;
        asked.url = new URL(`${rawPath(asked).replace(/%2F/gi, '/')}${asked.url.search}`, asked.url);
        return true;
      },
    },
  },
  {
    // Gitea and Forgejo cap a page at [api] MAX_RESPONSE_ITEMS, 50 by default; a gateway in front may do the same.
    name: 'per_page capped at 50 (x-per-page, the rows and the links say 50)',
    cite: 'L205, L211, L274: per_page default 20, max 100',
    checks: OFFSET_CHECKS,
    breaks: ['PAG-PER-PAGE-MAX', 'LIM-PER-PAGE'],
    rewrite: {
      request(asked) {
        const asks = Number(asked.url.searchParams.get('per_page'));
        if (!asked.url.pathname.startsWith('/api/v4/') || !(asks > 50)) return false;
        asked.url.searchParams.set('per_page', '50');
        return true;
      },
    },
  },
  {
    // GitLab's own answer where keyset is off for a resource (its API helper refuses it so).
    name: 'keyset pagination off for project jobs: 405 "Keyset pagination is not yet available for this type of request"',
    ...KEYSET_OFF_FOR_JOBS,
    rewrite: {
      answer(asked, answer) {
        if (!projectJobs(asked) || asked.url.searchParams.get('pagination') !== 'keyset') return false;
        answer.status = 405;
        answer.head = new Map([['content-type', ['application/json']]]);
        setJson(answer, { error: 'Keyset pagination is not yet available for this type of request' });
        return true;
      },
    },
  },
  {
    // An instance where keyset of project jobs is off and the parameter is ignored: offset pages,
    // whose links keep every parameter asked (GitLab builds them from the request's).
    name: 'keyset pagination off for project jobs: pagination=keyset ignored, offset pages served',
    ...KEYSET_OFF_FOR_JOBS,
    rewrite: {
      request(asked) {
        if (!projectJobs(asked) || asked.url.searchParams.get('pagination') !== 'keyset') return false;
        asked.url.searchParams.delete('pagination');
        asked.headers['x-keyset-ignored'] = '1';
        return true;
      },
      answer(asked, answer) {
        if (asked.headers['x-keyset-ignored'] !== '1') return false;
        const links = simulatorLinks(answer).map(({ url, rel }) => {
          const to = new URL(url);
          to.searchParams.set('pagination', 'keyset');
          return `<${to.href}>; rel="${rel}"`;
        });
        if (links.length) answer.head.set('link', [links.join(', ')]);
        return true;
      },
    },
  },
  {
    // The config says 18.0; the instance was never upgraded past 16.11.
    name: 'a 16.11 instance behind a config that says 18.0 (tree 200 [], ci_job_token_scope_enabled, no member roles)',
    cite: 'L265, L301: a missing tree path 404 from 17.7; L306: ci_job_token_scope_enabled removed in 17.0; L305: member roles from 17.0',
    checks: [
      'versioning.tree-missing-path-404',
      'versioning.ci-job-token-scope-removed',
      'versioning.member-roles',
      'versioning.api-prefix',
    ],
    breaks: ['ERR-TREE-MISSING-PATH-404', 'VER-CI-JOB-TOKEN-SCOPE-REMOVED', 'VER-MEMBER-ROLES'],
    rewrite: {
      answer(asked, answer) {
        const { pathname } = asked.url;
        if (!pathname.startsWith('/api/v4/')) return false;
        if (pathname.endsWith('/repository/tree') && answer.status === 404) {
          answer.status = 200;
          answer.head = new Map([['content-type', ['application/json']]]);
          answer.body = Buffer.from('[]');
          return true;
        }
        if (pathname.startsWith('/api/v4/member_roles')) {
          answer.status = 404;
          answer.head = new Map([['content-type', ['application/json']]]);
          answer.body = Buffer.from('{"error":"404 Not Found"}');
          return true;
        }
        const project =
          /^\/api\/v4\/projects\/[^/]+$/.test(pathname) && answer.status === 200 ? jsonOf(answer) : undefined;
        if (!project) return false;
        setJson(answer, { ...project, ci_job_token_scope_enabled: false });
        return true;
      },
    },
  },
  {
    // nginx `proxy_intercept_errors on;` with `error_page 400 401 403 404 ...`: its own HTML page for every REST
    // 4xx, the status and the headers (WWW-Authenticate, Location) kept.
    name: "every REST 4xx body replaced by nginx's HTML page (proxy_intercept_errors), status and headers kept",
    cite: 'ERR-REST-JSON-BODY (documented): REST errors answer JSON; every status, and so every refusal the source asks for, is right',
    checks: [
      'versioning.unknown-route-404',
      'versioning.rest-errors-json',
      'versioning.tree-missing-path-404',
      'scopes.missing-token-401',
      'scopes.bad-token-401',
      'scopes.insufficient-scope-403',
      'scopes.read-user-refused-where-api-needed',
      'encoding.namespaced-path-encoded',
      'pagination.keyset-unsupported-endpoint',
    ],
    breaks: ['ERR-REST-JSON-BODY'],
    // Each refusal is judged on its status and headers, not stepped around.
    after: (report) => expect(report.checks.filter((c) => c.status === 'skipped').map((c) => c.id)).toEqual([]),
    rewrite: {
      answer(asked, answer) {
        if (!asked.url.pathname.startsWith('/api/v4/') || answer.status < 400 || answer.status >= 500) return false;
        const head = new Map([...answer.head].filter(([name]) => name !== 'content-type'));
        nginxPage(answer, answer.status, 'Error');
        for (const [name, values] of head) answer.head.set(name, values);
        return true;
      },
    },
  },
  {
    // GitLab behind a proxy that does not pass Host (proxy_set_header Host missing): it writes its
    // links with the upstream's own address, which clients cannot reach.
    name: 'Link URLs naming the internal upstream (http://gitlab-webservice-default:8181) instead of the public address',
    cite: 'L217: clients must follow the Link URLs (they lead nowhere a client can go)',
    checks: [...OFFSET_CHECKS, 'pagination.keyset-list-projects'],
    breaks: ['PAG-LINK-FOLLOW'],
    rewrite: {
      answer(asked, answer) {
        const links = simulatorLinks(answer);
        if (!asked.url.pathname.startsWith('/api/v4/') || !links.length) return false;
        const upstream = (url: string) => {
          const to = new URL(url);
          return `http://gitlab-webservice-default:8181${to.pathname}${to.search}`;
        };
        answer.head.set('link', [links.map(({ url, rel }) => `<${upstream(url)}>; rel="${rel}"`).join(', ')]);
        return true;
      },
    },
  },
  {
    // GitLab's keyset Pager: a page shorter than per_page is the end reached, sent without Link.
    name: 'a keyset page shorter than per_page with no Link, as the end (no empty page after it)',
    cite: 'L219: at the end of a keyset collection the Link header is absent and the result array is empty',
    checks: ['pagination.keyset-list-projects', 'pagination.keyset-rows-list-projects'],
    breaks: ['PAG-KEYSET-END'],
    rewrite: {
      answer(asked, answer) {
        if (!keysetPage(asked, answer) || !answer.head.has('link')) return false;
        const rows = JSON.parse(answer.body.toString('utf8')) as unknown[];
        if (!rows.length || rows.length >= Number(asked.url.searchParams.get('per_page') ?? 20)) return false;
        answer.head.delete('link');
        return true;
      },
    },
  },
  {
    // A gateway (Spring, Kong) answering every REST refusal with RFC 9457 problem details alone.
    name: 'every REST 4xx body an RFC 9457 problem (type, title, status, detail), no message or error',
    cite: 'ERR-REST-JSON-BODY (documented): REST errors carry message or error; every status is right',
    checks: [
      'versioning.unknown-route-404',
      'versioning.rest-errors-json',
      'scopes.missing-token-401',
      'scopes.insufficient-scope-403',
      'scopes.read-user-refused-where-api-needed',
      'pagination.max-offset',
    ],
    breaks: ['ERR-REST-JSON-BODY'],
    rewrite: {
      answer(asked, answer) {
        if (!asked.url.pathname.startsWith('/api/v4/') || answer.status < 400 || answer.status >= 500) return false;
        answer.head.set('content-type', ['application/problem+json']);
        setJson(answer, { type: 'about:blank', title: 'Error', status: answer.status, detail: 'refused' });
        return true;
      },
    },
  },
  {
    // Gitea caps some listings lower than others; here only the issues of a project.
    name: 'per_page capped at 50 on the issues of a project only, every other listing at 100',
    cite: 'L205, L211, L274: per_page default 20, max 100, on every paginated endpoint',
    checks: [...OFFSET_CHECKS, 'pagination.keyset-list-projects'],
    breaks: ['PAG-PER-PAGE-MAX', 'LIM-PER-PAGE'],
    rewrite: {
      request(asked) {
        const asks = Number(asked.url.searchParams.get('per_page'));
        if (!/^\/api\/v4\/projects\/[^/]+\/issues$/.test(asked.url.pathname) || !(asks > 50)) return false;
        asked.url.searchParams.set('per_page', '50');
        return true;
      },
    },
  },
  {
    // A front that drops the provider's challenge on REST refusals (a gateway rewriting 401s).
    name: 'REST 401s without WWW-Authenticate, status and JSON body kept',
    cite: 'RFC 6750 §3, RFC 9110 §11.6.1: a 401 carries a WWW-Authenticate challenge (AUTH-INVALID-TOKEN-401, should)',
    checks: ['scopes.bad-token-401', 'scopes.revoked-token-401', 'scopes.missing-token-401', 'grants.refresh-rotation'],
    breaks: ['AUTH-INVALID-TOKEN-401'],
    rewrite: {
      answer(asked, answer) {
        if (!asked.url.pathname.startsWith('/api/v4/') || answer.status !== 401) return false;
        return answer.head.delete('www-authenticate');
      },
    },
  },
];
