import { digest } from '../../../simulator/digest.js';
/** POST /oauth/token: every row of the source's parameter table, the token responses, the errors. */
import { describe, expect, it } from 'vitest';
import { seeded } from '../../../simulator/oauth/accounts.js';
import { L, app, code, exchangeForm, signInRoot, tokens, world, type World } from './helpers.js';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(user)}:${encodeURIComponent(password)}`).toString('base64')}`;

function post(w: World, form: Record<string, string>, headers: Record<string, string> = {}) {
  return w.http().post('/oauth/token').set(headers).type('form').send(form);
}

function expectError(res: { status: number; body: any; headers: Record<string, string> }, error: string, status = 400) {
  expect(res.body.error, JSON.stringify(res.body)).toBe(error);
  expect(res.status).toBe(status);
  expect(typeof res.body.error_description).toBe('string');
  expect(res.headers['content-type']).toBe('application/json');
  expect(res.headers['cache-control']).toBe('no-store');
  if (status === 401) expect(res.headers['www-authenticate']).toMatch(new RegExp(`error="${error}"`));
}

function expectCodeShape(body: any, now: number) {
  expect(Object.keys(body).sort()).toEqual(['access_token', 'created_at', 'expires_in', 'refresh_token', 'token_type']);
  expect(body.token_type).toBe('bearer');
  expect(body.expires_in).toBe(L.accessTokenLifetime);
  expect(body.created_at).toBe(now);
}

async function signedIn(options = {}) {
  const w = world(options);
  await signInRoot(w);
  return w;
}

describe('parameter table: authorization_code', () => {
  it('with PKCE: client_id, code, redirect_uri, code_verifier (no secret)', async () => {
    const w = await signedIn();
    const c = await code(w, 'public');
    const form = exchangeForm(w, 'public', c.code, c.verifier);
    expect(Object.keys(form).sort()).toEqual(['client_id', 'code', 'code_verifier', 'grant_type', 'redirect_uri']);
    const res = await post(w, form);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['cache-control']).toBe('no-store');
    expectCodeShape(res.body, w.sim.clock.nowSeconds());
  });

  it('without PKCE: client_id, client_secret, code, redirect_uri', async () => {
    const w = await signedIn();
    const c = await code(w, 'confidential');
    const form = exchangeForm(w, 'confidential', c.code);
    expect(Object.keys(form).sort()).toEqual(['client_id', 'client_secret', 'code', 'grant_type', 'redirect_uri']);
    const res = await post(w, form);
    expect(res.status).toBe(200);
    expectCodeShape(res.body, w.sim.clock.nowSeconds());
    const info = await w.http().get('/oauth/token/info').set('authorization', `Bearer ${res.body.access_token}`);
    expect(info.status).toBe(200);
  });

  it('a confidential application may add PKCE and then needs both secret and verifier', async () => {
    const w = await signedIn();
    const c = await code(w, 'confidential', { pkce: true });
    expect((await post(w, exchangeForm(w, 'confidential', c.code))).body.error).toBe('invalid_grant');
    const ok = await post(
      w,
      exchangeForm(
        w,
        'confidential',
        (await code(w, 'confidential', { pkce: true, verifier: c.verifier })).code,
        c.verifier,
      ),
    );
    expect(ok.status).toBe(200);
  });

  it('accepts HTTP Basic client authentication and a JSON body', async () => {
    const w = await signedIn();
    const a = app(w.sim, 'confidential');
    const c = await code(w, 'confidential');
    const viaBasic = await post(
      w,
      { grant_type: 'authorization_code', code: c.code, redirect_uri: a.redirectUris[0] },
      { authorization: basic(a.uid, a.secret) },
    );
    expect(viaBasic.status).toBe(200);
    const c2 = await code(w, 'confidential');
    const viaJson = await w
      .http()
      .post('/oauth/token')
      .send(exchangeForm(w, 'confidential', c2.code));
    expect(viaJson.status).toBe(200);
  });
});

