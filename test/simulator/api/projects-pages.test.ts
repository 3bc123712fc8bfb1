/**
 * The prebuilt projects pages (issue 20, performance): a page is built once per (signed in or
 * not, origin, path and query) and kept, answered fresh each time, and dropped when a project is
 * created or a setting changes, so what the cache serves is always what a fresh build would.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../../simulator/core.js';
import type { Sim } from '../../../simulator/types.js';
import { seededPat, setup } from './helpers.js';

const pages = (sim: Sim) => sim.state('api.projectPages', () => ({ byKey: new Map<string, unknown>() })).byKey;

async function page(sim: Sim, path: string, headers: Record<string, string> = {}, origin = 'http://127.0.0.1:3000') {
  const res = await sim.handle(new Request(`${origin}${path}`, { headers }));
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

describe('prebuilt projects pages', () => {
  it('a page is built once and kept; the kept one answers the same bytes and headers', async () => {
    const sim = createSimulator();
    const auth = { 'private-token': seededPat(sim) };
    const first = await page(sim, '/api/v4/projects?per_page=20', auth);
    expect(first.status).toBe(200);
    expect(pages(sim).size).toBe(1);
    expect(await page(sim, '/api/v4/projects?per_page=20', auth)).toEqual(first);
    expect(pages(sim).size).toBe(1);
    // Another query, the anonymous view and another origin are pages of their own.
    const anonymous = await page(sim, '/api/v4/projects?per_page=20');
    expect(anonymous.body).not.toBe(first.body);
    const other = await page(sim, '/api/v4/projects?per_page=20', auth, 'http://127.0.0.2:3000');
    expect(other.headers.link).toContain('http://127.0.0.2:3000/api/v4/projects?');
    expect(other.body).toContain('http://127.0.0.2:3000/');
    await page(sim, '/api/v4/projects?per_page=20&page=2', auth);
    expect(pages(sim).size).toBe(4);
  });

  it('headers a middleware adds to one answer do not reach the next (rate limit counts on)', async () => {
    const sim = createSimulator({ settings: { rateLimit: { requests: 100, periodSeconds: 60 } } });
    const auth = { 'private-token': seededPat(sim) };
    const observed = [];
    for (let i = 0; i < 3; i++)
      observed.push((await page(sim, '/api/v4/projects', auth)).headers['ratelimit-observed']);
    expect(observed).toEqual(['1', '2', '3']);
  });

  it('creating a project drops the kept pages: the new one is listed at once', async () => {
    const { sim, api } = setup();
    const auth = { 'private-token': seededPat(sim) };
    const before = await page(sim, '/api/v4/projects?per_page=5&order_by=id&sort=desc', auth);
    const created = await api.post('/-/simulator/projects').send({ path: 'cachegroup/fresh', name: 'Fresh' });
    expect(created.status).toBe(201);
    const after = await page(sim, '/api/v4/projects?per_page=5&order_by=id&sort=desc', auth);
    expect(after.body).not.toBe(before.body);
    expect((JSON.parse(after.body) as { path_with_namespace: string }[])[0].path_with_namespace).toBe(
      'cachegroup/fresh',
    );
    expect(Number(after.headers['x-total'])).toBe(Number(before.headers['x-total']) + 1);
  });

  it('a setting change drops the kept pages: a page past a lowered max offset is refused at once', async () => {
    const { sim, api } = setup();
    const auth = { 'private-token': seededPat(sim) };
    const path = '/api/v4/projects?per_page=2&page=3';
    expect((await page(sim, path, auth)).status).toBe(200);
    expect((await api.post('/-/simulator/settings').send({ maxOffset: 2 })).status).toBe(200);
    const refused = await page(sim, path, auth);
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('maximum allowed offset of 2');
  });

  it('after reset() the pages are built again', async () => {
    const sim = createSimulator();
    const auth = { 'private-token': seededPat(sim) };
    await page(sim, '/api/v4/projects', auth);
    sim.reset();
    expect(pages(sim).size).toBe(0);
    expect((await page(sim, '/api/v4/projects', { 'private-token': seededPat(sim) })).status).toBe(200);
  });
});
