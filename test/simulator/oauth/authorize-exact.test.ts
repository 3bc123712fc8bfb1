/**
 * The authorization pages and the device pages pinned to exact answers, one input changed at a
 * time: the status and message of each refusal page, the error and description each redirect
 * carries (RFC 6749 §4.1.2.1), the code record a consent stores, the session cookie and CSRF
 * rules, the device authorization response, and the release, flag and offering gates.
 */
import { describe, expect, it } from 'vitest';
import { seeded } from '../../../simulator/oauth/accounts.js';
import { redirectTo } from '../../../simulator/oauth/authorize-request.js';
import {
  csrfValid,
  overHttps,
  safeReturnPath,
  sessionCookie,
  sessionCsrf,
  sessionOf,
  signInCsrf,
  signInCsrfValid,
  signInLocation,
} from '../../../simulator/oauth/session.js';
import { digest } from '../../../simulator/digest.js';
import { FIELDS } from '../../../simulator/pages/layout.js';
import { deviceByCode } from '../../../simulator/oauth/device.js';
import { createSimulator } from '../../../simulator/core.js';
import type { Session } from '../../../simulator/store.js';
import type { SimRequest } from '../../../simulator/types.js';
import { L, app, formFields, pkcePair, signInRoot, unescapeHtml, world, type World } from './helpers.js';

type Res = { status: number; text: string; headers: Record<string, string> };

/** The title and message of a message page. */
function pageOf(res: Res) {
  return {
    status: res.status,
    title: unescapeHtml(/<h1>([^<]*)<\/h1>/.exec(res.text)?.[1] ?? ''),
    message: unescapeHtml(/<p id="(?:message|error)"[^>]*>([^<]*)<\/p>/.exec(res.text)?.[1] ?? ''),
  };
}

function query(w: World, role: 'confidential' | 'public' | 'limited', extra: Record<string, string> = {}) {
  const a = app(w.sim, role);
  return { client_id: a.uid, redirect_uri: a.redirectUris[0], response_type: 'code', ...extra };
}

/** The redirect of an authorize request as its query parameters. */
async function redirected(w: World, q: Record<string, string>) {
  const res = await w.browser.get('/oauth/authorize').query(q);
  expect(res.status, res.text).toBe(302);
  const location = new URL(res.headers.location);
  return { base: location.origin + location.pathname, params: Object.fromEntries(location.searchParams) };
}

async function signedIn(options = {}) {
  const w = world(options);
  await signInRoot(w);
  return w;
}

async function consentFields(w: World, q: Record<string, string>) {
  const page = await w.browser.get('/oauth/authorize').query(q);
  expect(page.status, page.text).toBe(200);
  return formFields(page.text, 'consent');
}

const decide = (w: World, form: Record<string, string>) => w.browser.post('/oauth/authorize').type('form').send(form);

describe('GET /oauth/authorize: refusal pages (no redirect before the redirect URI is trusted)', () => {
  it('each problem has its status and message', async () => {
    const w = await signedIn();
    const a = app(w.sim, 'confidential');
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ response_type: 'code' }, 400, 'The request has no client_id.'],
      [{ client_id: 'nobody', response_type: 'code' }, 401, 'Client authentication failed: unknown client_id.'],
      [{ client_id: a.uid, response_type: 'code' }, 400, 'The request has no redirect_uri.'],
      [
        query(w, 'confidential', { redirect_uri: 'https://evil.test/cb' }),
        400,
        'The redirect URI is not registered for this application.',
      ],
    ];
    for (const [q, status, message] of cases) {
      const res = await w.browser.get('/oauth/authorize').query(q);
      expect(pageOf(res)).toEqual({ status, title: 'Authorization request refused', message });
      expect(res.headers.location).toBeUndefined();
    }
  });

  it('a parameter sent twice is refused on a page naming it', async () => {
    const w = await signedIn();
    const a = app(w.sim, 'confidential');
    const res = await w.browser.get(`/oauth/authorize?client_id=${a.uid}&client_id=${a.uid}&response_type=code`);
    expect(pageOf(res)).toEqual({
      status: 400,
      title: 'Authorization request refused',
      message: 'The parameter client_id was sent more than once',
    });
  });

  it('authorize-open-redirect: any redirect URI is trusted; one that is not absolute still gets a page', async () => {
    const w = await signedIn({ faults: ['authorize-open-redirect'] });
    const open = await redirected(
      w,
      query(w, 'confidential', { redirect_uri: 'https://evil.test/cb', response_type: 'token' }),
    );
    expect(open.base).toBe('https://evil.test/cb');
    expect(open.params.error).toBe('unsupported_response_type');
    const res = await w.browser.get('/oauth/authorize').query(query(w, 'confidential', { redirect_uri: '/relative' }));
    expect(pageOf(res)).toEqual({
      status: 400,
      title: 'Authorization request refused',
      message: 'The redirect URI is not an absolute URI.',
    });
  });
});

