import { describe, expect, it } from 'vitest';
import { createFlows, judgeExchange, type Observed } from '../../suites/proxy/judge.js';
import type { Verdict } from '../../suites/proxy/recorder.js';

const JSON_TYPE = { 'content-type': 'application/json' };

function get(
  target: string,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  at = 1_000,
): Observed {
  return {
    method: 'GET',
    target,
    requestHeaders: new Headers(),
    status,
    responseHeaders: new Headers({ ...JSON_TYPE, ...headers }),
    responseBody: Buffer.from(JSON.stringify(body)),
    at,
  };
}

const failed = (verdicts: Verdict[]) => [...new Set(verdicts.filter((v) => !v.ok).map((v) => v.rule))].sort();
const passed = (verdicts: Verdict[]) => new Set(verdicts.filter((v) => v.ok).map((v) => v.rule));

describe('offset pages where the support table offers no keyset', () => {
  it('an endpoint outside the table that ignores pagination=keyset and serves offset pages breaks nothing', () => {
    const page = 'http://127.0.0.1/api/v4/projects/1/issues?pagination=keyset&page=1&per_page=20';
    const offset = {
      'x-page': '1',
      'x-per-page': '20',
      'x-total': '1',
      'x-total-pages': '1',
      link: `<${page}>; rel="first", <${page}>; rel="last"`,
    };
    const outside = judgeExchange(
      get('/api/v4/projects/1/issues?pagination=keyset&page=1&per_page=20', 200, [{ id: 1 }], offset),
      createFlows(),
    );
    expect(failed(outside)).toEqual([]);
    // The same answer where the table offers keyset breaks the endpoint's row (PAG-KEYSET-PROJECTS),
    // as the keyset checks blame it: its offset headers follow from the offset pages, no second blame.
    const offered = judgeExchange(
      get('/api/v4/projects?pagination=keyset&order_by=id&sort=asc', 200, [{ id: 1 }], offset),
      createFlows(),
    );
    expect(failed(offered)).toEqual(['PAG-KEYSET-PROJECTS']);
  });
});

describe('keyset rows are read at the release the proxy holds the target to', () => {
  // Users offer keyset from 16.5 (spec/openapi.yaml x-keyset since): before, offset pages answer.
  const page = 'http://127.0.0.1/api/v4/users?pagination=keyset&order_by=id&sort=asc&per_page=20&page=1';
  const offset = { 'x-page': '1', 'x-per-page': '20', link: `<${page}>; rel="first"` };
  const users = () => get('/api/v4/users?pagination=keyset&order_by=id&sort=asc&per_page=20', 200, [{ id: 1 }], offset);

  it('before the row comes in, offset pages for pagination=keyset break nothing', () => {
    expect(failed(judgeExchange(users(), createFlows({ release: '16.4' })))).toEqual([]);
  });

  it("from its release on, the same answer breaks the endpoint's row, PAG-KEYSET-USERS", () => {
    expect(failed(judgeExchange(users(), createFlows({ release: '16.5' })))).toEqual(['PAG-KEYSET-USERS']);
    expect(failed(judgeExchange(users(), createFlows()))).toEqual(['PAG-KEYSET-USERS']);
  });

  it('an ordering refused or served before the row comes in is not judged against it', () => {
    const served = get('/api/v4/users?pagination=keyset&order_by=created_at&sort=asc', 200, [{ id: 1 }]);
    expect(failed(judgeExchange(served, createFlows({ release: '16.5' })))).toEqual(['PAG-KEYSET-SELECTED-ENDPOINTS']);
    expect(judgeExchange(served, createFlows({ release: '16.4' })).map((v) => v.rule)).not.toContain(
      'PAG-KEYSET-SELECTED-ENDPOINTS',
    );
  });
});

describe('keyset orderings against the support table', () => {
  // Groups: keyset with order_by=name&sort=asc only (spec/openapi.yaml x-keyset).
  const rows = [{ id: 1, name: 'a' }];

  it('an ordering the table does not allow, served as keyset, breaks PAG-KEYSET-SELECTED-ENDPOINTS', () => {
    const verdicts = judgeExchange(
      get('/api/v4/groups?pagination=keyset&order_by=id&sort=asc', 200, rows),
      createFlows(),
    );
    expect(failed(verdicts)).toEqual(['PAG-KEYSET-SELECTED-ENDPOINTS']);
  });

  it('refused with a 4xx, or an allowed ordering served, holds to it; what shows neither is not judged', () => {
    const refused = judgeExchange(
      get('/api/v4/groups?pagination=keyset&order_by=name&sort=desc', 400, { message: 'no' }),
      createFlows(),
    );
    const allowed = judgeExchange(
      get('/api/v4/groups?pagination=keyset&order_by=name&sort=asc', 200, rows),
      createFlows(),
    );
    for (const verdicts of [refused, allowed]) {
      expect(failed(verdicts)).toEqual([]);
      expect(passed(verdicts)).toContain('PAG-KEYSET-SELECTED-ENDPOINTS');
    }
    // Offset pages, a crash, an endpoint outside the table or no explicit ordering: not judged by it.
    for (const ex of [
      get('/api/v4/groups?pagination=keyset&order_by=id&sort=asc', 200, rows, { 'x-page': '1' }),
      get('/api/v4/groups?pagination=keyset&order_by=id&sort=asc', 500, {}),
      get('/api/v4/groups?pagination=keyset&order_by=id', 200, rows),
      get('/api/v4/projects/1/issues?pagination=keyset&order_by=name&sort=asc', 200, rows),
    ])
      expect(judgeExchange(ex, createFlows()).map((v) => v.rule)).not.toContain('PAG-KEYSET-SELECTED-ENDPOINTS');
    // Offset pages served for keyset (the parameter ignored) follow page numbers: no keyset walk.
    const offset = get('/api/v4/projects/1/issues?pagination=keyset&per_page=1', 200, rows, {
      'x-page': '1',
      link: '<http://127.0.0.1:3000/api/v4/projects/1/issues?pagination=keyset&per_page=1&page=2>; rel="next"',
    });
    const judged = judgeExchange(offset, createFlows()).map((v) => v.rule);
    for (const rule of ['PAG-KEYSET-NEXT-LINK', 'PAG-KEYSET-ROWS']) expect(judged).not.toContain(rule);
  });
});

