/**
 * The normalisation `diff` compares: generated values (tokens, ids, times, cookies) never count
 * and never show, header names and order do not matter, JSON is compared by shape, redirects by
 * role and parameter names; and what differs is found per operation, by order.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareShapes,
  createRecording,
  diffRecordings,
  operationOf,
  pairShapes,
  shapeOf,
} from '../../suites/diff/index.js';
import type { CheckResult, Exchange } from '../../suites/report/model.js';
import { unknownSegment } from '../../suites/versioning/index.js';
import { namespacedPathArb, unencodedParam } from '../../suites/encoding/names.js';

const BASE = 'http://127.0.0.1:4000';

function exchange(
  method: string,
  path: string,
  status: number,
  headers: Record<string, string>,
  body?: unknown,
  requestHeaders: Record<string, string> = {},
): Exchange {
  return {
    request: { method, url: BASE + path, headers: requestHeaders },
    response: {
      status,
      headers,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    },
  };
}

const token = (access: string, refresh: string) =>
  exchange(
    'POST',
    '/oauth/token',
    200,
    { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', pragma: 'no-cache' },
    { access_token: access, token_type: 'bearer', expires_in: 7200, refresh_token: refresh, created_at: 1700000000 },
  );

describe('operationOf', () => {
  it('names the OpenAPI template of a path, the most specific one first', () => {
    expect(operationOf('GET', `${BASE}/api/v4/projects/42/issues?page=2`)).toBe('GET /api/v4/projects/{id}/issues');
    expect(operationOf('post', `${BASE}/oauth/token`)).toBe('POST /oauth/token');
    expect(operationOf('OPTIONS', `${BASE}/oauth/token`)).toBe('OPTIONS /oauth/token');
  });

  it('keeps an unknown path by its shape, ids out', () => {
    expect(operationOf('GET', `${BASE}/nowhere/123/x`)).toBe('GET /nowhere/{n}/x');
  });

  it('folds the names the harness makes up, whatever the seed (review 30)', () => {
    // The unknown routes of versioning.unknown-route-404, and the project paths with bare slashes
    // of encoding.namespaced-path-encoded (with and without the suffix it sends), for five seeds.
    const operations = (seed: number) => [
      ...fc.sample(unknownSegment, { seed, numRuns: 4 }).map((s) => operationOf('DELETE', `${BASE}/api/v4/${s}`)),
      ...fc
        .sample(namespacedPathArb, { seed, numRuns: 4 })
        .flatMap((p) =>
          ['', '/issues'].map((end) => operationOf('GET', `/api/v4/projects/${unencodedParam(p)}${end}`)),
        ),
    ];
    const seen = new Set([1, 7, 8, 42, 1234].flatMap(operations));
    expect([...seen].sort()).toEqual(['DELETE /api/v4/{generated}', 'GET /api/v4/projects/{generated}']);
    // A name of the target's own is kept.
    expect(operationOf('GET', `${BASE}/api/v4/conformance/x`)).toBe('GET /api/v4/conformance/x');
  });
});

describe('shapeOf', () => {
  it('keeps no generated value: two token responses with other tokens have one shape', () => {
    const a = shapeOf(token('secret-access-AAAA', 'secret-refresh-AAAA'));
    const b = shapeOf(token('other-access-BBBB', 'other-refresh-BBBB'));
    expect(a).toEqual(b);
    expect(JSON.stringify(a)).not.toMatch(/secret|7200|1700000000/);
    expect(a.members).toMatchObject({
      '$.access_token': 'string',
      '$.token_type': 'string "bearer"',
      '$.expires_in': 'integer',
    });
  });

  it('shows a word of the spec as written (token_type Bearer against bearer)', () => {
    const shape = shapeOf(exchange('POST', '/oauth/token', 200, {}, { token_type: 'Bearer', access_token: 'bearer' }));
    expect(shape.members['$.token_type']).toBe('string "Bearer"');
    // A value that happens to be a word of another member is still a value.
    expect(shape.members['$.access_token']).toBe('string');
  });

  it("shows a URL's parameter names, never their values", () => {
    const shape = shapeOf(
      exchange(
        'POST',
        '/oauth/authorize_device',
        200,
        {},
        {
          verification_uri: 'http://h/device',
          verification_uri_complete: 'http://h/device?user_code=SECRET-CODE',
        },
      ),
    );
    expect(shape.members['$.verification_uri']).toBe('string');
    expect(shape.members['$.verification_uri_complete']).toBe('string URL?user_code');
  });

  it('ignores header case and order, and compares values by their form', () => {
    const a = shapeOf(exchange('GET', '/api/v4/projects', 200, { 'X-Total': '12', Vary: 'Origin, Accept' }, []));
    const b = shapeOf(exchange('GET', '/api/v4/projects', 200, { vary: 'accept,origin', 'x-total': '999' }, []));
    expect(a.headers).toEqual(b.headers);
    expect(a.headers['x-total']).toBe('number');
  });

  it('reads the OAuth error code from the body, and from a redirect', () => {
    expect(shapeOf(exchange('POST', '/oauth/token', 400, {}, { error: 'invalid_grant' })).error).toBe('invalid_grant');
    const redirect: Exchange = {
      request: {
        method: 'GET',
        url: `${BASE}/oauth/authorize?client_id=c&redirect_uri=${encodeURIComponent('http://127.0.0.1:9/cb')}`,
        headers: {},
      },
      response: { status: 302, headers: { Location: 'http://127.0.0.1:9/cb?error=access_denied&state=xyz' } },
    };
    const shape = shapeOf(redirect);
    expect(shape.error).toBe('access_denied');
    expect(shape.location).toBe('{redirect_uri}?error,state');
  });

  it('names a redirect on the target by its template, elsewhere by role', () => {
    const here = shapeOf(exchange('GET', '/oauth/authorize', 302, { location: '/users/sign_in?x=1' }));
    expect(here.location).toMatch(/^\/users\/sign_in\?x$/);
    const away = shapeOf(exchange('GET', '/api/v4/projects/a%2Fb', 301, { location: 'https://elsewhere.test/p' }));
    expect(away.location).toBe('{other origin}?');
  });

  it('keeps cookie names and attributes, never their values', () => {
    const shape = shapeOf(exchange('GET', '/', 200, { 'set-cookie': '_session=SECRETVALUE; Path=/; HttpOnly' }));
    expect(shape.headers['set-cookie']).toBe('_session;httponly;path');
  });

  it('masks a secret in every name it keeps: members, cookies, lists, challenge and query parameters, path segments (review 24)', () => {
    const secret = 'glpat-Echoed0Secret0Name';
    const mask = (text: string) => text.replaceAll(secret, 'glpa…');
    const answer = exchange(
      'GET',
      `/echo/${secret}/x?page=2`,
      302,
      {
        'content-type': secret,
        'set-cookie': `${secret}=1; Path=/`,
        vary: `Accept, ${secret}`,
        'access-control-expose-headers': secret,
        'www-authenticate': `Bearer realm="x", ${secret}=1`,
        link: `<${BASE}/api/v4/projects?${secret}=1&page=2>; rel="next"`,
        location: `${BASE}/echo/${secret}?${secret}=1#${secret}=1`,
      },
      { [secret]: { [secret]: `https://x/?${secret}=1` } },
    );
    const shown = JSON.stringify(shapeOf(answer, mask));
    expect(shown).not.toContain(secret);
    // What went through the mask shows it.
    expect(shown).toContain('$.glpa….glpa…');
    expect(shapeOf(answer, mask).operation).toBe('GET /echo/{id}/x');
    // Without the run's masking (a caller of its own), the names are kept as they came.
    expect(JSON.stringify(shapeOf(answer))).toContain(secret);
  });

  it('stays bounded and inert whatever the target sends', () => {
    const wide = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`m${i}`, i]));
    const deep = JSON.parse('['.repeat(500) + ']'.repeat(500)) as unknown;
    const shape = shapeOf(exchange('GET', '/api/v4/projects', 200, {}, { wide, deep, '\u001b[31mred\u202e': 1 }));
    expect(Object.keys(shape.members).length).toBeLessThanOrEqual(300);
    expect(Object.keys(shape.members).join('')).not.toMatch(/[\u0000-\u001f\u007f-\uffff]/);
  });
});

describe('compareShapes and pairShapes', () => {
  const ok = shapeOf(token('a', 'b'));

  it('finds a missing member, a changed type and a missing header', () => {
    const other = shapeOf(
      exchange(
        'POST',
        '/oauth/token',
        200,
        { 'content-type': 'application/json' },
        { access_token: 1, token_type: 'bearer' },
      ),
    );
    const found = compareShapes(other, ok);
    expect(found).toContainEqual({ kind: 'type', subject: '$.access_token', target: 'integer', reference: 'string' });
    expect(found).toContainEqual({ kind: 'member', subject: '$.refresh_token', target: 'absent', reference: 'string' });
    expect(found).toContainEqual({ kind: 'header', subject: 'cache-control', target: 'absent', reference: 'no-store' });
  });

  it('reports different statuses alone (with the error code), not the bodies they explain', () => {
    const refused = shapeOf(exchange('POST', '/oauth/token', 401, {}, { error: 'invalid_client' }));
    expect(compareShapes(refused, ok)).toEqual([
      { kind: 'status', subject: 'status', target: '401', reference: '200' },
      { kind: 'error', subject: 'error', target: 'invalid_client', reference: 'absent' },
    ]);
  });

  it('reports a body not as documented once, by the member that differs, not again as the whole body', () => {
    // The password grant's answer: no branch of the token response's anyOf matches `Bearer`, so the
    // schema's first violation is the body itself ($), not the member that caused it.
    const password = (tokenType: string) =>
      shapeOf(
        exchange(
          'POST',
          '/oauth/token',
          200,
          { 'content-type': 'application/json' },
          { access_token: 'x', token_type: tokenType, expires_in: 7200 },
        ),
      );
    expect(password('Bearer').violation).toBe('$');
    expect(compareShapes(password('Bearer'), password('bearer'))).toEqual([
      { kind: 'type', subject: '$.token_type', target: 'string "Bearer"', reference: 'string "bearer"' },
    ]);
  });

  it('reports a body of another kind once (empty, HTML for JSON), not its members, error code and Content-Type again', () => {
    const refusal = shapeOf(
      exchange(
        'POST',
        '/oauth/token',
        400,
        { 'content-type': 'application/json', 'cache-control': 'no-store' },
        { error: 'invalid_grant', error_description: 'The provided authorization grant is invalid' },
      ),
    );
    // An empty error body: one cause, whatever the reference's body held.
    const empty = shapeOf(exchange('POST', '/oauth/token', 400, { 'cache-control': 'no-store' }));
    expect(compareShapes(empty, refusal)).toEqual([
      { kind: 'type', subject: '$', target: 'empty', reference: 'object' },
    ]);
    // A page for JSON, and a header that has nothing to do with the body: two causes, two rows.
    const page = shapeOf(exchange('POST', '/oauth/token', 400, { 'content-type': 'text/html' }, '<h1>Bad</h1>'));
    expect(compareShapes(page, refusal)).toEqual([
      { kind: 'type', subject: '$', target: 'HTML', reference: 'object' },
      { kind: 'header', subject: 'cache-control', target: 'absent', reference: 'no-store' },
    ]);
  });

  it('pairs by operation and order, whatever else came between', () => {
    const info = shapeOf(exchange('GET', '/oauth/token/info', 200, {}, {}));
    const { pairs, onlyTarget, onlyReference } = pairShapes([ok, info, ok], [info, ok]);
    expect(pairs.map(([t, r]) => [t.operation, r.operation])).toEqual([
      ['POST /oauth/token', 'POST /oauth/token'],
      ['GET /oauth/token/info', 'GET /oauth/token/info'],
    ]);
    expect(onlyTarget.map((s) => s.operation)).toEqual(['POST /oauth/token']);
    expect(onlyReference).toEqual([]);
  });
});

describe('diffRecordings', () => {
  const failed: CheckResult = {
    id: 'c.failed',
    suite: 'tokens',
    title: 't',
    rules: ['TOK-NO-STORE', 'TOK-X'],
    broken: ['TOK-NO-STORE'],
    status: 'failed',
    durationMs: 1,
  };

  it('links a difference to the rules its check failed there, else marks it uncovered, and groups repeats', () => {
    const target = createRecording();
    const reference = createRecording();
    const uncached = exchange('POST', '/oauth/token', 200, {}, {});
    const cached = exchange('POST', '/oauth/token', 200, { 'cache-control': 'no-store' }, {});
    for (const id of ['c.failed', 'c.failed', 'c.passed']) {
      target.add(id, uncached);
      reference.add(id, cached);
    }
    // The failed assertion came after both of the failed check's exchanges (test/diff/linking.test.ts).
    target.judge('c.failed', ['TOK-NO-STORE'], false);
    const section = diffRecordings({ target, reference, results: [failed], referenceName: 'ref' });
    expect(section.exchanges).toEqual({ target: 3, reference: 3, paired: 3 });
    expect(section.differences).toEqual([
      {
        operation: 'POST /oauth/token',
        kind: 'header',
        subject: 'cache-control',
        target: 'absent',
        reference: 'no-store',
        rules: ['TOK-NO-STORE'],
        checks: ['c.failed', 'c.passed'],
        count: 3,
      },
    ]);
  });

  it("does not count what a failed check did not send after its failure, but does a passing one's", () => {
    const target = createRecording();
    const reference = createRecording();
    const one = exchange('GET', '/oauth/token/info', 200, {}, {});
    reference.add('c.failed', one);
    reference.add('c.passed', one);
    const section = diffRecordings({ target, reference, results: [failed], referenceName: 'ref' });
    expect(section.differences.map((d) => [d.checks[0], d.kind, d.target])).toEqual([
      ['c.passed', 'exchange', 'not sent'],
    ]);
  });

  it('says a difference is not judged, not that no rule covers it, where the rules of checks left out concern it', () => {
    const target = createRecording();
    const reference = createRecording();
    target.add('c.passed', exchange('POST', '/oauth/token', 200, {}, {}));
    reference.add('c.passed', exchange('POST', '/oauth/token', 200, { 'cache-control': 'no-store' }, {}));
    const judged = (leftOut?: string[]) =>
      diffRecordings({ target, reference, results: [], referenceName: 'ref', ...(leftOut ? { leftOut } : {}) })
        .differences[0];
    // Every check run: nothing judged it, so no rule covers it.
    expect(judged().unjudged).toBeUndefined();
    // --suite tokens left out the check of TOK-NO-STORE (whose sentence names Cache-Control);
    // a rule of another operation (PAG-LINK-HEADER) or one not naming it (TOK-CREATED-AT) is not said.
    expect(judged(['PAG-LINK-HEADER', 'TOK-CREATED-AT', 'TOK-NO-STORE']).unjudged).toEqual(['TOK-NO-STORE']);
    // None of those left out names it: as far as the spec says, no rule covers it.
    expect(judged(['PAG-LINK-HEADER', 'TOK-CREATED-AT']).unjudged).toBeUndefined();
  });

  it('keeps a bounded number of exchanges and says how many it left out', () => {
    const target = createRecording(2);
    const reference = createRecording(2);
    for (let i = 0; i < 5; i++) target.add('c', exchange('GET', '/', 200, {}));
    expect(target.total).toBe(2);
    const section = diffRecordings({ target, reference, results: [], referenceName: 'ref' });
    expect(section.unrecorded).toBe(3);
  });
});
