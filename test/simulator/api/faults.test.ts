import { describe, expect, it } from 'vitest';
import { faults } from '../../../spec/index.js';
import type { SimulatorOptions } from '../../../simulator/types.js';
import { links, mint, pathOf, setup } from './helpers.js';

type Setup = ReturnType<typeof setup>;
/** Each api fault: a probe that returns true when the deviation is visible (checked with and without the fault). */
const PROBES: Record<
  string,
  { options?: SimulatorOptions; probe: (s: Setup, auth: Record<string, string>) => Promise<boolean> }
> = {
  'link-header-dropped': { probe: async ({ api }) => (await api.get('/api/v4/projects')).headers.link === undefined },
  'links-header-present': { probe: async ({ api }) => (await api.get('/api/v4/projects')).headers.links !== undefined },
  'link-drops-params': {
    probe: async ({ api }) =>
      !links((await api.get('/api/v4/projects/1/issues?state=opened&per_page=5')).headers.link).next.includes(
        'state=opened',
      ),
  },
  'x-total-off-by-one': {
    probe: async ({ api }) => {
      const r = await api.get('/api/v4/projects/1/issues?per_page=100&page=2');
      return Number(r.headers['x-total']) !== 100 + r.body.length;
    },
  },
  'x-page-zero-based': { probe: async ({ api }) => (await api.get('/api/v4/projects')).headers['x-page'] !== '1' },
  'page-default-not-first': {
    probe: async ({ api }) => (await api.get('/api/v4/projects?per_page=2')).headers['x-page'] !== '1',
  },
  'per-page-not-clamped': {
    probe: async ({ api }) => (await api.get('/api/v4/projects?per_page=150')).body.length > 100,
  },
  'totals-not-omitted': {
    probe: async ({ api }) =>
      (await api.get('/api/v4/projects/group%2Flarge-project/issues')).headers['x-total'] !== undefined,
  },
  'max-offset-ignored': {
    options: { settings: { maxOffset: 100 } },
    probe: async ({ api }) => (await api.get('/api/v4/projects?per_page=100&page=3')).status === 200,
  },
  'keyset-end-next-link': {
    probe: async ({ api }, auth) => {
      let url: string | undefined =
        '/api/v4/projects/1/packages/11/pipelines?pagination=keyset&order_by=id&sort=desc&per_page=100';
      for (let i = 0; i < 30 && url; i++) {
        const r = await api.get(url).set(auth);
        if (r.body.length === 0) return r.headers.link !== undefined;
        url = pathOf(links(r.headers.link).next);
      }
      return false;
    },
  },
  'keyset-any-order': {
    probe: async ({ api }, auth) =>
      (await api.get('/api/v4/projects/1/jobs?pagination=keyset&order_by=id&sort=asc').set(auth)).status === 200,
  },
  'keyset-offset-headers': {
    probe: async ({ api }) =>
      (await api.get('/api/v4/projects?pagination=keyset&order_by=id&sort=asc')).headers['x-per-page'] !== undefined,
  },
  'keyset-duplicate-row': {
    probe: async ({ api }) => {
      const a = await api.get('/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=5');
      const b = await api.get(pathOf(links(a.headers.link).next));
      return b.body[0].id === a.body[4].id;
    },
  },
  'encoded-slash-rejected': {
    probe: async ({ api }) => (await api.get('/api/v4/projects/group%2Fsubgroup%2Fproject')).status === 404,
  },
  'unencoded-slash-accepted': {
    probe: async ({ api }) => (await api.get('/api/v4/projects/group/subgroup/project')).status === 200,
  },
  'plus-read-as-plus': {
    probe: async ({ api }) =>
      (await api.get('/api/v4/projects/1/issues?created_after=2024-01-01T00:00:00+01:00')).status === 200,
  },
  'no-414': {
    // a small limit keeps the served response's Link headers within the client's header limit
    options: { settings: { maxUrlLength: 200 } },
    probe: async ({ api }) => (await api.get(`/api/v4/projects?search=${'a'.repeat(300)}`)).status !== 414,
  },
  'tree-missing-path-200': {
    probe: async ({ api }) => (await api.get('/api/v4/projects/1/repository/tree?path=nope')).status === 200,
  },
  'no-moved-redirect': {
    probe: async ({ api }) => (await api.get('/api/v4/projects/group%2Fold-name').redirects(0)).status === 404,
  },
  'iid-accepts-global-id': {
    probe: async ({ api }) => {
      const issue = await api.get('/api/v4/projects/1/issues/1');
      return (await api.get(`/api/v4/projects/1/issues/${issue.body.id}`)).status === 200;
    },
  },
  'removed-attributes-present': {
    probe: async ({ api }) => 'ci_job_token_scope_enabled' in (await api.get('/api/v4/projects/1')).body,
  },
  'scope-not-checked': {
    probe: async ({ api, sim }) =>
      (await api.get('/api/v4/projects').set('authorization', `Bearer ${mint(sim, ['read_user'])}`)).status === 200,
  },
  'invalid-token-anonymous': {
    probe: async ({ api }) => (await api.get('/api/v4/projects').set('authorization', 'Bearer dead')).status === 200,
  },
  'member-role-delete-ignored': {
    probe: async ({ api }, auth) => {
      const role = (await api.post('/api/v4/member_roles').set(auth).send({ name: 'r', base_access_level: 10 })).body;
      await api.delete(`/api/v4/member_roles/${role.id}`).set(auth);
      return (await api.get('/api/v4/member_roles').set(auth)).body.some((r: { id: number }) => r.id === role.id);
    },
  },
  'git-write-repository-refused': {
    probe: async ({ api, sim }) => {
      const basic = Buffer.from(`oauth2:${mint(sim, ['write_repository'])}`).toString('base64');
      const r = await api
        .get('/group/subgroup/project.git/info/refs?service=git-receive-pack')
        .set('authorization', `Basic ${basic}`);
      return r.status !== 200;
    },
  },
  'git-any-token': {
    probe: async ({ api, sim }) => {
      const basic = Buffer.from(`oauth2:${mint(sim, ['read_user'])}`).toString('base64');
      const r = await api
        .get('/group/subgroup/project.git/info/refs?service=git-upload-pack')
        .set('authorization', `Basic ${basic}`);
      return r.status === 200;
    },
  },
};

describe('api faults (item 8)', () => {
  const catalogue = faults().filter((f) => f.side === 'api');

  it('lists at least 12 api faults, each with a probe here', () => {
    expect(catalogue.length).toBeGreaterThanOrEqual(12);
    expect(catalogue.map((f) => f.name).sort()).toEqual(Object.keys(PROBES).sort());
  });

  for (const { name } of catalogue) {
    it(`${name}: the deviation shows with the fault and not without it`, async () => {
      const { options = {}, probe } = PROBES[name];
      for (const on of [false, true]) {
        const s = setup({ ...options, faults: on ? [name] : [] });
        const auth = { authorization: `Bearer ${mint(s.sim, ['api'])}` };
        expect(await probe(s, auth), on ? 'with the fault' : 'without the fault').toBe(on);
      }
    });
  }
});
