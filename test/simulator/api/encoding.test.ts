import { describe, expect, it } from 'vitest';
import { parsePairs } from '../../../simulator/api/params.js';
import { mint, setup } from './helpers.js';

describe('encoding rules (item 3)', () => {
  const { sim, api } = setup();
  const auth = { authorization: `Bearer ${mint(sim, ['api'])}` };

  it('a namespaced project path works only URL-encoded; unencoded it matches no endpoint', async () => {
    const ok = await api.get('/api/v4/projects/group%2Fsubgroup%2Fproject');
    expect(ok.status).toBe(200);
    expect(ok.body.path_with_namespace).toBe('group/subgroup/project');
    expect((await api.get('/api/v4/projects/group/subgroup/project')).status).toBe(404);
    expect((await api.get('/api/v4/projects/group/subgroup/project/issues')).status).toBe(404);
  });

  it('branch, tag and file paths with / work %2F-encoded and not raw', async () => {
    const branch = await api.get('/api/v4/projects/1/repository/branches/feature%2Flogin-page');
    expect(branch.status).toBe(200);
    expect(branch.body.name).toBe('feature/login-page');
    expect((await api.get('/api/v4/projects/1/repository/branches/feature/login-page')).status).toBe(404);
    const tag = await api.get('/api/v4/projects/1/repository/tags/release%2F2024.01');
    expect(tag.body.name).toBe('release/2024.01');
    const file = await api.get('/api/v4/projects/1/repository/files/docs%2Fgetting%20started.md?ref=main');
    expect(file.status).toBe(200);
    expect(Buffer.from(file.body.content, 'base64').toString()).toMatch(/Getting started/);
    const plus = await api.get(
      '/api/v4/projects/1/repository/files/src%2Fc%2B%2B%2Fparser.cc?ref=feature%2Flogin-page',
    );
    expect(plus.body.file_path).toBe('src/c++/parser.cc');
    expect((await api.get('/api/v4/projects/1/repository/files/src/index.ts?ref=main')).status).toBe(404);
  });

  it('+ in a query is a space and %2B a plus (created_after with a timezone offset)', async () => {
    const base = '/api/v4/projects/group%2Flarge-project/issues?per_page=100';
    const encoded = await api.get(`${base}&created_after=2024-01-01T00:00:00%2B01:00`);
    expect(encoded.status).toBe(200);
    expect(encoded.body.length).toBeGreaterThan(0);
    for (const issue of encoded.body)
      expect(Date.parse(issue.created_at)).toBeGreaterThan(Date.parse('2023-12-31T23:00:00Z'));
    const bare = await api.get(`${base}&created_after=2024-01-01T00:00:00+01:00`);
    expect(bare.status).toBe(400);
    expect(bare.body.message).toMatch(/created_after/);
    // the offset is honoured: +01:00 is an hour earlier than the same wall time in UTC
    const utc = await api.get(`${base}&created_after=2024-01-01T00:00:00Z&sort=asc`);
    const plusOne = await api.get(`${base}&created_after=2024-01-01T00:00:00%2B01:00&sort=asc`);
    expect(Date.parse(plusOne.body[0].created_at)).toBeLessThanOrEqual(Date.parse(utc.body[0].created_at));
  });

  it('+ versus %2B in a search', async () => {
    const plus = await api.get('/api/v4/projects?search=C%2B%2B');
    expect(plus.body.map((p: { name: string }) => p.name)).toContain('C++ Tools');
    const spaces = await api.get('/api/v4/projects?search=C++');
    expect(spaces.body.map((p: { name: string }) => p.name)).not.toContain('C++ Tools');
  });

  it('parses name[], name[key] and name[0][key] (the Rack conventions)', () => {
    expect(
      parsePairs(
        new URLSearchParams(
          'a[]=1&a[]=2&h[k]=v&h[j]=w&x[0][key]=A&x[1][key]=B&x[0][value]=1&y[][key]=C&y[][value]=2&y[][key]=D',
        ),
      ),
    ).toEqual({
      a: ['1', '2'],
      h: { k: 'v', j: 'w' },
      x: [{ key: 'A', value: '1' }, { key: 'B' }],
      y: [{ key: 'C', value: '2' }, { key: 'D' }],
    });
    expect(() => parsePairs(new URLSearchParams('a=1&a[k]=2'))).toThrow(/conflicts/);
  });

  it('array, hash and array-of-hash parameters mean the same in a query, a form and a JSON body', async () => {
    const variables = [
      { key: 'ONE', value: '1', variable_type: 'env_var' },
      { key: 'TWO', value: 'two words', variable_type: 'file' },
    ];
    const form =
      'ref=main&variables[0][key]=ONE&variables[0][value]=1&variables[1][key]=TWO&variables[1][value]=two+words&variables[1][variable_type]=file&inputs[env]=prod&inputs[debug]=true';
    const viaForm = await api.post('/api/v4/projects/1/pipeline').set(auth).type('form').send(form);
    const viaQuery = await api.post(`/api/v4/projects/1/pipeline?${form}`).set(auth);
    const viaJson = await api
      .post('/api/v4/projects/1/pipeline')
      .set(auth)
      .send({ ref: 'main', variables, inputs: { env: 'prod', debug: 'true' } });
    for (const r of [viaForm, viaQuery, viaJson]) {
      expect(r.status).toBe(201);
      expect(r.body.variables).toEqual(variables);
      expect(r.body.inputs).toEqual({ env: 'prod', debug: 'true' });
    }
    const labelsForm = await api
      .post('/api/v4/projects/1/issues')
      .set(auth)
      .type('form')
      .send('title=x&labels[]=bug&labels[]=ux');
    const labelsJson = await api
      .post('/api/v4/projects/1/issues')
      .set(auth)
      .send({ title: 'x', labels: ['bug', 'ux'] });
    expect(labelsForm.body.labels).toEqual(['bug', 'ux']);
    expect(labelsJson.body.labels).toEqual(['bug', 'ux']);
    const bad = await api.post('/api/v4/projects/1/pipeline').set(auth).send({ ref: 'main', variables: 'nope' });
    expect(bad.status).toBe(400);
    const broken = await api
      .post('/api/v4/projects/1/pipeline')
      .set(auth)
      .set('content-type', 'application/json')
      .send('{"ref":');
    expect(broken.status).toBe(400);
  });

  it('answers 414 above settings.maxUrlLength and serves the same request just below it', async () => {
    const small = setup({ settings: { maxUrlLength: 200 } });
    const path = '/api/v4/projects?search=';
    expect((await small.api.get(path + 'a'.repeat(200 - path.length))).status).toBe(200);
    const long = await small.api.get(path + 'a'.repeat(201 - path.length));
    expect(long.status).toBe(414);
    expect(long.body.message).toMatch(/414/);
    // the default limit is 8 KiB, under Node's own header limit (the 414 is ours)
    expect((await api.get(`/api/v4/projects?search=${'a'.repeat(9000)}`)).status).toBe(414);
  });

  it('a renamed project redirects its old path to the new URL from 16.7, and is a 404 before', async () => {
    const moved = await api.get('/api/v4/projects/group%2Fold-name/issues?per_page=5').redirects(0);
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toMatch(/^http:\/\/[^/]+\/api\/v4\/projects\/group%2Fnew-name\/issues\?per_page=5$/);
    const old = setup({ release: '16.6' });
    expect((await old.api.get('/api/v4/projects/group%2Fold-name').redirects(0)).status).toBe(404);
  });

  it('the control API creates projects at arbitrary namespaced paths, reachable encoded', async () => {
    const path = 'enc group/sub+dir/a b%c';
    const created = await api.post('/-/simulator/projects').send({ path, name: 'Odd' });
    expect(created.status).toBe(201);
    expect(created.body.path_with_namespace).toBe(path);
    const again = await api.post('/-/simulator/projects').send({ path });
    expect(again.status).toBe(200);
    const got = await api.get(`/api/v4/projects/${encodeURIComponent(path)}`);
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(created.body.id);
    expect((await api.post('/-/simulator/projects').send({ path: 'nonamespace' })).status).toBe(400);
    expect((await api.post('/-/simulator/projects').send({ path: 'a//b' })).status).toBe(400);
  });
});