describe('parameter table: refresh_token', () => {
  it('PKCE application: client_id, refresh_token, redirect_uri, code_verifier', async () => {
    const w = await signedIn();
    const c = await code(w, 'public');
    const first = (await post(w, exchangeForm(w, 'public', c.code, c.verifier))).body;
    const a = app(w.sim, 'public');
    const res = await post(w, {
      grant_type: 'refresh_token',
      client_id: a.uid,
      refresh_token: first.refresh_token,
      redirect_uri: a.redirectUris[0],
      code_verifier: c.verifier!,
    });
    expect(res.status).toBe(200);
    expectCodeShape(res.body, w.sim.clock.nowSeconds());
    expect(res.body.access_token).not.toBe(first.access_token);
    expect(res.body.refresh_token).not.toBe(first.refresh_token);
  });

  it('confidential application: client_id, client_secret, refresh_token, redirect_uri; old pair invalidated; works after expiry; scope kept', async () => {
    const w = await signedIn();
    const first = await tokens(w, 'confidential', { scope: 'api read_user' });
    w.sim.clock.advance(L.accessTokenLifetime + 1);
    const expired = await w.http().get('/oauth/token/info').query({ access_token: first.access_token });
    expect(expired.status).toBe(401);
    const a = app(w.sim, 'confidential');
    const form = {
      grant_type: 'refresh_token',
      client_id: a.uid,
      client_secret: a.secret,
      refresh_token: first.refresh_token,
      redirect_uri: a.redirectUris[0],
    };
    const res = await post(w, form);
    expect(res.status).toBe(200);
    expectCodeShape(res.body, w.sim.clock.nowSeconds());
    expect(w.sim.store.accessTokens.get(digest(res.body.access_token))!.scopes).toEqual(['api', 'read_user']);
    expectError(await post(w, form), 'invalid_grant');
    const fresh = await w.http().get('/oauth/token/info').query({ access_token: res.body.access_token });
    expect(fresh.status).toBe(200);
  });

  it('a valid access token stops working when its pair is refreshed', async () => {
    const w = await signedIn();
    const first = await tokens(w, 'confidential');
    const a = app(w.sim, 'confidential');
    await post(w, {
      grant_type: 'refresh_token',
      client_id: a.uid,
      client_secret: a.secret,
      refresh_token: first.refresh_token,
    });
    expect((await w.http().get('/oauth/token/info').query({ access_token: first.access_token })).status).toBe(401);
  });

  it("may narrow the access token's scope, never widen it; the new refresh token keeps the presented one's (RFC 6749 §6)", async () => {
    const w = await signedIn();
    const first = await tokens(w, 'confidential', { scope: 'api read_user' });
    const a = app(w.sim, 'confidential');
    const base = {
      grant_type: 'refresh_token',
      client_id: a.uid,
      client_secret: a.secret,
      refresh_token: first.refresh_token,
    };
    expectError(await post(w, { ...base, scope: 'api openid' }), 'invalid_scope');
    const narrow = await post(w, { ...base, scope: 'read_user' });
    expect(narrow.status).toBe(200);
    expect(w.sim.store.accessTokens.get(digest(narrow.body.access_token))!.scopes).toEqual(['read_user']);
    expect(w.sim.store.refreshTokens.get(digest(narrow.body.refresh_token))!.scopes).toEqual(['api', 'read_user']);
    // So a refresh with it, asking no scope, gets the whole grant again.
    const again = await post(w, { ...base, refresh_token: narrow.body.refresh_token });
    expect(w.sim.store.accessTokens.get(digest(again.body.access_token))!.scopes).toEqual(['api', 'read_user']);
  });
});

