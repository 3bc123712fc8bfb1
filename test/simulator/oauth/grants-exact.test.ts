/**
 * The token, revocation and token-information endpoints pinned to exact answers, one input
 * changed at a time: the error code, status and description each problem gets (RFC 6749 §5.2,
 * RFC 7009, RFC 6750 §3.1), the whole token-info body, and what a revocation does to the token it
 * names and to the one issued with it (spec/machines/revocation.yaml, token-refresh.yaml).
 */
import { describe, expect, it } from 'vitest';
import { digest } from '../../../simulator/digest.js';
import { seeded } from '../../../simulator/oauth/accounts.js';
import { presentedClient, tryAuthenticateClient } from '../../../simulator/oauth/client-auth.js';
import { sameSecret } from '../../../simulator/oauth/compare.js';
import { OAuthError } from '../../../simulator/oauth/errors.js';
import { formatScope, grantScopes, parseScope, unknownScopes } from '../../../simulator/oauth/scopes.js';
import type { Sim, SimRequest } from '../../../simulator/types.js';
import { L, app, code, exchangeForm, signInRoot, tokens, world, type World } from './helpers.js';

type Res = { status: number; body: any; headers: Record<string, string> };

function expectError(res: Res, error: string, description: string, status = 400) {
  expect(res.body, JSON.stringify(res.body)).toEqual({ error, error_description: description });
  expect(res.status).toBe(status);
  expect(res.headers['cache-control']).toBe('no-store');
}

const token = (w: World, form: Record<string, string>) => w.http().post('/oauth/token').type('form').send(form);
const tokenJson = (w: World, body: string) =>
  w.http().post('/oauth/token').set('content-type', 'application/json').send(body);
const info = (w: World, access: string) => w.http().get('/oauth/token/info').query({ access_token: access });

function clientOf(w: World, role: 'confidential' | 'limited') {
  const a = app(w.sim, role);
  return { client_id: a.uid, client_secret: a.secret };
}

function revoke(w: World, value: string, client: Record<string, string> = clientOf(w, 'confidential')) {
  return w
    .http()
    .post('/oauth/revoke')
    .type('form')
    .send({ ...client, token: value });
}

function refresh(w: World, refreshToken: string, client: Record<string, string> = clientOf(w, 'confidential')) {
  return token(w, { grant_type: 'refresh_token', ...client, refresh_token: refreshToken });
}

function passwordToken(w: World, headers: Record<string, string> = {}) {
  const { admin } = seeded(w.sim);
  return w
    .http()
    .post('/oauth/token')
    .set(headers)
    .type('form')
    .send({ grant_type: 'password', username: admin.username, password: admin.password });
}

async function signedIn(options = {}) {
  const w = world(options);
  await signInRoot(w);
  return w;
}

describe('request parameters', () => {
  it('a parameter sent twice is invalid_request naming it', async () => {
    const w = world();
    const res = await w
      .http()
      .post('/oauth/token')
      .type('form')
      .send('grant_type=password&username=a&username=b&password=p');
    expectError(res, 'invalid_request', 'The parameter username was sent more than once');
  });

  it('no body at all, and an empty value, are a missing grant_type', async () => {
    const w = world();
    expectError(await w.http().post('/oauth/token'), 'invalid_request', 'The parameter grant_type is missing');
    expectError(await token(w, { grant_type: '' }), 'invalid_request', 'The parameter grant_type is missing');
  });

  it('a body that cannot be read says why', async () => {
    const w = world();
    expectError(
      await w.http().post('/oauth/token').set('content-type', 'text/plain').send('grant_type=password'),
      'invalid_request',
      'The request body could not be read: unsupported content type text/plain',
    );
    expectError(
      await tokenJson(w, '{"grant_type":'),
      'invalid_request',
      'The request body could not be read: body is not valid JSON',
    );
  });

  it('a JSON body must be an object: an array, null, a string or a number is refused', async () => {
    const w = world();
    for (const body of ['[]', '["grant_type"]', 'null', '"password"', '5', 'true']) {
      expectError(await tokenJson(w, body), 'invalid_request', 'A JSON body must be an object of parameters');
    }
  });

  it('JSON values: numbers and booleans are read as text, null as absent, objects and arrays refused', async () => {
    const w = world();
    const grant = (value: string) => tokenJson(w, `{"grant_type":${value}}`);
    expectError(await grant('7'), 'unsupported_grant_type', 'The grant type 7 is not supported');
    expectError(await grant('false'), 'unsupported_grant_type', 'The grant type false is not supported');
    expectError(await grant('null'), 'invalid_request', 'The parameter grant_type is missing');
    expectError(await grant('{}'), 'invalid_request', 'The parameter grant_type must be a string');
    expectError(await grant('["password"]'), 'invalid_request', 'The parameter grant_type must be a string');
    const { admin } = seeded(w.sim);
    const ok = await tokenJson(
      w,
      JSON.stringify({ grant_type: 'password', username: admin.username, password: admin.password, scope: null }),
    );
    expect(ok.status).toBe(200);
  });

  it('an unknown grant type is named in its error', async () => {
    const w = world();
    expectError(
      await token(w, { grant_type: 'client_credentials' }),
      'unsupported_grant_type',
      'The grant type client_credentials is not supported',
    );
  });
});

