import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataset } from '../../../simulator/data/index.js';
import { fromArray, generated, lowerBound, mergeSorted, take } from '../../../simulator/data/seq.js';
import { generatedUserCount } from '../../../simulator/data/users.js';
import { limits } from '../../../spec/index.js';
import { links, mint, pathOf, setup } from './helpers.js';

const SEED = Number(process.env.FC_SEED ?? 4242);

describe('seeded data (item 2)', () => {
  const { sim, api } = setup();
  const token = mint(sim, ['api']);
  const auth = { authorization: `Bearer ${token}` };

  it('is a pure function of the seed: same seed same records, another seed other records', async () => {
    const a = setup({ seed: 7 });
    const b = setup({ seed: 7 });
    const c = setup({ seed: 8 });
    const get = (s: ReturnType<typeof setup>) =>
      s.api
        .get('/api/v4/projects/group%2Flarge-project/issues?per_page=50&page=3')
        .then((r) => r.body.map((i: { title: string; labels: string[] }) => [i.title, i.labels]));
    expect(await get(a)).toEqual(await get(b));
    expect(await get(a)).not.toEqual(await get(c));
  });

  it('puts more than 10,000 records in one collection by default, and a million in another', () => {
    const data = dataset(sim);
    expect(data.issuesOf(data.catalog.fixtures.largeProject).length).toBeGreaterThan(limits().paginationTotalsMax);
    expect(data.records.auditEvents({ kind: 'instance', count: 1_000_000 }).at(999_999).id).toBe(1_000_000);
  });

  it('scales users above the keyset-enforcement threshold with seedSize, generating nothing up front', async () => {
    const big = setup({ seedSize: 21 });
    expect(generatedUserCount(21)).toBeGreaterThan(limits().usersKeysetEnforcedAbove);
    const r = await big.api.get('/api/v4/users?pagination=keyset&order_by=id&sort=desc&per_page=1');
    expect(r.status).toBe(200);
    const top = r.body[0].id;
    const first = await big.api.get('/api/v4/users?pagination=keyset&order_by=id&sort=asc&per_page=100');
    // real users (root first) then generated ones
    expect(first.body[0].username).toBe('root');
    const real = big.sim.store.users.size;
    expect(first.body.slice(0, real).map((u: { id: number }) => u.id)).toEqual(
      [...big.sim.store.users.keys()].sort((x, y) => x - y),
    );
    expect(top - first.body[real].id + 1).toBe(generatedUserCount(21));
  });

  it('users list includes the store users then the generated ones, and a user created later appears', async () => {
    const before = await api.get('/api/v4/users?per_page=5');
    expect(before.body[0].username).toBe('root');
    sim.store.users.set(99, {
      id: 99,
      username: 'zz-late',
      name: 'Late User',
      email: 'l@x',
      passwordHash: 'p',
      admin: false,
      twoFactor: false,
      createdAt: 0,
    });
    const byName = await api.get('/api/v4/users?order_by=username&sort=desc&per_page=1');
    expect(byName.body[0].username).toBe('zz-late');
    sim.store.users.delete(99);
  });

  it('issues carry a global id and a per-project iid; the global id in the iid position is a 404', async () => {
    const one = await api.get('/api/v4/projects/1/issues/3');
    expect(one.status).toBe(200);
    expect(one.body.iid).toBe(3);
    expect(one.body.id).not.toBe(3);
    expect((await api.get(`/api/v4/projects/1/issues/${one.body.id}`)).status).toBe(404);
    expect((await api.get('/api/v4/projects/1/issues/abc')).status).toBe(404);
  });

  it('nullable booleans appear as null; boolean arguments accept only true or false', async () => {
    const issues = await api.get('/api/v4/projects/group%2Flarge-project/issues?per_page=100');
    const locked = issues.body.map((i: { discussion_locked: boolean | null }) => i.discussion_locked);
    expect(locked).toContain(null);
    expect(locked).toContain(true);
    const bad = await api.post('/api/v4/projects/1/issues').set(auth).send({ title: 't', confidential: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/confidential/);
    const good = await api.post('/api/v4/projects/1/issues').set(auth).type('form').send('title=t&confidential=true');
    expect(good.status).toBe(201);
    expect(good.body.confidential).toBe(true);
    expect((await api.get('/api/v4/projects?archived=1')).status).toBe(400);
  });

  it('serves nested groups, jobs, audit events, package pipelines, registry tags and a nested tree', async () => {
    const groups = await api.get('/api/v4/groups?per_page=100');
    expect(
      groups.body.some(
        (g: { full_path: string; parent_id: number | null }) => g.full_path.includes('/') && g.parent_id !== null,
      ),
    ).toBe(true);
    for (const path of [
      '/api/v4/projects/1/jobs',
      '/api/v4/projects/1/audit_events',
      '/api/v4/groups/group/audit_events',
      '/api/v4/audit_events',
      '/api/v4/projects/1/packages',
      '/api/v4/projects/1/packages/11/pipelines',
      '/api/v4/projects/1/registry/repositories/11/tags',
      '/api/v4/projects/1/feature_flags',
    ]) {
      const r = await api.get(path).set(auth);
      expect(r.status, path).toBe(200);
      expect(r.body.length, path).toBeGreaterThan(0);
    }
    const tree = await api.get('/api/v4/projects/1/repository/tree?path=src&recursive=true&per_page=100');
    expect(tree.body.map((e: { path: string }) => e.path)).toContain('src/lib/auth/index.ts');
    expect(tree.body.some((e: { type: string }) => e.type === 'tree')).toBe(true);
  });

  it('a project answers the same by id and by encoded path', async () => {
    // one Host for both: supertest listens on a new port per request
    const byId = await api.get('/api/v4/projects/1').set('host', 'gitlab.test');
    const byPath = await api.get('/api/v4/projects/group%2Fsubgroup%2Fproject').set('host', 'gitlab.test');
    expect(byPath.body).toEqual(byId.body);
  });

  it("a projects page is the rendering of each project at the request's own origin, kept rendered or not", async () => {
    const { sim, api } = setup();
    const token = mint(sim, ['api']);
    const page = (host: string) =>
      api.get('/api/v4/projects?per_page=5').set('host', host).set('authorization', `Bearer ${token}`);
    for (const host of ['a.test', 'b.test', 'a.test']) {
      const res = await page(host);
      expect(res.status).toBe(200);
      const projects = res.body as { id: number; web_url: string }[];
      expect(projects).toHaveLength(5);
      for (const p of projects) {
        expect(p.web_url.startsWith(`http://${host}/`)).toBe(true);
        // the same text as the project read alone, rendered afresh
        const one = await api.get(`/api/v4/projects/${p.id}`).set('host', host).set('authorization', `Bearer ${token}`);
        expect(JSON.stringify(p)).toBe(JSON.stringify(one.body));
      }
      expect(res.text).toBe(JSON.stringify(projects));
    }
  });

  it('an offset walk over a generated collection sees every record exactly once', async () => {
    const seen: number[] = [];
    let next: string | undefined = '/api/v4/projects/1/issues?per_page=40';
    while (next) {
      const r = await api.get(next);
      seen.push(...r.body.map((i: { iid: number }) => i.iid));
      next = links(r.headers.link).next && pathOf(links(r.headers.link).next);
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(dataset(sim).issuesOf(dataset(sim).catalog.fixtures.project).length);
  });
});

describe('sequences (the data layer)', () => {
  it('mergeSorted is the sorted union, at any position', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 500 }), { maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 500 }), { maxLength: 8 }),
        (big, small) => {
          const sortedBig = [...big].sort((a, b) => a - b);
          const merged = mergeSorted(fromArray(sortedBig), small, (a, b) => a - b);
          expect(take(merged, 0, merged.length)).toEqual([...big, ...small].sort((a, b) => a - b));
        },
      ),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('lowerBound finds the first position not before the target in O(log n) reads', () => {
    let reads = 0;
    const seq = generated(1_000_000, (i) => {
      reads++;
      return i * 2;
    });
    expect(lowerBound(seq, (v) => v < 1_234_567)).toBe(617_284);
    expect(reads).toBeLessThanOrEqual(21);
  });
});