describe('parameter table: password', () => {
  const creds = (w: World) => {
    const { admin } = seeded(w.sim);
    return { grant_type: 'password', username: admin.username, password: admin.password };
  };

  it('username and password: scope api by default, only access_token, token_type, expires_in', async () => {
    const w = world();
    const res = await post(w, creds(w));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(res.body.token_type).toBe('bearer');
    expect(res.body.expires_in).toBe(L.accessTokenLifetime);
    expect(w.sim.store.accessTokens.get(digest(res.body.access_token))!.scopes).toEqual(['api']);
  });

  it('optional HTTP Basic client authentication (client_id as user, client_secret as password)', async () => {
    const w = world();
    const a = app(w.sim, 'confidential');
    const res = await post(w, { ...creds(w), scope: 'read_user' }, { authorization: basic(a.uid, a.secret) });
    expect(res.status).toBe(200);
    expect(w.sim.store.accessTokens.get(digest(res.body.access_token))).toMatchObject({
      applicationId: a.id,
      scopes: ['read_user'],
    });
    expectError(await post(w, creds(w), { authorization: basic(a.uid, 'wrong') }), 'invalid_client', 401);
    const limited = app(w.sim, 'limited');
    expectError(
      await post(w, { ...creds(w), scope: 'api' }, { authorization: basic(limited.uid, limited.secret) }),
      'invalid_scope',
    );
    const own = await post(w, creds(w), { authorization: basic(limited.uid, limited.secret) });
    expect(w.sim.store.accessTokens.get(digest(own.body.access_token))!.scopes).toEqual(['read_user']);
  });

  it('refuses wrong credentials, two-factor users, unknown scopes and public applications', async () => {
    const w = world();
    expectError(await post(w, { ...creds(w), password: 'wrong' }), 'invalid_grant');
    expectError(await post(w, { ...creds(w), username: 'nobody' }), 'invalid_grant');
    const { twoFactorUser } = seeded(w.sim);
    expectError(
      await post(w, { grant_type: 'password', username: twoFactorUser.username, password: twoFactorUser.password }),
      'invalid_grant',
    );
    expectError(await post(w, { ...creds(w), scope: 'sudo' }), 'invalid_scope');
    expectError(await post(w, { ...creds(w), client_id: app(w.sim, 'public').uid }), 'unauthorized_client', 400);
  });

  it('is refused while the Git password-authentication setting is off', async () => {
    const w = world({ settings: { gitPasswordAuth: false } });
    expectError(await post(w, creds(w)), 'invalid_grant');
  });

  it('needs client credentials when the admin setting says so, and on the hosted offering', async () => {
    for (const w of [
      world({ settings: { passwordGrantClientCredentialsOnly: true } }),
      world({ offering: 'hosted' }),
    ]) {
      expectError(await post(w, creds(w)), 'invalid_client', 401);
      const a = app(w.sim, 'confidential');
      expect((await post(w, creds(w), { authorization: basic(a.uid, a.secret) })).status).toBe(200);
    }
  });

  it('is gone from release 19.0 (unsupported_grant_type)', async () => {
    const w = world({ release: '19.0' });
    expectError(await post(w, creds(w)), 'unsupported_grant_type');
    expect((await post(world({ release: '18.11' }), creds(world()))).body.error).not.toBe('unsupported_grant_type');
  });
});

