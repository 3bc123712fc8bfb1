import { describe, expect, it } from 'vitest';
import { mint, seededPat, setup } from './helpers.js';

describe('API authentication and scopes (item 1)', () => {
  const { sim, api } = setup();
  const apiToken = mint(sim, ['api']);
  const readUser = mint(sim, ['read_user']);

  it('GET /user returns the authenticated user with a Bearer header, the access_token query or PRIVATE-TOKEN', async () => {
    const bearer = await api.get('/api/v4/user').set('authorization', `Bearer ${apiToken}`);
    expect(bearer.status).toBe(200);
    expect(bearer.body.username).toBe('root');
    const query = await api.get(`/api/v4/user?access_token=${apiToken}`);
    expect(query.status).toBe(200);
    expect(query.body.id).toBe(bearer.body.id);
    const pat = await api.get('/api/v4/user').set('private-token', seededPat(sim));
    expect(pat.status).toBe(200);
    expect(pat.body.username).toBe('root');
  });

  it('read_user is enough for /user but not for project endpoints or writes (403 insufficient_scope)', async () => {
    expect((await api.get('/api/v4/user').set('authorization', `Bearer ${readUser}`)).status).toBe(200);
    const read = await api.get('/api/v4/projects').set('authorization', `Bearer ${readUser}`);
    expect(read.status).toBe(403);
    expect(read.body).toMatchObject({ error: 'insufficient_scope', scope: 'api' });
    expect(read.body.error_description).toEqual(expect.any(String));
    expect(read.headers['www-authenticate']).toMatch(/error="insufficient_scope"/);
    const write = await api
      .post('/api/v4/projects/1/issues')
      .set('authorization', `Bearer ${readUser}`)
      .send({ title: 'x' });
    expect(write.status).toBe(403);
    expect(write.body.error).toBe('insufficient_scope');
  });

  it('api is enough for every endpoint', async () => {
    for (const path of ['/api/v4/user', '/api/v4/projects', '/api/v4/audit_events', '/api/v4/projects/1/jobs']) {
      expect((await api.get(path).set('authorization', `Bearer ${apiToken}`)).status, path).toBe(200);
    }
  });

  it('401 without a token where one is needed, and invalid_token bodies saying why', async () => {
    const missing = await api.get('/api/v4/user');
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
    const unknown = await api.get('/api/v4/user').set('authorization', 'Bearer nope');
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ error: 'invalid_token', error_description: 'The access token is invalid' });
    const expired = mint(sim, ['api'], { expiresIn: 10 });
    sim.clock.advance(11);
    const exp = await api.get('/api/v4/user').set('authorization', `Bearer ${expired}`);
    expect(exp.body).toMatchObject({ error: 'invalid_token', error_description: 'The access token expired' });
    const revoked = mint(sim, ['api'], { revoked: true });
    const rev = await api.get('/api/v4/user').set('authorization', `Bearer ${revoked}`);
    expect(rev.body).toMatchObject({ error: 'invalid_token', error_description: 'The access token was revoked' });
  });

  it('public endpoints answer without authentication, but a dead token is still 401', async () => {
    expect((await api.get('/api/v4/projects')).status).toBe(200);
    expect((await api.get('/api/v4/groups')).status).toBe(200);
    expect((await api.get('/api/v4/projects/group%2Fsubgroup%2Fproject')).status).toBe(200);
    expect((await api.get('/api/v4/projects').set('authorization', 'Bearer dead')).status).toBe(401);
    expect((await api.get('/api/v4/audit_events')).status).toBe(401);
  });

  it('anonymous callers do not see private projects', async () => {
    expect((await api.get('/api/v4/projects/group%2Fprivate-project')).status).toBe(404);
    expect(
      (await api.get('/api/v4/projects/group%2Fprivate-project').set('authorization', `Bearer ${apiToken}`)).status,
    ).toBe(200);
    const names = async (auth?: string) => {
      const all: string[] = [];
      let page = 1;
      for (;;) {
        const req = api.get(`/api/v4/projects?per_page=100&page=${page}`);
        if (auth) req.set('authorization', `Bearer ${auth}`);
        const r = await req;
        all.push(
          ...r.body.map(
            (p: { path_with_namespace: string; visibility: string }) => `${p.visibility}:${p.path_with_namespace}`,
          ),
        );
        if (!r.headers['x-next-page']) return all;
        page += 1;
      }
    };
    const anonymous = await names();
    const member = await names(apiToken);
    expect(anonymous.every((n) => n.startsWith('public:'))).toBe(true);
    expect(member).toContain('private:group/private-project');
    expect(member.length).toBeGreaterThan(anonymous.length);
  });
});

describe('rate limiting (item 1)', () => {
  it('is off by default', async () => {
    const { api } = setup();
    const r = await api.get('/api/v4/projects');
    expect(r.headers['ratelimit-limit']).toBeUndefined();
  });

  it('answers 429 with Retry-After and RateLimit-* headers once the window is used up, and recovers after it', async () => {
    const { sim, api } = setup({
      settings: { rateLimit: { requests: 3, periodSeconds: 60 } },
      clock: { frozen: true },
    });
    for (let i = 1; i <= 3; i++) {
      const ok = await api.get('/api/v4/projects');
      expect(ok.status).toBe(200);
      expect(ok.headers['ratelimit-remaining']).toBe(String(3 - i));
    }
    const limited = await api.get('/api/v4/projects');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit-limit']).toBe('3');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(limited.headers['ratelimit-reset']).toMatch(/^\d+$/);
    // another client (another token) has its own window
    expect((await api.get('/api/v4/projects').set('authorization', `Bearer ${mint(sim, ['api'])}`)).status).toBe(200);
    sim.clock.advance(60);
    expect((await api.get('/api/v4/projects')).status).toBe(200);
  });
});