describe('keyset pages after the page whose next link the proxy forwarded', () => {
  const base = '/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=2';
  const next = (after: number) => `${base}&id_after=${after}`;
  const link = (after: number) => ({ link: `<http://127.0.0.1:3000${next(after)}>; rel="next"` });
  const rows = (...ids: number[]) => ids.map((id) => ({ id, name: `p${id}` }));

  it('rows after the previous last row, and a next link with a new cursor, hold to the rules', () => {
    const flows = createFlows();
    expect(failed(judgeExchange(get(base, 200, rows(1, 2), link(2)), flows))).toEqual([]);
    const verdicts = judgeExchange(get(next(2), 200, rows(3, 4), link(4), 2_000), flows);
    expect(failed(verdicts)).toEqual([]);
    expect(passed(verdicts)).toContain('PAG-KEYSET-ROWS');
    expect(passed(verdicts)).toContain('PAG-KEYSET-NEXT-LINK');
  });

  it("the previous page's last row served again breaks PAG-KEYSET-ROWS", () => {
    const flows = createFlows();
    judgeExchange(get(base, 200, rows(1, 2), link(2)), flows);
    expect(failed(judgeExchange(get(next(2), 200, rows(2, 3), link(3), 2_000), flows))).toEqual(['PAG-KEYSET-ROWS']);
  });

  it('a row before the previous last row in the order asked breaks PAG-KEYSET-ROWS', () => {
    const flows = createFlows();
    judgeExchange(get(base, 200, rows(1, 5), link(5)), flows);
    expect(failed(judgeExchange(get(next(5), 200, rows(4, 6), link(6), 2_000), flows))).toEqual(['PAG-KEYSET-ROWS']);
  });

  it('the page past the last row, holding it again with a next link to itself, breaks both rules', () => {
    const flows = createFlows();
    judgeExchange(get(next(2), 200, rows(3), link(3)), flows);
    expect(failed(judgeExchange(get(next(3), 200, rows(3), link(3), 2_000), flows))).toEqual([
      'PAG-KEYSET-NEXT-LINK',
      'PAG-KEYSET-ROWS',
    ]);
  });

  it('a page no forwarded link led to is held only to itself, and a link that changed the ordering is not followed', () => {
    const alone = judgeExchange(get(next(2), 200, rows(2, 3), link(3)), createFlows());
    expect(failed(alone)).toEqual([]);
    expect(passed(alone)).toContain('PAG-KEYSET-ROWS');
    const flows = createFlows();
    const desc = next(2).replace('sort=asc', 'sort=desc');
    judgeExchange(get(base, 200, rows(1, 2), { link: `<${desc}>; rel="next"` }), flows);
    expect(failed(judgeExchange(get(desc, 200, rows(1), {}, 2_000), flows))).toEqual([]);
  });

  it('behind a target path prefix, a next link written with it leads to the page the client asks without it', () => {
    // `proxy --target https://idp.example/gitlab`: the provider links /gitlab/api/v4/…, the client asks /api/v4/….
    const flows = createFlows({ basePath: '/gitlab' });
    const prefixed = (after: number) => ({ link: `<https://idp.example/gitlab${next(after)}>; rel="next"` });
    judgeExchange(get(base, 200, rows(1, 2), prefixed(2)), flows);
    expect(failed(judgeExchange(get(next(2), 200, rows(2, 3), prefixed(3), 2_000), flows))).toEqual([
      'PAG-KEYSET-ROWS',
    ]);
  });

  it('a last row whose order key is long is not remembered (bounded memory)', () => {
    const flows = createFlows();
    const long = [{ id: 2, name: 'x'.repeat(10_000) }];
    judgeExchange(get(next(1), 200, long, link(2)), flows);
    expect(flows.keysetLast.size).toBe(0);
    judgeExchange(get(next(1), 200, rows(2), link(2)), flows);
    expect(flows.keysetLast.size).toBe(1);
  });
});