describe('client credentials as presented (RFC 6749 §2.3.1, RFC 7617)', () => {
  const request = (authorization?: string) =>
    ({ headers: new Headers(authorization === undefined ? {} : { authorization }) }) as unknown as SimRequest;
  const params = (values: Record<string, string> = {}) => new Map(Object.entries(values));
  const basic = (userPass: string, scheme = 'Basic ') => `${scheme}${Buffer.from(userPass).toString('base64')}`;
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(OAuthError);
      const e = error as OAuthError;
      return { error: e.error, description: e.description, status: e.status };
    }
    throw new Error('no error thrown');
  };

  it('form-decodes the Basic user and password: "+" is a space, %XX an octet', () => {
    expect(presentedClient(request(basic('my+app%3A1:s%2Bcr+et%25')), params())).toEqual({
      clientId: 'my app:1',
      secret: 's+cr et%',
    });
  });

  it('reads the scheme in any case, after any whitespace, and an empty password as none', () => {
    expect(presentedClient(request(basic('app:', 'basic  ')), params())).toEqual({ clientId: 'app', secret: null });
  });

  it('an empty user-id is well-formed: it names a client no one has', () => {
    expect(presentedClient(request(basic(':secret')), params())).toEqual({ clientId: '', secret: 'secret' });
  });

  it('refuses Basic credentials without a colon or with a broken escape as malformed (invalid_client)', () => {
    const malformed = { error: 'invalid_client', description: 'The HTTP Basic credentials are malformed', status: 401 };
    expect(refusal(() => presentedClient(request(basic('app-and-secret')), params()))).toEqual(malformed);
    expect(refusal(() => presentedClient(request(basic('app%ZZ:secret')), params()))).toEqual(malformed);
  });

  it('another scheme is not Basic: the body speaks', () => {
    expect(presentedClient(request('Bearer YXBwOnNlY3JldA=='), params({ client_id: 'a', client_secret: 's' }))).toEqual(
      { clientId: 'a', secret: 's' },
    );
    expect(presentedClient(request(`x${basic('app:secret')}`), params())).toBeNull();
  });

  it('one method only: Basic with a body secret, or a different body client_id, is invalid_request', () => {
    const header = request(basic('app:secret'));
    expect(refusal(() => presentedClient(header, params({ client_secret: 'secret' })))).toEqual({
      error: 'invalid_request',
      description: 'Use one client authentication method: HTTP Basic or client_secret in the body, not both',
      status: 400,
    });
    expect(refusal(() => presentedClient(header, params({ client_id: 'other' })))).toEqual({
      error: 'invalid_request',
      description: 'client_id in the body differs from the HTTP Basic user',
      status: 400,
    });
    expect(presentedClient(header, params({ client_id: 'app' }))).toEqual({ clientId: 'app', secret: 'secret' });
  });

  it('in the body: client_id alone, both, a secret without client_id, or nothing (empty values are absent)', () => {
    expect(presentedClient(request(), params({ client_id: 'app' }))).toEqual({ clientId: 'app', secret: null });
    expect(presentedClient(request(), params({ client_id: 'app', client_secret: '' }))).toEqual({
      clientId: 'app',
      secret: null,
    });
    expect(refusal(() => presentedClient(request(), params({ client_secret: 'secret' })))).toEqual({
      error: 'invalid_request',
      description: 'client_secret was sent without client_id',
      status: 400,
    });
    expect(presentedClient(request(), params({ client_id: '', client_secret: '' }))).toBeNull();
  });

  it('only OAuth errors are carried to the table: anything else is a bug and propagates', () => {
    const broken = {
      store: {
        applications: {
          get() {
            throw new TypeError('store broken');
          },
        },
      },
    } as unknown as Sim;
    expect(() => tryAuthenticateClient({ sim: broken, request: request() }, params({ client_id: 'x' }))).toThrow(
      TypeError,
    );
  });
});

