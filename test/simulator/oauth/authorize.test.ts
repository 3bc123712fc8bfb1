import { digest } from '../../../simulator/digest.js';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../../simulator/oauth/accounts.js';
import { app, code, consent, formFields, pkcePair, signIn, signInRoot, tokens, world } from './helpers.js';

const PAGE_SECURITY = { 'x-frame-options': 'DENY' };

function authorizeQuery(
  w: ReturnType<typeof world>,
  role: 'confidential' | 'public' | 'limited',
  extra: Record<string, string> = {},
) {
  const a = app(w.sim, role);
  return { client_id: a.uid, redirect_uri: a.redirectUris[0], response_type: 'code', ...extra };
}

describe('sign-in page', () => {
  it('serves a form with a CSRF token and an HttpOnly pre-session cookie, storing no session', async () => {
    const w = world();
    const res = await w.browser.get('/users/sign_in');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers).toMatchObject(PAGE_SECURITY);
    const fields = formFields(res.text, 'sign-in');
    expect(fields.authenticity_token.length).toBeGreaterThan(20);
    expect(res.headers['set-cookie'][0]).toMatch(/^_idp_presession=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(w.sim.store.sessions.size).toBe(0);
  });

  it('refuses a sign-in without the CSRF token (422) and a wrong password (401)', async () => {
    const w = world();
    const { admin } = seeded(w.sim);
    await w.browser.get('/users/sign_in');
    const forged = await w.browser
      .post('/users/sign_in')
      .type('form')
      .send({ 'user[login]': admin.username, 'user[password]': admin.password });
    expect(forged.status).toBe(422);
    const page = await w.browser.get('/users/sign_in');
    const wrong = await w.browser
      .post('/users/sign_in')
      .type('form')
      .send({
        ...formFields(page.text, 'sign-in'),
        'user[login]': admin.username,
        'user[password]': 'not-the-password',
      });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Invalid login or password');
  });

  it('signs in, rotates the session id and returns to a local path only', async () => {
    const w = world();
    const { admin } = seeded(w.sim);
    const page = await w.browser.get('/users/sign_in?redirect_to=//evil.test/x');
    const before = page.headers['set-cookie'][0].split(';')[0];
    const res = await w.browser
      .post('/users/sign_in')
      .type('form')
      .send({ ...formFields(page.text, 'sign-in'), 'user[login]': admin.username, 'user[password]': admin.password });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/user_settings/applications');
    expect(res.headers['set-cookie'][0].split(';')[0]).not.toBe(before);
  });
});

describe('applications page', () => {
  it('sends an anonymous visitor to sign in', async () => {
    const w = world();
    const res = await w.browser.get('/user_settings/applications');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/users/sign_in?redirect_to=%2Fuser_settings%2Fapplications');
  });

  it('registers an application and shows its Application ID and secret once', async () => {
    const w = world();
    await signInRoot(w);
    const page = await w.browser.get('/user_settings/applications');
    expect(page.status).toBe(200);
    const fields = formFields(page.text, 'new-application');
    const res = await w.browser
      .post('/user_settings/applications')
      .type('form')
      .send(
        new URLSearchParams([
          ...Object.entries(fields),
          ['application[name]', 'My app'],
          ['application[redirect_uri]', 'http://localhost:8080/cb\nhttps://app.test/cb'],
          ['application[scopes][]', 'api'],
          ['application[scopes][]', 'openid'],
          ['application[confidential]', '1'],
        ]).toString(),
      );
    expect(res.status).toBe(201);
    const uid = /id="application-id">([0-9a-f]+)</.exec(res.text)![1];
    const stored = w.sim.store.applications.get(uid)!;
    expect(stored).toMatchObject({
      name: 'My app',
      scopes: ['api', 'openid'],
      confidential: true,
      redirectUris: ['http://localhost:8080/cb', 'https://app.test/cb'],
    });
    expect(uid).toMatch(/^[0-9a-f]{64}$/);
    const shownSecret = /id="client-secret">([^<]+)</.exec(res.text)![1];
    expect(stored.secretHash).toBe(digest(shownSecret));
    expect(JSON.stringify(stored)).not.toContain(shownSecret);
    const again = await w.browser.get('/user_settings/applications');
    expect(again.text).toContain(uid);
    expect(again.text).not.toContain(shownSecret);
  });

  it('refuses plain-HTTP redirect URIs outside development mode, and a missing CSRF token', async () => {
    const w = world({ devMode: false });
    await signInRoot(w);
    const fields = formFields((await w.browser.get('/user_settings/applications')).text, 'new-application');
    const send = (extra: Record<string, string>) =>
      w.browser
        .post('/user_settings/applications')
        .type('form')
        .send({ 'application[name]': 'x', 'application[scopes][]': 'api', ...extra });
    const http = await send({ ...fields, 'application[redirect_uri]': 'http://app.test/cb' });
    expect(http.status).toBe(422);
    expect(http.text).toContain('must use HTTPS');
    const https = await send({ ...fields, 'application[redirect_uri]': 'https://app.test/cb' });
    expect(https.status).toBe(201);
    const forged = await send({ 'application[redirect_uri]': 'https://app.test/cb' });
    expect(forged.status).toBe(422);
  });
});