describe('GET /oauth/authorize: errors sent back to the client with state (RFC 6749 §4.1.2.1)', () => {
  it('each problem has its error and description, and state comes back unchanged', async () => {
    const w = await signedIn();
    const { challenge } = pkcePair();
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ response_type: '' }, 'invalid_request', 'The parameter response_type is missing'],
      [{ response_type: 'token' }, 'unsupported_response_type', 'Only response_type=code is supported'],
      [{ scope: 'api sudo' }, 'invalid_scope', 'Unknown scope: sudo'],
      [{ code_challenge_method: 'S256' }, 'invalid_request', 'code_challenge_method was sent without code_challenge'],
      [
        { code_challenge: '', code_challenge_method: 'S256' },
        'invalid_request',
        'code_challenge_method was sent without code_challenge',
      ],
      [{ code_challenge: challenge }, 'invalid_request', 'code_challenge_method must be S256'],
      [
        { code_challenge: challenge, code_challenge_method: 'plain' },
        'invalid_request',
        'code_challenge_method must be S256',
      ],
      [
        { code_challenge: 'short', code_challenge_method: 'S256' },
        'invalid_request',
        'code_challenge must be 43 characters of URL-safe base64 without padding',
      ],
    ];
    for (const [extra, error, description] of cases) {
      const { base, params } = await redirected(w, query(w, 'confidential', { state: 'st 1', ...extra }));
      expect(base).toBe(app(w.sim, 'confidential').redirectUris[0]);
      expect(params, JSON.stringify(extra)).toEqual({ error, error_description: description, state: 'st 1' });
    }
    const limited = await redirected(w, query(w, 'limited', { scope: 'api' }));
    expect(limited.params).toEqual({
      error: 'invalid_scope',
      error_description: 'The application may not request the scope api',
    });
    const pub = await redirected(w, query(w, 'public'));
    expect(pub.params).toEqual({
      error: 'invalid_request',
      error_description: 'A public application must send a PKCE code_challenge',
    });
  });

  it('scope-not-enforced: a scope outside the registration reaches the consent page', async () => {
    const w = await signedIn({ faults: ['scope-not-enforced'] });
    expect((await consentFields(w, query(w, 'limited', { scope: 'api' }))).scope).toBe('api');
  });

  it('redirectTo appends to the query a redirect URI already has, and leaves out absent values', () => {
    expect(redirectTo('https://app.test/cb?tenant=a%20b', { code: 'c', state: null, nonce: undefined, e: '' })).toBe(
      'https://app.test/cb?tenant=a+b&code=c&e=',
    );
  });
});