describe('client authentication failures (invalid_client, 401)', () => {
  const exchange = (w: World, client: Record<string, string>) =>
    token(w, { grant_type: 'authorization_code', code: 'unknown', redirect_uri: 'https://x.test/cb', ...client });

  it('names what failed: no client, an unknown one, a wrong secret, a confidential one without its secret', async () => {
    const w = world();
    const conf = app(w.sim, 'confidential');
    const cases: Array<[Record<string, string>, string]> = [
      [{}, 'Client authentication failed: client_id is missing'],
      [{ client_id: 'nobody' }, 'Client authentication failed: unknown client'],
      [{ client_id: conf.uid, client_secret: 'wrong' }, 'Client authentication failed: wrong client secret'],
      [
        { client_id: conf.uid },
        'Client authentication failed: this application is confidential and must send its client secret',
      ],
    ];
    for (const [client, description] of cases) {
      const res = await exchange(w, client);
      expectError(res, 'invalid_client', description, 401);
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm="oauth", error="invalid_client"/);
    }
  });

  it('the device flow takes client_id alone even from a confidential application, but checks a secret sent', async () => {
    const w = world();
    const conf = app(w.sim, 'confidential');
    const start = (form: Record<string, string>) => w.http().post('/oauth/authorize_device').type('form').send(form);
    expect((await start({ client_id: conf.uid })).status).toBe(200);
    expect((await start({ client_id: conf.uid, client_secret: conf.secret })).status).toBe(200);
    expectError(
      await start({ client_id: conf.uid, client_secret: 'wrong' }),
      'invalid_client',
      'Client authentication failed: wrong client secret',
      401,
    );
  });
});

describe('scopes', () => {
  it('are space-separated: runs of whitespace split once, repeats count once, order is kept', () => {
    expect(parseScope('  read_user\tapi  read_user \n openid ')).toEqual(['read_user', 'api', 'openid']);
    expect(parseScope('')).toEqual([]);
    expect(parseScope(undefined)).toEqual([]);
    expect(formatScope(['api', 'read_user'])).toBe('api read_user');
    expect(unknownScopes(['api', 'sudo', 'openid', 'admin'])).toEqual(['sudo', 'admin']);
  });

  it('a request gets exactly what it asked when the application may ask it', () => {
    expect(grantScopes('read_user openid', ['api', 'read_user', 'openid'])).toEqual(['read_user', 'openid']);
  });

  it('no request: the default api when allowed, else every registered scope', () => {
    expect(grantScopes(undefined, ['read_user', 'api'])).toEqual(['api']);
    const allowed = ['read_user', 'openid'];
    const granted = grantScopes('', allowed);
    expect(granted).toEqual(['read_user', 'openid']);
    expect(granted).not.toBe(allowed);
  });

  it('invalid_scope names every unknown scope, or every scope outside the registration', () => {
    const refused = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return { error: (error as OAuthError).error, description: (error as OAuthError).description };
      }
      return null;
    };
    expect(refused(() => grantScopes('api sudo admin', ['api']))).toEqual({
      error: 'invalid_scope',
      description: 'Unknown scope: sudo admin',
    });
    expect(refused(() => grantScopes('api openid read_user', ['read_user']))).toEqual({
      error: 'invalid_scope',
      description: 'The application may not request the scope api openid',
    });
    // Not enforced (the scope-not-enforced fault): what was asked, unknown scopes still refused.
    expect(grantScopes('api openid', ['read_user'], false)).toEqual(['api', 'openid']);
    expect(refused(() => grantScopes('sudo', ['read_user'], false))?.description).toBe('Unknown scope: sudo');
  });
});

describe('secrets compare', () => {
  it('equal only when equal, and a different length is simply unequal', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abc', 'abd')).toBe(false);
    expect(sameSecret('abc', 'abcd')).toBe(false);
    expect(sameSecret('', 'a')).toBe(false);
  });
});