describe('GET /oauth/authorize', () => {
  it('shows an error page, never a redirect, for an unknown client or an unregistered redirect URI', async () => {
    const w = world();
    await signInRoot(w);
    for (const query of [
      authorizeQuery(w, 'confidential', { client_id: 'nope' }),
      authorizeQuery(w, 'confidential', { redirect_uri: 'https://evil.test/cb' }),
      authorizeQuery(w, 'confidential', { redirect_uri: `${app(w.sim, 'confidential').redirectUris[0]}/x` }),
      { response_type: 'code' },
    ]) {
      const res = await w.browser.get('/oauth/authorize').query(query);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
  });

  it('redirects errors after the redirect URI is trusted, with state', async () => {
    const w = world();
    await signInRoot(w);
    const cases: Array<[Record<string, string>, string]> = [
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ response_type: '' }, 'invalid_request'],
      [{ scope: 'api sudo' }, 'invalid_scope'],
      [{ code_challenge: pkcePair().challenge, code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: pkcePair().challenge }, 'invalid_request'],
      [{ code_challenge: 'too-short', code_challenge_method: 'S256' }, 'invalid_request'],
      [{ code_challenge: `${pkcePair().challenge.slice(0, 42)}=`, code_challenge_method: 'S256' }, 'invalid_request'],
      [{ code_challenge_method: 'S256' }, 'invalid_request'],
    ];
    for (const [extra, error] of cases) {
      const res = await w.browser
        .get('/oauth/authorize')
        .query(authorizeQuery(w, 'confidential', { state: 's 1', ...extra }));
      expect(res.status, JSON.stringify(extra)).toBe(302);
      const location = new URL(res.headers.location);
      expect(location.searchParams.get('error'), JSON.stringify(extra)).toBe(error);
      expect(location.searchParams.get('state')).toBe('s 1');
    }
    const limited = await w.browser.get('/oauth/authorize').query(authorizeQuery(w, 'limited', { scope: 'api' }));
    expect(new URL(limited.headers.location).searchParams.get('error')).toBe('invalid_scope');
    const publicNoPkce = await w.browser.get('/oauth/authorize').query(authorizeQuery(w, 'public'));
    expect(new URL(publicNoPkce.headers.location).searchParams.get('error')).toBe('invalid_request');
  });

  it('sends an anonymous browser to sign in and back to the consent page', async () => {
    const w = world();
    const query = new URLSearchParams(authorizeQuery(w, 'confidential', { state: 'xyz' })).toString();
    const first = await w.browser.get(`/oauth/authorize?${query}`);
    expect(first.status).toBe(302);
    const signInUrl = new URL(first.headers.location, 'http://x');
    expect(signInUrl.pathname).toBe('/users/sign_in');
    const page = await w.browser.get(signInUrl.pathname + signInUrl.search);
    const { admin } = seeded(w.sim);
    const back = await w.browser
      .post('/users/sign_in')
      .type('form')
      .send({ ...formFields(page.text, 'sign-in'), 'user[login]': admin.username, 'user[password]': admin.password });
    expect(back.headers.location).toBe(`/oauth/authorize?${query}`);
    const consentPage = await w.browser.get(back.headers.location);
    expect(consentPage.status).toBe(200);
    expect(consentPage.headers).toMatchObject(PAGE_SECURITY);
    expect(consentPage.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(consentPage.text).toContain(app(w.sim, 'confidential').name);
  });

  it('approves through the form: redirect with code and the state unchanged ("+" in the query is a space)', async () => {
    const w = world();
    await signInRoot(w);
    const a = app(w.sim, 'confidential');
    const raw = `client_id=${a.uid}&redirect_uri=${encodeURIComponent(a.redirectUris[0])}&response_type=code&scope=api+read_user&state=a%2Bb+c%26d%3D%C3%A9`;
    const page = await w.browser.get(`/oauth/authorize?${raw}`);
    expect(page.status).toBe(200);
    const fields = formFields(page.text, 'consent');
    expect(fields.scope).toBe('api read_user');
    const res = await w.browser
      .post('/oauth/authorize')
      .type('form')
      .send({ ...fields, decision: 'approve' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location);
    expect(location.origin + location.pathname).toBe(a.redirectUris[0]);
    expect(location.searchParams.get('state')).toBe('a+b c&d=é');
    expect(location.searchParams.get('code')).toMatch(/^[0-9a-f]{64}$/);
    expect(w.sim.store.codes.get(digest(location.searchParams.get('code')!))!.scopes).toEqual(['api', 'read_user']);
  });

  it('adds no state when none was sent, and denies with access_denied and no code', async () => {
    const w = world();
    await signInRoot(w);
    const { location } = await consent(w, 'confidential');
    expect(location.searchParams.has('state')).toBe(false);
    const denied = await consent(w, 'confidential', { decision: 'deny', state: 'keep me' });
    expect(denied.location.searchParams.get('error')).toBe('access_denied');
    expect(denied.location.searchParams.get('state')).toBe('keep me');
    expect(denied.location.searchParams.has('code')).toBe(false);
  });

  it('refuses a consent POST without a valid CSRF token or session, and re-validates the posted parameters', async () => {
    const w = world();
    await signInRoot(w);
    const page = await w.browser.get('/oauth/authorize').query(authorizeQuery(w, 'confidential'));
    const fields = formFields(page.text, 'consent');
    const forged = await w.browser
      .post('/oauth/authorize')
      .type('form')
      .send({ ...fields, authenticity_token: 'x', decision: 'approve' });
    expect(forged.status).toBe(422);
    const anonymous = await w
      .http()
      .post('/oauth/authorize')
      .type('form')
      .send({ ...fields, decision: 'approve' });
    expect(anonymous.status).toBe(401);
    const tampered = await w.browser
      .post('/oauth/authorize')
      .type('form')
      .send({ ...fields, redirect_uri: 'https://evil.test/cb', decision: 'approve' });
    expect(tampered.status).toBe(400);
    expect(tampered.headers.location).toBeUndefined();
    expect(w.sim.store.codes.size).toBe(0);
  });

  it('uses the default scope api when none is requested, else the registered scopes', async () => {
    const w = world();
    await signInRoot(w);
    const c = await code(w, 'confidential');
    expect(w.sim.store.codes.get(digest(c.code))!.scopes).toEqual(['api']);
    const l = await code(w, 'limited');
    expect(w.sim.store.codes.get(digest(l.code))!.scopes).toEqual(['read_user']);
  });

  it('lets a non-admin user consent as well', async () => {
    const w = world();
    const { user } = seeded(w.sim);
    await signIn(w.browser, user.username, user.password);
    const t = await tokens(w, 'confidential', { scope: 'read_user' });
    expect(w.sim.store.accessTokens.get(digest(t.access_token))!.userId).toBe(user.id);
  });
});