describe('GET /oauth/authorize: the consent page', () => {
  it('carries every parameter of the request to the decision', async () => {
    const w = await signedIn();
    const { challenge } = pkcePair();
    const a = app(w.sim, 'confidential');
    const fields = await consentFields(
      w,
      query(w, 'confidential', {
        scope: 'openid api',
        state: 'st',
        nonce: 'n-1',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    const { authenticity_token, ...rest } = fields;
    expect(authenticity_token.length).toBeGreaterThan(20);
    expect(rest).toEqual({
      client_id: a.uid,
      redirect_uri: a.redirectUris[0],
      response_type: 'code',
      state: 'st',
      scope: 'openid api',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      nonce: 'n-1',
    });
  });

  it('an empty nonce is no nonce', async () => {
    const w = await signedIn();
    const fields = await consentFields(w, query(w, 'confidential', { nonce: '' }));
    expect('nonce' in fields).toBe(false);
  });

  it('an anonymous visitor goes to sign in, coming back to this very request', async () => {
    const w = world();
    const q = new URLSearchParams(query(w, 'confidential', { state: 'a b' })).toString();
    const res = await w.browser.get(`/oauth/authorize?${q}`);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`/users/sign_in?redirect_to=${encodeURIComponent(`/oauth/authorize?${q}`)}`);
  });
});

describe('POST /oauth/authorize: the decision', () => {
  it('approve stores a code bound to client, user, redirect URI, scopes, challenge, nonce and sign-in time', async () => {
    const w = world();
    const signInAt = w.sim.clock.nowSeconds();
    await signInRoot(w);
    w.sim.clock.advance(30);
    const { challenge } = pkcePair();
    const a = app(w.sim, 'confidential');
    const fields = await consentFields(
      w,
      query(w, 'confidential', {
        scope: 'openid api',
        state: 'st',
        nonce: 'n-1',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    const res = await decide(w, { ...fields, decision: 'approve' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location);
    expect(location.origin + location.pathname).toBe(a.redirectUris[0]);
    const value = location.searchParams.get('code')!;
    expect(Object.fromEntries(location.searchParams)).toEqual({ code: value, state: 'st' });
    expect({ ...w.sim.store.codes.get(digest(value))! }).toEqual({
      digest: digest(value),
      applicationId: a.id,
      userId: seeded(w.sim).admin.id,
      redirectUri: a.redirectUris[0],
      scopes: ['openid', 'api'],
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
      nonce: 'n-1',
      createdAt: signInAt + 30,
      expiresIn: L.authorizationCodeLifetime,
      exchangedFor: null,
      authTime: signInAt,
    });
  });

  it('without PKCE or nonce the code has none', async () => {
    const w = await signedIn();
    const res = await decide(w, { ...(await consentFields(w, query(w, 'confidential'))), decision: 'approve' });
    const stored = w.sim.store.codes.get(digest(new URL(res.headers.location).searchParams.get('code')!))!;
    expect(stored).toMatchObject({ codeChallenge: null, codeChallengeMethod: null, nonce: null, scopes: ['api'] });
  });

  it('deny: access_denied with its description and state, no code stored', async () => {
    const w = await signedIn();
    const res = await decide(w, {
      ...(await consentFields(w, query(w, 'confidential', { state: 's' }))),
      decision: 'deny',
    });
    expect(res.status).toBe(302);
    expect(Object.fromEntries(new URL(res.headers.location).searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The resource owner denied the request',
      state: 's',
    });
    expect(w.sim.store.codes.size).toBe(0);
  });

  it('state-dropped: neither the code nor the denial carries state', async () => {
    const w = await signedIn({ faults: ['state-dropped'] });
    const fields = await consentFields(w, query(w, 'confidential', { state: 's' }));
    for (const decision of ['approve', 'deny']) {
      const res = await decide(w, { ...fields, decision });
      expect(new URL(res.headers.location).searchParams.has('state')).toBe(false);
    }
  });

  it('refusal pages: not signed in, a repeated parameter, a forged form, a tampered request, no decision', async () => {
    const w = await signedIn();
    const fields = await consentFields(w, query(w, 'confidential'));
    const anonymous = await w
      .http()
      .post('/oauth/authorize')
      .type('form')
      .send({ ...fields, decision: 'approve' });
    expect(pageOf(anonymous)).toEqual({
      status: 401,
      title: 'Authorization refused',
      message: 'Sign in first, then open the authorization link again.',
    });
    const twice = await w.browser
      .post('/oauth/authorize')
      .type('form')
      .send(`${new URLSearchParams(fields).toString()}&decision=approve&decision=deny`);
    expect(pageOf(twice)).toEqual({
      status: 400,
      title: 'Authorization refused',
      message: 'The parameter decision was sent more than once',
    });
    expect(pageOf(await decide(w, { ...fields, authenticity_token: 'forged', decision: 'approve' }))).toEqual({
      status: 422,
      title: 'Authorization refused',
      message: 'The form expired or the request was forged (invalid authenticity token).',
    });
    expect(pageOf(await decide(w, { ...fields, client_id: 'nobody', decision: 'approve' }))).toEqual({
      status: 401,
      title: 'Authorization request refused',
      message: 'Client authentication failed: unknown client_id.',
    });
    const back = await decide(w, { ...fields, response_type: 'token', decision: 'approve' });
    expect(back.status).toBe(302);
    expect(new URL(back.headers.location).searchParams.get('error')).toBe('unsupported_response_type');
    for (const decision of [undefined, 'maybe']) {
      const res = await decide(w, decision ? { ...fields, decision } : fields);
      expect(pageOf(res)).toEqual({
        status: 400,
        title: 'Authorization refused',
        message: 'Choose Authorize or Deny.',
      });
    }
    expect(w.sim.store.codes.size).toBe(0);
  });
});

describe('sessions and CSRF', () => {
  const request = (headers: Record<string, string> = {}, url = 'http://127.0.0.1:3000/users/sign_in') =>
    ({ url, headers: new Headers(headers) }) as unknown as SimRequest;

  it('finds the session cookie among others, by exact name, trimmed', () => {
    const sim = createSimulator({ clock: { frozen: true } });
    const session: Session = { digest: digest('sid-1'), userId: 1, createdAt: 0 };
    sim.store.sessions.set(session.digest, session);
    expect(sessionOf(sim, request({ cookie: 'a=1; _idp_session=sid-1; b=2' }))).toBe(session);
    expect(sessionOf(sim, request({ cookie: '_idp_session=sid-1' }))).toBe(session);
    expect(sessionOf(sim, request({ cookie: 'x_idp_session=sid-1' }))).toBeUndefined();
    expect(sessionOf(sim, request({ cookie: '=sid-1; _idp_session_=sid-1' }))).toBeUndefined();
    expect(sessionOf(sim, request({ cookie: '_idp_session=other' }))).toBeUndefined();
    // A part without "=" names no cookie, even when its text is a session id.
    sim.store.sessions.set(digest('_idp_sessionX'), { ...session, digest: digest('_idp_sessionX') });
    expect(sessionOf(sim, request({ cookie: '_idp_sessionX' }))).toBeUndefined();
    expect(sessionOf(sim, request())).toBeUndefined();
  });

  // Review 25, finding 5: a page on another port of this host sets a cookie of the same name with a
  // narrower path (cookies ignore ports), which the browser sends first: whose session is that?
  it('two session cookies are no session; two pre-session cookies no pre-session', () => {
    const sim = createSimulator({ clock: { frozen: true } });
    const session: Session = { digest: digest('sid-1'), userId: 1, createdAt: 0 };
    sim.store.sessions.set(session.digest, session);
    sim.store.sessions.set(digest('sid-2'), { ...session, digest: digest('sid-2') });
    expect(sessionOf(sim, request({ cookie: '_idp_session=sid-2; a=1; _idp_session=sid-1' }))).toBeUndefined();
    expect(sessionOf(sim, request({ cookie: '_idp_session=sid-1; _idp_session=sid-1' }))).toBeUndefined();
    expect(sessionOf(sim, request({ cookie: '_idp_session=sid-1; _idp_presession=x' }))).toBe(session);
    const [mine, theirs] = ['C'.repeat(43), 'D'.repeat(43)];
    const both = request({ cookie: `_idp_presession=${theirs}; _idp_presession=${mine}` });
    for (const nonce of [mine, theirs]) expect(signInCsrfValid(sim, both, digest(`csrf:${nonce}`))).toBe(false);
    // The form is served with a fresh pre-session, as to a visitor without one.
    expect(signInCsrf(sim, both).setCookie).toMatch(/^_idp_presession=/);
  });

  it('the cookie is HttpOnly and SameSite=Lax, and Secure over HTTPS or behind a trusted proxy saying https', () => {
    const plain = createSimulator();
    const proxied = createSimulator({ trustProxy: true });
    expect(sessionCookie(plain, request(), 'sid')).toBe('_idp_session=sid; Path=/; HttpOnly; SameSite=Lax');
    expect(sessionCookie(plain, request({}, 'https://idp.test/'), 'sid')).toBe(
      '_idp_session=sid; Path=/; HttpOnly; SameSite=Lax; Secure',
    );
    expect(overHttps(plain, request({ 'x-forwarded-proto': 'https' }))).toBe(false);
    expect(overHttps(proxied, request({ 'x-forwarded-proto': ' HTTPS , http' }))).toBe(true);
    expect(overHttps(proxied, request({ 'x-forwarded-proto': 'http, https' }))).toBe(false);
    expect(overHttps(proxied, request())).toBe(false);
  });

  it('the sign-in token: the session’s own, or derived from a well-formed pre-session cookie, else a fresh one', () => {
    const sim = createSimulator();
    const nonce = 'A'.repeat(43);
    expect(signInCsrf(sim, request({ cookie: `_idp_presession=${nonce}` }))).toEqual({
      csrf: digest(`csrf:${nonce}`),
    });
    for (const bad of ['A'.repeat(42), 'A'.repeat(44), `${'A'.repeat(42)}+`, `+${'A'.repeat(42)}`]) {
      const fresh = signInCsrf(sim, request({ cookie: `_idp_presession=${bad}` }));
      expect(fresh.csrf).not.toBe(digest(`csrf:${bad}`));
      expect(fresh.setCookie).toMatch(/^_idp_presession=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
      const cookie = fresh.setCookie!.split(';')[0];
      expect(fresh.csrf).toBe(digest(`csrf:${cookie.slice('_idp_presession='.length)}`));
    }
    const session: Session = { digest: digest('sid'), userId: 1, createdAt: 0 };
    sim.store.sessions.set(session.digest, session);
    expect(signInCsrf(sim, request({ cookie: `_idp_session=sid; _idp_presession=${nonce}` }))).toEqual({
      csrf: sessionCsrf('sid'),
    });
  });

  it('a sign-in token is valid only for its own session or pre-session cookie', () => {
    const sim = createSimulator();
    const nonce = 'B'.repeat(43);
    const token = digest(`csrf:${nonce}`);
    const withNonce = request({ cookie: `_idp_presession=${nonce}` });
    expect(signInCsrfValid(sim, withNonce, token)).toBe(true);
    expect(signInCsrfValid(sim, withNonce, null)).toBe(false);
    expect(signInCsrfValid(sim, withNonce, digest('csrf:other'))).toBe(false);
    expect(signInCsrfValid(sim, request(), token)).toBe(false);
    const session: Session = { digest: digest('sid'), userId: 1, createdAt: 0 };
    sim.store.sessions.set(session.digest, session);
    const withSession = request({ cookie: `_idp_session=sid; _idp_presession=${nonce}` });
    expect(signInCsrfValid(sim, withSession, sessionCsrf('sid'))).toBe(true);
    expect(signInCsrfValid(sim, withSession, sessionCsrf('other'))).toBe(false);
    expect(signInCsrfValid(sim, withSession, token)).toBe(false);
    expect(csrfValid(undefined, sessionCsrf('sid'))).toBe(false);
    expect(csrfValid(sessionCsrf('sid'), '')).toBe(false);
  });

  it('signing in replaces the session: the old id stops working', async () => {
    const w = await signedIn();
    const before = [...w.sim.store.sessions.keys()];
    expect(before).toHaveLength(1);
    await signInRoot(w);
    const after = [...w.sim.store.sessions.keys()];
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before[0]);
  });

  it('the way back after sign-in is encoded whole', () => {
    expect(signInLocation('/oauth/authorize?a=1&b=2')).toBe(
      '/users/sign_in?redirect_to=%2Foauth%2Fauthorize%3Fa%3D1%26b%3D2',
    );
  });

  it('only a same-origin path is followed after sign-in, and no value crashes it', () => {
    const origin = 'http://127.0.0.1:3000';
    expect(safeReturnPath('/a?b=1#c', '/home', origin)).toBe('/a?b=1#c');
    expect(safeReturnPath(null, '/home', origin)).toBe('/home');
    expect(safeReturnPath('a/b', '/home', origin)).toBe('/home');
    expect(safeReturnPath('/a b', '/home', origin)).toBe('/home');
    expect(safeReturnPath('/a\u007f', '/home', origin)).toBe('/home');
    // Nothing is stripped or rewritten: a backslash or control character fails the whole value.
    expect(safeReturnPath('/a\\b', '/home', origin)).toBe('/home');
    expect(safeReturnPath('/a\u0000b', '/home', origin)).toBe('/home');
    expect(safeReturnPath('/a\u001fb', '/home', origin)).toBe('/home');
    expect(safeReturnPath('/.//evil.test/x', '/home', origin)).toBe('/home');
    expect(safeReturnPath('//u:p@127.0.0.1:3000/x', '/home', origin)).toBe('/home');
    // Normalized to `//@`, which does not parse as a URL: the fallback, not an exception.
    expect(safeReturnPath('/.//@', '/home', origin)).toBe('/home');
    expect(safeReturnPath('/x', '/home', 'not an origin')).toBe('/home');
  });

  it('the sign-in page with a return path that normalizes to no URL answers 200, not 500', async () => {
    const w = world();
    const res = await w.browser.get('/users/sign_in').query({ redirect_to: '/.//@' });
    expect(res.status).toBe(200);
  });
});

describe('the device flow: start and pages', () => {
  const start = (w: World, form: Record<string, string>) =>
    w.http().post('/oauth/authorize_device').type('form').send(form);

  it('the device authorization response, exactly', async () => {
    const w = world();
    const pub = app(w.sim, 'public');
    const res = await start(w, { client_id: pub.uid });
    expect(res.status).toBe(200);
    const { device_code, user_code } = res.body;
    const page = `${new URL(res.body.verification_uri).origin}/oauth/device`;
    expect(res.body).toEqual({
      device_code,
      user_code,
      verification_uri: page,
      verification_uri_complete: `${page}?user_code=${encodeURIComponent(user_code)}`,
      expires_in: L.deviceCodeLifetime,
      interval: L.deviceInterval,
    });
    expect({ ...deviceByCode(w.sim, device_code)! }).toEqual({
      digest: digest(device_code),
      userCodeDigest: digest(user_code),
      applicationId: pub.id,
      scopes: ['api'],
      createdAt: w.sim.clock.nowSeconds(),
      expiresIn: L.deviceCodeLifetime,
      interval: L.deviceInterval,
      state: 'pending',
      userId: null,
      lastPollAt: null,
    });
  });

  it('client_id is required (alone, even for a confidential application), and the scope asked is the scope kept', async () => {
    const w = world();
    expect((await start(w, { client_id: app(w.sim, 'confidential').uid })).status).toBe(200);
    const missing = await start(w, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: 'The parameter client_id is missing' });
    const res = await start(w, { client_id: app(w.sim, 'public').uid, scope: 'openid api' });
    expect(deviceByCode(w.sim, res.body.device_code)!.scopes).toEqual(['openid', 'api']);
  });

  it('device-timings-doubled: 600 and 10 where the source shows 300 and 5', async () => {
    const w = world({ faults: ['device-timings-doubled'] });
    const res = await start(w, { client_id: app(w.sim, 'public').uid });
    expect(res.body).toMatchObject({ expires_in: L.deviceCodeLifetime * 2, interval: L.deviceInterval * 2 });
  });

  it('device-uri-complete-no-user-code: the complete URI is the bare page', async () => {
    const w = world({ faults: ['device-uri-complete-no-user-code'] });
    const res = await start(w, { client_id: app(w.sim, 'public').uid });
    expect(res.body.verification_uri_complete).toBe(res.body.verification_uri);
  });

  it('the verification page prefills nothing without user_code', async () => {
    const w = await signedIn();
    const page = await w.browser.get('/oauth/device');
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="user_code" value=""');
    const anonymous = await w.http().get('/oauth/device');
    expect(anonymous.headers.location).toBe('/users/sign_in?redirect_to=%2Foauth%2Fdevice');
  });
});

describe('POST /oauth/device: the decision', () => {
  async function deviceWorld() {
    const w = await signedIn();
    const fields = formFields((await w.browser.get('/oauth/device')).text, 'device');
    const started = await w
      .http()
      .post('/oauth/authorize_device')
      .type('form')
      .send({ client_id: app(w.sim, 'public').uid });
    const post = (form: Record<string, string>) => w.browser.post('/oauth/device').type('form').send(form);
    return { w, fields, body: started.body, post };
  }

  it('refusal pages: not signed in, a forged or non-form body, no decision, an unknown code', async () => {
    const { w, fields, body, post } = await deviceWorld();
    const anonymous = await w
      .http()
      .post('/oauth/device')
      .type('form')
      .send({ ...fields, user_code: body.user_code, decision: 'approve' });
    expect(pageOf(anonymous)).toEqual({
      status: 401,
      title: 'Sign in required',
      message: 'Sign in first, then open the device page again.',
    });
    const forged = {
      status: 422,
      title: 'Device refused',
      message: 'The form expired or the request was forged (invalid authenticity token).',
    };
    expect(pageOf(await post({ user_code: body.user_code, decision: 'approve' }))).toEqual(forged);
    const asJson = await w.browser
      .post('/oauth/device')
      .send({ ...fields, user_code: body.user_code, decision: 'approve' });
    expect(pageOf(asJson)).toEqual(forged);
    // A decision that is neither button's: the confirmation again, asking for one.
    const undecided = await post({ ...fields, user_code: body.user_code, decision: 'maybe' });
    expect(pageOf(undecided)).toEqual({
      status: 400,
      title: `Authorize ${app(w.sim, 'public').name} to use your account?`,
      message: 'Choose Authorize or Deny.',
    });
    expect(undecided.text).toContain(`<input type="hidden" name="user_code" value="${body.user_code}">`);
    const unknown = await post({ ...fields, user_code: 'BBBB-BBBB', decision: 'approve' });
    expect(pageOf(unknown)).toEqual({
      status: 404,
      title: 'Connect a device',
      message: 'That code is not valid. Check it on your device.',
    });
    expect(pageOf(await post({ ...fields, decision: 'approve' })).status).toBe(404);
    expect(deviceByCode(w.sim, body.device_code)!.state).toBe('pending');
  });

  it('the entered code alone decides nothing: the confirmation names the application, its scopes and the code', async () => {
    const { w, fields, body, post } = await deviceWorld();
    const typed = body.user_code.replace('-', ' ').toLowerCase();
    const res = await post({ ...fields, user_code: typed });
    const a = app(w.sim, 'public');
    expect(pageOf(res)).toEqual({ status: 200, title: `Authorize ${a.name} to use your account?`, message: '' });
    expect(res.text).toContain('data-page="device_confirm"');
    expect(res.text).toContain(`<strong id="application-name">${a.name}</strong>`);
    const scopes = /<ul id="scopes">([\s\S]*?)<\/ul>/.exec(res.text)![1];
    const stored = deviceByCode(w.sim, body.device_code)!;
    expect([...scopes.matchAll(/<code>([^<]*)<\/code>/g)].map((m) => m[1])).toEqual(stored.scopes);
    expect(res.text).toContain(`<code id="user-code">${body.user_code}</code>`);
    // Its form carries the code as the device shows it and the session's CSRF token, beside the two buttons.
    const confirm = formFields(res.text, 'device-confirm');
    expect(confirm).toEqual({ [FIELDS.csrf]: fields[FIELDS.csrf], user_code: body.user_code });
    expect(res.text).toContain('<button type="submit" name="decision" value="approve">Authorize</button>');
    expect(res.text).toContain('<button type="submit" name="decision" value="deny">Deny</button>');
    expect(stored.state).toBe('pending');
    const approved = await post({ ...confirm, decision: 'approve' });
    expect(approved.text).toContain('data-page="device_approved"');
    expect(stored.state).toBe('authorized');
  });

  it('deny: the code is denied and the page says so', async () => {
    const { w, fields, body, post } = await deviceWorld();
    const res = await post({ ...fields, user_code: body.user_code, decision: 'deny' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('data-page="device_denied"');
    expect(deviceByCode(w.sim, body.device_code)!).toMatchObject({ state: 'denied' });
  });

  it('wrong codes are throttled per account past the limit, right codes do not count (429 with Retry-After)', async () => {
    const { fields, body, post } = await deviceWorld();
    for (let i = 0; i < L.authFailuresMax - 1; i++) {
      expect((await post({ ...fields, user_code: 'BBBB-BBBB', decision: 'approve' })).status).toBe(404);
    }
    expect((await post({ ...fields, user_code: body.user_code, decision: 'approve' })).status).toBe(200);
    expect((await post({ ...fields, user_code: 'BBBB-BBBB', decision: 'approve' })).status).toBe(404);
    const locked = await post({ ...fields, user_code: body.user_code, decision: 'approve' });
    expect(pageOf(locked)).toEqual({
      status: 429,
      title: 'Too many attempts',
      message: 'Too many wrong codes. Try again later.',
    });
    expect(locked.headers['retry-after']).toBe(String(L.authFailureWindowSeconds));
  });
});

describe('gates: release, flag and offering', () => {
  const creds = (w: World) => {
    const { admin } = seeded(w.sim);
    return { grant_type: 'password', username: admin.username, password: admin.password };
  };
  const password = (w: World, headers: Record<string, string> = {}) =>
    w.http().post('/oauth/token').set(headers).type('form').send(creds(w));
  const basic = (w: World) => {
    const a = app(w.sim, 'confidential');
    return { authorization: `Basic ${Buffer.from(`${a.uid}:${a.secret}`).toString('base64')}` };
  };

  it('the password grant until 19.0', async () => {
    expect((await password(world({ release: '18.11' }))).status).toBe(200);
    expect((await password(world({ release: '19.0' }))).body.error).toBe('unsupported_grant_type');
  });

  it('the device grant from 17.1, with its flag on', async () => {
    const poll = (w: World) =>
      w
        .http()
        .post('/oauth/token')
        .type('form')
        .send({
          grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
          client_id: app(w.sim, 'public').uid,
          device_code: 'x',
        });
    expect((await poll(world({ release: '17.1' }))).body.error).toBe('invalid_grant');
    expect((await poll(world({ release: '17.0' }))).body.error).toBe('unsupported_grant_type');
    expect((await poll(world({ flags: { device_authorization_grant: false } }))).body.error).toBe(
      'unsupported_grant_type',
    );
  });

  it('client credentials for the password grant: by setting, on hosted since its date, never otherwise', async () => {
    const needs = async (w: World) => {
      const res = await password(w);
      if (res.status === 200) return false;
      expect(res.body.error).toBe('invalid_client');
      expect((await password(w, basic(w))).status).toBe(200);
      return true;
    };
    expect(await needs(world())).toBe(false);
    expect(await needs(world({ settings: { passwordGrantClientCredentialsOnly: true } }))).toBe(true);
    expect(
      await needs(
        world({
          settings: { passwordGrantClientCredentialsOnly: true },
          faults: ['password-client-credentials-setting-ignored'],
        }),
      ),
    ).toBe(false);
    expect(await needs(world({ faults: ['password-requires-client'] }))).toBe(true);
    const since = Date.parse('2025-04-08');
    expect(await needs(world({ offering: 'hosted', clock: { frozen: true, start: since } }))).toBe(true);
    expect(await needs(world({ offering: 'hosted', clock: { frozen: true, start: since - 1000 } }))).toBe(false);
  });
});
