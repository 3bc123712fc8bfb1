import { describe, expect, it } from 'vitest';
import { limits } from '../../../spec/index.js';
import { dataset } from '../../../simulator/data/index.js';
import { links, mint, pathOf, setup } from './helpers.js';

describe('offset pagination (item 4)', () => {
  const { sim, api } = setup();
  const auth = { authorization: `Bearer ${mint(sim, ['api'])}` };
  const { perPageDefault, perPageMax, paginationTotalsMax } = limits();
  const jobs = dataset(sim).catalog.fixtures.project.sizes.jobs;

  it('defaults to page 1 and the default per_page, with every header', async () => {
    const r = await api.get('/api/v4/projects/1/jobs').set(auth);
    expect(r.body.length).toBe(perPageDefault);
    expect(r.headers).toMatchObject({
      'x-page': '1',
      'x-per-page': String(perPageDefault),
      'x-next-page': '2',
      'x-prev-page': '',
      'x-total': String(jobs),
      'x-total-pages': String(Math.ceil(jobs / perPageDefault)),
    });
    expect(r.headers.links).toBeUndefined();
    const l = links(r.headers.link);
    expect(Object.keys(l).sort()).toEqual(['first', 'last', 'next']);
  });

  it('Link URLs are absolute and keep the other parameters', async () => {
    const r = await api.get(
      '/api/v4/projects/group%2Fsubgroup%2Fproject/issues?state=opened&labels=bug&per_page=3&page=2',
    );
    const l = links(r.headers.link);
    expect(Object.keys(l).sort()).toEqual(['first', 'last', 'next', 'prev']);
    for (const url of Object.values(l)) {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1(:\d+)?\/api\/v4\/projects\/group%2Fsubgroup%2Fproject\/issues\?/);
      const q = new URL(url).searchParams;
      expect(q.get('state')).toBe('opened');
      expect(q.get('labels')).toBe('bug');
      expect(q.get('per_page')).toBe('3');
    }
    expect(new URL(l.prev).searchParams.get('page')).toBe('1');
    expect(new URL(l.next).searchParams.get('page')).toBe('3');
    const last = await api.get(pathOf(l.last));
    expect(last.headers['x-next-page']).toBe('');
    expect(links(last.headers.link).next).toBeUndefined();
  });

  it('per_page above the maximum is clamped; non-numeric or < 1 gives the default; page < 1 gives 1', async () => {
    expect((await api.get('/api/v4/projects/1/jobs?per_page=1000').set(auth)).body.length).toBe(perPageMax);
    for (const bad of ['abc', '0', '-5', '2.5', '']) {
      const r = await api.get(`/api/v4/projects/1/jobs?per_page=${bad}`).set(auth);
      expect(r.status, bad).toBe(200);
      expect(r.headers['x-per-page'], bad).toBe(String(perPageDefault));
    }
    for (const bad of ['0', '-1', 'x']) {
      expect((await api.get(`/api/v4/projects/1/jobs?page=${bad}`).set(auth)).headers['x-page'], bad).toBe('1');
    }
  });

  it(`omits x-total, x-total-pages and rel=last above the totals limit`, async () => {
    const large = dataset(sim).catalog.fixtures.largeProject;
    expect(dataset(sim).issuesOf(large).length).toBeGreaterThan(paginationTotalsMax);
    const r = await api.get('/api/v4/projects/group%2Flarge-project/issues');
    expect(r.headers['x-total']).toBeUndefined();
    expect(r.headers['x-total-pages']).toBeUndefined();
    expect(links(r.headers.link).last).toBeUndefined();
    expect(links(r.headers.link).next).toBeDefined();
    // narrowed below the limit by a filter, the totals come back
    const narrowed = await api.get('/api/v4/projects/group%2Flarge-project/issues?created_after=2024-12-01T00:00:00Z');
    expect(Number(narrowed.headers['x-total'])).toBeLessThanOrEqual(paginationTotalsMax);
  });

  it('refuses an offset beyond settings.maxOffset with a clear 400', async () => {
    const capped = setup({ settings: { maxOffset: 400 } });
    const token = mint(capped.sim, ['api']);
    expect(
      (await capped.api.get('/api/v4/projects/1/jobs?per_page=100&page=5').set('authorization', `Bearer ${token}`))
        .status,
    ).toBe(200);
    const beyond = await capped.api
      .get('/api/v4/projects/1/jobs?per_page=100&page=6')
      .set('authorization', `Bearer ${token}`);
    expect(beyond.status).toBe(400);
    expect(beyond.body.message).toMatch(/maximum allowed offset of 400/);
  });

  it('the hosted offering omits the totals family', async () => {
    const hosted = setup({ offering: 'hosted' });
    const r = await hosted.api.get('/api/v4/projects/1/issues');
    expect(r.headers['x-total']).toBeUndefined();
    expect(r.headers['x-total-pages']).toBeUndefined();
    expect(links(r.headers.link).last).toBeUndefined();
    expect(r.headers['x-page']).toBe('1');
  });

  it('/users refuses offset requests beyond the enforcement limit from 17.0, not before', async () => {
    const page = limits().usersKeysetEnforcedAbove / perPageMax + 1;
    const r = await api.get(`/api/v4/users?per_page=${perPageMax}&page=${page}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/keyset/);
    const old = setup({ release: '16.11', settings: { maxOffset: 1_000_000 } });
    expect((await old.api.get(`/api/v4/users?per_page=${perPageMax}&page=${page}`)).status).toBe(200);
  });
});