describe('token endpoint errors', () => {
  it('invalid_request: missing grant_type, missing parameters, a repeated parameter, an unreadable body', async () => {
    const w = world();
    expectError(await post(w, {}), 'invalid_request');
    expectError(
      await post(w, { grant_type: 'authorization_code', client_id: app(w.sim, 'public').uid }),
      'invalid_request',
    );
    expectError(await post(w, { grant_type: 'refresh_token' }), 'invalid_request');
    expectError(await post(w, { grant_type: 'password', username: 'root' }), 'invalid_request');
    expectError(
      await w.http().post('/oauth/token').type('form').send('grant_type=password&grant_type=password'),
      'invalid_request',
    );
    expectError(
      await w.http().post('/oauth/token').set('content-type', 'application/json').send('{nope'),
      'invalid_request',
    );
    expectError(await w.http().post('/oauth/token').set('content-type', 'text/plain').send('x'), 'invalid_request');
    const a = app(w.sim, 'confidential');
    expectError(
      await post(
        w,
        { grant_type: 'password', username: 'root', password: 'x', client_secret: a.secret },
        { authorization: basic(a.uid, a.secret) },
      ),
      'invalid_request',
    );
  });

  it('unsupported_grant_type for an unknown grant', async () => {
    const w = world();
    expectError(await post(w, { grant_type: 'client_credentials' }), 'unsupported_grant_type');
    expectError(await post(w, { grant_type: 'implicit' }), 'unsupported_grant_type');
  });

  it('invalid_client: 401 with WWW-Authenticate for an unknown client, a wrong or missing secret', async () => {
    const w = await signedIn();
    const c = await code(w, 'confidential');
    const form = exchangeForm(w, 'confidential', c.code);
    expectError(await post(w, { ...form, client_id: 'unknown' }), 'invalid_client', 401);
    expectError(await post(w, { ...form, client_secret: 'wrong' }), 'invalid_client', 401);
    const { client_secret: _, ...noSecret } = form;
    expectError(await post(w, noSecret), 'invalid_client', 401);
    const viaBasic = await post(
      w,
      { grant_type: 'authorization_code', code: c.code, redirect_uri: form.redirect_uri },
      { authorization: basic(form.client_id, 'wrong') },
    );
    expectError(viaBasic, 'invalid_client', 401);
    expect(viaBasic.headers['www-authenticate']).toMatch(/^Basic /);
    expectError(await post(w, { ...form, code: 'unknown' }, {}), 'invalid_grant');
    expect((await post(w, form)).status).toBe(200);
  });

  it("invalid_grant: unknown code, another client's code, a redirect_uri or PKCE mismatch", async () => {
    const w = await signedIn();
    const c = await code(w, 'public');
    const form = exchangeForm(w, 'public', c.code, c.verifier);
    expectError(await post(w, { ...form, code: 'nope' }), 'invalid_grant');
    expectError(await post(w, { ...form, redirect_uri: `${form.redirect_uri}/other` }), 'invalid_grant');
    const { redirect_uri: _r, ...noRedirect } = form;
    expectError(await post(w, noRedirect), 'invalid_grant');
    expectError(await post(w, { ...form, code_verifier: 'A'.repeat(L.verifierMinLength) }), 'invalid_grant');
    expectError(await post(w, { ...form, code_verifier: 'A'.repeat(L.verifierMinLength - 1) }), 'invalid_grant');
    expectError(await post(w, { ...form, code_verifier: 'A'.repeat(L.verifierMaxLength + 1) }), 'invalid_grant');
    expectError(await post(w, { ...form, code_verifier: `${c.verifier!.slice(1)}!` }), 'invalid_grant');
    const { code_verifier: _v, ...noVerifier } = form;
    expectError(await post(w, noVerifier), 'invalid_grant');
    const conf = app(w.sim, 'confidential');
    expectError(await post(w, { ...form, client_id: conf.uid, client_secret: conf.secret }), 'invalid_grant');
    expect((await post(w, form)).status).toBe(200);
  });

  it('accepts verifiers of exactly the minimum and maximum length from the allowed alphabet', async () => {
    const w = await signedIn();
    for (const verifier of [
      'A-._~'.repeat(L.verifierMinLength).slice(0, L.verifierMinLength),
      'z9'.repeat(L.verifierMaxLength).slice(0, L.verifierMaxLength),
    ]) {
      const c = await code(w, 'public', { verifier });
      expect((await post(w, exchangeForm(w, 'public', c.code, verifier))).status).toBe(200);
    }
  });

  it('a reused code is refused and the tokens issued from it (and refreshed from them) are revoked', async () => {
    const w = await signedIn();
    const c = await code(w, 'confidential');
    const form = exchangeForm(w, 'confidential', c.code);
    const first = (await post(w, form)).body;
    const a = app(w.sim, 'confidential');
    const refreshed = (
      await post(w, {
        grant_type: 'refresh_token',
        client_id: a.uid,
        client_secret: a.secret,
        refresh_token: first.refresh_token,
      })
    ).body;
    expectError(await post(w, form), 'invalid_grant');
    expect((await w.http().get('/oauth/token/info').query({ access_token: refreshed.access_token })).status).toBe(401);
    expectError(
      await post(w, {
        grant_type: 'refresh_token',
        client_id: a.uid,
        client_secret: a.secret,
        refresh_token: refreshed.refresh_token,
      }),
      'invalid_grant',
    );
  });

  it('a code expires after its lifetime', async () => {
    const w = await signedIn();
    const c = await code(w, 'confidential');
    w.sim.clock.advance(L.authorizationCodeLifetime);
    expectError(await post(w, exchangeForm(w, 'confidential', c.code)), 'invalid_grant');
  });
});

describe('robustness', () => {
  it('never answers 5xx and always an OAuth error body or a token, whatever the form (property, fixed seed)', async () => {
    const fc = await import('fast-check');
    const w = await signedIn();
    const a = app(w.sim, 'confidential');
    const keys = [
      'grant_type',
      'client_id',
      'client_secret',
      'code',
      'redirect_uri',
      'code_verifier',
      'refresh_token',
      'username',
      'password',
      'scope',
      'device_code',
    ];
    const values = fc.oneof(
      fc.string(),
      fc.constantFrom(
        'authorization_code',
        'refresh_token',
        'password',
        'urn:ietf:params:oauth:grant-type:device_code',
        a.uid,
        a.secret,
        'root',
        '%',
        '\u0000',
        'ü',
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...keys), values), fc.boolean(), async (form, asJson) => {
        const req = w.http().post('/oauth/token');
        const res = asJson ? await req.send(form) : await req.type('form').send(form);
        expect(res.status).toBeLessThan(500);
        expect(res.headers['content-type']).toBe('application/json');
        if (res.status !== 200) expect(typeof res.body.error).toBe('string');
      }),
      { seed: 20261121, numRuns: 150 },
    );
  });
});