describe('tokens as issued', () => {
  it('the password grant issues no refresh token, with or without a client', async () => {
    const w = world();
    const conf = app(w.sim, 'confidential');
    const basic = `Basic ${Buffer.from(`${conf.uid}:${conf.secret}`).toString('base64')}`;
    for (const headers of [{}, { authorization: basic }] as Array<Record<string, string>>) {
      const res = await passwordToken(w, headers);
      expect(res.status).toBe(200);
      expect(w.sim.store.accessTokens.get(digest(res.body.access_token))!.refreshToken).toBeNull();
    }
    expect(w.sim.store.refreshTokens.size).toBe(0);
  });

  it('a reused code revokes the tokens issued from it, and only those', async () => {
    const w = await signedIn();
    const first = await code(w, 'confidential');
    const form = exchangeForm(w, 'confidential', first.code);
    const fromFirst = (await token(w, form)).body;
    const other = await tokens(w, 'confidential');
    expect((await token(w, form)).body.error).toBe('invalid_grant');
    expect((await info(w, fromFirst.access_token)).status).toBe(401);
    expect((await info(w, other.access_token)).status).toBe(200);
    expect((await refresh(w, other.refresh_token)).status).toBe(200);
  });

  it('a refresh token kept active by a refused refresh is still revoked with its access token', async () => {
    const w = await signedIn();
    const t = await tokens(w, 'confidential');
    // Another client's refresh attempt: the token-refresh table keeps it active (and saves that).
    expect((await refresh(w, t.refresh_token, clientOf(w, 'limited'))).body.error).toBe('invalid_grant');
    expect((await revoke(w, t.access_token)).status).toBe(200);
    expect((await refresh(w, t.refresh_token)).body.error).toBe('invalid_grant');
  });
});

