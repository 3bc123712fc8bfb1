import { describe, expect, it } from 'vitest';
import { mint, setup } from './helpers.js';

function at(release: string, settings = {}) {
  const s = setup({ release, settings });
  return { ...s, auth: { authorization: `Bearer ${mint(s.sim, ['api'])}` } };
}

describe('versioning and deprecations (item 6)', () => {
  it('repository tree with a missing path: 404 from 17.7, 200 [] before', async () => {
    const now = at('17.7');
    const missing = await now.api.get('/api/v4/projects/1/repository/tree?path=no%2Fsuch%2Fdir');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toMatch(/Tree Not Found/);
    const before = at('17.6');
    const empty = await before.api.get('/api/v4/projects/1/repository/tree?path=no%2Fsuch%2Fdir');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual([]);
    expect((await now.api.get('/api/v4/projects/1/repository/tree?path=docs')).body.length).toBeGreaterThan(0);
  });

  it('tree keyset pagination from 17.1 only', async () => {
    expect((await at('17.1').api.get('/api/v4/projects/1/repository/tree?pagination=keyset')).status).toBe(200);
    expect((await at('17.0').api.get('/api/v4/projects/1/repository/tree?pagination=keyset')).status).toBe(400);
  });

  it('the deprecated runner endpoints work, and answer 410 Gone on their own timelines', async () => {
    const works = at('18.0');
    const registered = await works.api.post('/api/v4/runners').send({ token: 'registration-token' });
    expect(registered.status).toBe(201);
    expect((await works.api.post('/api/v4/projects/1/runners/reset_registration_token').set(works.auth)).status).toBe(
      201,
    );
    const resets = [
      '/api/v4/runners/reset_registration_token',
      '/api/v4/projects/1/runners/reset_registration_token',
      '/api/v4/groups/group/runners/reset_registration_token',
    ];
    // Registration goes in a future major, the resets in a future release: either may go first.
    const registrationGone = at('18.0', { runnerRegistrationGone: true });
    expect((await registrationGone.api.post('/api/v4/runners').send({ token: 't' })).status).toBe(410);
    for (const path of resets)
      expect((await registrationGone.api.post(path).set(registrationGone.auth)).status, path).toBe(201);
    const resetsGone = at('18.0', { runnerResetTokenGone: true });
    expect((await resetsGone.api.post('/api/v4/runners').send({ token: 't' })).status).toBe(201);
    for (const path of resets) expect((await resetsGone.api.post(path).set(resetsGone.auth)).status, path).toBe(410);
  });

  it('attributes removed in 17.0 are absent from 17.0 and present before', async () => {
    for (const [release, present] of [
      ['16.11', true],
      ['17.0', false],
    ] as const) {
      const s = at(release);
      const project = await s.api.get('/api/v4/projects/1');
      expect('ci_job_token_scope_enabled' in project.body, release).toBe(present);
      const packages = await s.api.get('/api/v4/projects/1/packages').set(s.auth);
      expect('pipelines' in packages.body[0], release).toBe(present);
      const flags = await s.api.get('/api/v4/projects/1/feature_flags').set(s.auth);
      expect('version' in flags.body[0], release).toBe(present);
    }
  });

  it('member_roles endpoints list, create and delete (administrators)', async () => {
    const s = at('18.0');
    const created = await s.api
      .post('/api/v4/member_roles')
      .set(s.auth)
      .send({ name: 'Auditor', base_access_level: 10 });
    expect(created.status).toBe(201);
    expect((await s.api.get('/api/v4/member_roles').set(s.auth)).body).toEqual([created.body]);
    expect((await s.api.delete(`/api/v4/member_roles/${created.body.id}`).set(s.auth)).status).toBe(204);
    expect((await s.api.delete(`/api/v4/member_roles/${created.body.id}`).set(s.auth)).status).toBe(404);
    expect(
      (await s.api.post('/api/v4/member_roles').set(s.auth).send({ name: 'x', base_access_level: 11 })).status,
    ).toBe(400);
    const dev = { authorization: `Bearer ${mint(s.sim, ['api'], { username: 'developer' })}` };
    expect((await s.api.get('/api/v4/member_roles').set(dev)).status).toBe(403);
  });
});
