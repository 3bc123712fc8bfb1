import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { operations, type OperationId } from '../../../spec/index.js';
import { keysetSupport } from '../../../simulator/api/keyset-table.js';
import { links, mint, pathOf, setup } from './helpers.js';

const SEED = Number(process.env.FC_SEED ?? 4242);

/** A request path for each list operation of the keyset table. */
const LIST_PATHS: Partial<Record<OperationId, string>> = {
  listGroupAuditEvents: '/api/v4/groups/group/audit_events',
  listGroups: '/api/v4/groups',
  listInstanceAuditEvents: '/api/v4/audit_events',
  listPackagePipelines: '/api/v4/projects/1/packages/11/pipelines',
  listProjectJobs: '/api/v4/projects/1/jobs',
  listProjectAuditEvents: '/api/v4/projects/1/audit_events',
  listProjects: '/api/v4/projects',
  listUsers: '/api/v4/users',
  listRegistryRepositoryTags: '/api/v4/projects/1/registry/repositories/11/tags',
  listRepositoryTree: '/api/v4/projects/1/repository/tree',
};

describe('keyset pagination (item 5)', () => {
  const { sim, api } = setup();
  const token = mint(sim, ['api']);
  const auth = { authorization: `Bearer ${token}` };

  it('covers exactly the operations with an x-keyset table entry', () => {
    const withKeyset = operations()
      .filter((o) => keysetSupport(o.operationId))
      .map((o) => o.operationId)
      .sort();
    expect(withKeyset).toEqual(Object.keys(LIST_PATHS).sort());
  });

  for (const [operationId, path] of Object.entries(LIST_PATHS) as [OperationId, string][]) {
    it(`${operationId}: every allowed ordering walks with a cursor link, without offset headers`, async () => {
      const support = keysetSupport(operationId)!;
      for (const order of support.orders) {
        const q = order.order_by ? `&order_by=${order.order_by}&sort=${order.sort}` : '';
        const req = api.get(`${path}?pagination=keyset&per_page=2${q}`);
        if (support.who !== 'unauthenticated') req.set(auth);
        const r = await req;
        expect(r.status, `${operationId} ${q}`).toBe(200);
        expect(r.body.length).toBe(2);
        for (const h of ['x-total', 'x-total-pages', 'x-page', 'x-next-page', 'x-prev-page'])
          expect(r.headers[h]).toBeUndefined();
        const next = links(r.headers.link).next;
        expect(new URL(next).searchParams.get(order.cursor)).toBeTruthy();
        const second = api.get(pathOf(next));
        if (support.who !== 'unauthenticated') second.set(auth);
        const page2 = await second;
        expect(page2.status).toBe(200);
        expect(JSON.stringify(page2.body[0])).not.toBe(JSON.stringify(r.body[1]));
      }
    });
  }

  it('a disallowed combination is a clear 400', async () => {
    const cases: [string, boolean][] = [
      ['/api/v4/projects/1/jobs?pagination=keyset&order_by=id&sort=asc', true],
      ['/api/v4/projects?pagination=keyset&order_by=name&sort=asc', false],
      ['/api/v4/groups?pagination=keyset&order_by=name&sort=desc', false],
      ['/api/v4/projects/1/issues?pagination=keyset&order_by=id&sort=asc', false],
      ['/api/v4/projects?pagination=bogus', false],
      ['/api/v4/groups?pagination=keyset&order_by=name&sort=asc', true], // groups: unauthenticated only
    ];
    for (const [path, withAuth] of cases) {
      const req = api.get(path);
      if (withAuth) req.set(auth);
      const r = await req;
      expect(r.status, path).toBe(400);
      expect(r.body.message, path).toEqual(expect.any(String));
    }
  });

  it('at the end the Link header is absent and the array is empty; every record is seen once, in order', async () => {
    const ids: number[] = [];
    let next: string | undefined =
      '/api/v4/projects/1/audit_events?pagination=keyset&order_by=id&sort=desc&per_page=100';
    let last: { body: unknown[]; headers: Record<string, string> } | undefined;
    while (next) {
      last = await api.get(next).set(auth);
      ids.push(...(last.body as { id: number }[]).map((e) => e.id));
      next = links(last.headers.link).next && pathOf(links(last.headers.link).next);
    }
    expect(last!.body).toEqual([]);
    expect(last!.headers.link).toBeUndefined();
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(ids.length);
    const total = await api.get('/api/v4/projects/1/audit_events?per_page=1').set(auth);
    expect(ids.length).toBe(Number(total.headers['x-total']));
  });

  it('users keyset from 16.5 only', async () => {
    expect((await api.get('/api/v4/users?pagination=keyset&order_by=username&sort=asc')).status).toBe(200);
    const old = setup({ release: '16.4' });
    expect((await old.api.get('/api/v4/users?pagination=keyset&order_by=id&sort=asc')).status).toBe(400);
  });

  it('a cursor deep in a million records answers like the start', async () => {
    const r = await api.get('/api/v4/audit_events?pagination=keyset&order_by=id&sort=desc&per_page=3').set(auth);
    expect(r.body.map((e: { id: number }) => e.id)).toEqual([1_000_000, 999_999, 999_998]);
    const url = new URL(links(r.headers.link).next);
    const param = [...url.searchParams.keys()].find((k) => k === 'cursor' || k === 'id_before')!;
    // rebuild the cursor of record 100,001 the same way the link encodes record 999,998
    const cursor =
      param === 'id_before' ? '100001' : Buffer.from(JSON.stringify({ k: 100_001, id: 100_001 })).toString('base64url');
    url.searchParams.set(param, cursor);
    const deep = await api.get(pathOf(url.toString())).set(auth);
    expect(deep.body.map((e: { id: number }) => e.id)).toEqual([100_000, 99_999, 99_998]);
    expect(
      (await api.get(`/api/v4/audit_events?pagination=keyset&order_by=id&sort=desc&${param}=%%%`).set(auth)).status,
    ).toBe(400);
    expect(
      (
        await api
          .get(
            '/api/v4/projects/1/registry/repositories/11/tags?pagination=keyset&order_by=name&sort=asc&cursor=bm9wZQ',
          )
          .set(auth)
      ).status,
    ).toBe(400);
  });

  it('walking users by name with any per_page visits every user exactly once, in order', async () => {
    const small = setup({ seedSize: 1 });
    const all: string[] = [];
    let next: string | undefined = '/api/v4/users?pagination=keyset&order_by=name&sort=asc&per_page=100';
    while (next) {
      const r = await small.api.get(next);
      all.push(...r.body.map((u: { name: string; id: number }) => `${u.name}\u0000${String(u.id).padStart(9, '0')}`));
      next = links(r.headers.link).next && pathOf(links(r.headers.link).next);
    }
    expect(all).toEqual([...all].sort());
    expect(new Set(all).size).toBe(all.length);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 100 }), fc.constantFrom('asc', 'desc'), async (perPage, sort) => {
        const seen: number[] = [];
        let url: string | undefined =
          `/api/v4/projects/1/registry/repositories/11/tags?pagination=keyset&order_by=name&sort=${sort}&per_page=${perPage}`;
        let pages = 0;
        while (url && pages++ < 40) {
          const r: { body: { name: string }[]; headers: Record<string, string> } = await api.get(url).set(auth);
          seen.push(...r.body.map((t: { name: string }) => Number(t.name.slice(3))));
          url = links(r.headers.link).next && pathOf(links(r.headers.link).next);
        }
        const expected = seen.length
          ? Array.from({ length: seen.length }, (_, i) => (sort === 'asc' ? i : seen[0] - i))
          : [];
        expect(seen).toEqual(expected);
      }),
      { seed: SEED, numRuns: 15 },
    );
  });
});