describe('POST /oauth/revoke', () => {
  it('an access token: 200 {} never cached; it and its refresh token stop working', async () => {
    const w = await signedIn();
    const t = await tokens(w, 'confidential');
    const res = await revoke(w, t.access_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(res.headers['cache-control']).toBe('no-store');
    expectError(await info(w, t.access_token), 'invalid_token', 'The access token was revoked', 401);
    expect((await refresh(w, t.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('a refresh token: it and its access token stop working', async () => {
    const w = await signedIn();
    const t = await tokens(w, 'confidential');
    const res = await revoke(w, t.refresh_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expectError(await info(w, t.access_token), 'invalid_token', 'The access token was revoked', 401);
    expect((await refresh(w, t.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('token_type_hint changes nothing: the value names the token (RFC 7009 §2.1)', async () => {
    const w = await signedIn();
    const a = await tokens(w, 'confidential');
    const b = await tokens(w, 'confidential');
    const conf = clientOf(w, 'confidential');
    await revoke(w, a.access_token, { ...conf, token_type_hint: 'refresh_token' });
    await revoke(w, b.refresh_token, { ...conf, token_type_hint: 'access_token' });
    expect((await info(w, a.access_token)).status).toBe(401);
    expect((await refresh(w, b.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('an unknown token: 200 {} for an authenticated client, invalid_client for a failed one', async () => {
    const w = world();
    const res = await revoke(w, 'never-issued');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expectError(
      await revoke(w, 'never-issued', { ...clientOf(w, 'confidential'), client_secret: 'wrong' }),
      'invalid_client',
      'Client authentication failed: wrong client secret',
      401,
    );
  });

  it('a live token and a failed client: invalid_client, and the token keeps working', async () => {
    const w = await signedIn();
    const t = await tokens(w, 'confidential');
    const { client_id } = clientOf(w, 'confidential');
    expectError(
      await revoke(w, t.access_token, { client_id }),
      'invalid_client',
      'Client authentication failed: this application is confidential and must send its client secret',
      401,
    );
    expect((await info(w, t.access_token)).status).toBe(200);
    expect((await revoke(w, t.refresh_token, { client_id, client_secret: 'wrong' })).status).toBe(401);
    expect((await refresh(w, t.refresh_token)).status).toBe(200);
  });

  it('an already revoked token answers 200 {} whatever the client (the revoked row has no client check)', async () => {
    const w = await signedIn();
    const t = await tokens(w, 'confidential');
    await revoke(w, t.access_token);
    const again = await revoke(w, t.access_token, { ...clientOf(w, 'confidential'), client_secret: 'wrong' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({});
  });

  it('a rotated refresh token is no longer live: 200 {} whatever the client', async () => {
    const w = await signedIn();
    const t = await tokens(w, 'confidential');
    expect((await refresh(w, t.refresh_token)).status).toBe(200);
    const again = await revoke(w, t.refresh_token, { ...clientOf(w, 'confidential'), client_secret: 'wrong' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({});
  });

  it("another client's tokens: 200 {}, and both keep working (REV-CLIENT-BOUND)", async () => {
    const w = await signedIn();
    const t = await tokens(w, 'confidential');
    const limited = clientOf(w, 'limited');
    for (const value of [t.access_token, t.refresh_token]) {
      const res = await revoke(w, value, limited);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
    }
    expect((await info(w, t.access_token)).status).toBe(200);
    expect((await refresh(w, t.refresh_token)).status).toBe(200);
  });

  it('a token issued without a client (password grant) may be revoked by any authenticated client', async () => {
    const w = world();
    const { access_token } = (await passwordToken(w)).body;
    expect((await revoke(w, access_token, clientOf(w, 'limited'))).status).toBe(200);
    expectError(await info(w, access_token), 'invalid_token', 'The access token was revoked', 401);
  });

  it('an expired access token is not live: revoking it leaves its refresh token working', async () => {
    const w = await signedIn();
    const t = await tokens(w, 'confidential');
    w.sim.clock.advance(L.accessTokenLifetime);
    expect((await revoke(w, t.access_token)).status).toBe(200);
    expect((await refresh(w, t.refresh_token)).status).toBe(200);
  });

  it('a personal access token is not an OAuth token: 200 {}, and it keeps working', async () => {
    const w = world();
    const pat = seeded(w.sim).personalAccessToken;
    const res = await revoke(w, pat);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await w.http().get('/api/v4/user').set('private-token', pat)).status).toBe(200);
  });

  it('revoke-ignored: 200 {} while the access token and its refresh token both keep working', async () => {
    const w = await signedIn({ faults: ['revoke-ignored'] });
    const t = await tokens(w, 'confidential');
    const res = await revoke(w, t.access_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await info(w, t.access_token)).status).toBe(200);
    const u = await tokens(w, 'confidential');
    await revoke(w, u.refresh_token);
    expect((await info(w, u.access_token)).status).toBe(200);
    expect((await refresh(w, u.refresh_token)).status).toBe(200);
  });
});

describe('GET /oauth/token/info', () => {
  it('the whole body: owner, scope, seconds left, application uid, created_at, and the two aliases', async () => {
    const w = await signedIn();
    const t = await tokens(w, 'confidential', { scope: 'api read_user' });
    w.sim.clock.advance(100);
    const res = await w.http().get('/oauth/token/info').set('authorization', `Bearer ${t.access_token}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      resource_owner_id: seeded(w.sim).admin.id,
      scope: ['api', 'read_user'],
      expires_in: L.accessTokenLifetime - 100,
      application: { uid: app(w.sim, 'confidential').uid },
      created_at: t.created_at,
      scopes: ['api', 'read_user'],
      expires_in_seconds: L.accessTokenLifetime - 100,
    });
  });

  it('a token issued without a client has the application uid "" (a string, never null)', async () => {
    const w = world();
    const { access_token } = (await passwordToken(w)).body;
    expect((await info(w, access_token)).body.application).toEqual({ uid: '' });
  });

  it('refuses with 401 invalid_token: no token, a personal access token, an OAuth token in PRIVATE-TOKEN', async () => {
    const w = await signedIn();
    const t = await tokens(w, 'confidential');
    const pat = seeded(w.sim).personalAccessToken;
    const get = (headers: Record<string, string>) => w.http().get('/oauth/token/info').set(headers);
    const none = await get({});
    expectError(none, 'invalid_token', 'No access token was presented', 401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer realm="oauth", error="invalid_token"/);
    expectError(await get({ authorization: `Bearer ${pat}` }), 'invalid_token', 'The access token is invalid', 401);
    expectError(await get({ 'private-token': pat }), 'invalid_token', 'No access token was presented', 401);
    expectError(await get({ 'private-token': t.access_token }), 'invalid_token', 'No access token was presented', 401);
  });

  it('token-info-expiry-never-null: 0 instead of null for a token without expiry, and nothing else changes', async () => {
    const w = await signedIn({ faults: ['token-info-expiry-never-null'] });
    const forever = (
      await w
        .http()
        .post('/-/simulator/tokens')
        .send({ scopes: ['api'], expiresIn: null })
    ).body;
    expect((await info(w, forever.access_token)).body).toMatchObject({ expires_in: 0, expires_in_seconds: 0 });
    const t = await tokens(w, 'confidential');
    expect((await info(w, t.access_token)).body).toMatchObject({
      expires_in: L.accessTokenLifetime,
      expires_in_seconds: L.accessTokenLifetime,
    });
  });

  it('token-info-expires-in-frozen: the full lifetime however much time has passed', async () => {
    const w = await signedIn({ faults: ['token-info-expires-in-frozen'] });
    const t = await tokens(w, 'confidential');
    w.sim.clock.advance(60);
    expect((await info(w, t.access_token)).body).toMatchObject({
      expires_in: L.accessTokenLifetime,
      expires_in_seconds: L.accessTokenLifetime,
    });
  });

  it('token-info-no-aliases: the same body without scopes and expires_in_seconds', async () => {
    const w = await signedIn({ faults: ['token-info-no-aliases'] });
    const t = await tokens(w, 'confidential');
    expect(Object.keys((await info(w, t.access_token)).body).sort()).toEqual([
      'application',
      'created_at',
      'expires_in',
      'resource_owner_id',
      'scope',
    ]);
  });
});
