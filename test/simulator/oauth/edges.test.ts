/**
 * The edges of the OAuth side with their exact outputs: CORS preflight and cross-origin headers
 * (one request header changed at a time), the OAuth error answers and their challenges, the
 * brute-force throttle at its boundaries, and the operations and gates the side registers.
 */
import { describe, expect, it } from 'vitest';
import { limits, operations } from '../../../spec/index.js';
import { createSimulator } from '../../../simulator/core.js';
import {
  AccessDenied,
  AuthorizationPending,
  ExpiredToken,
  InsufficientScope,
  InvalidClient,
  InvalidGrant,
  InvalidRequest,
  InvalidScope,
  InvalidToken,
  noStore,
  OAuthError,
  SlowDown,
  UnauthorizedClient,
  UnsupportedGrantType,
} from '../../../simulator/oauth/errors.js';
import { oauthGateOverrides, oauthHandlers, oauthMiddlewares } from '../../../simulator/oauth/index.js';
import { cors } from '../../../simulator/oauth/cors.js';
import {
  MAX_UNKNOWN_LOGIN_KEYS,
  accountKey,
  accountLocked,
  recordFailure,
  retryAfter,
  userCodeKey,
} from '../../../simulator/oauth/throttle.js';
import type { User } from '../../../simulator/store.js';
import type { Sim } from '../../../simulator/types.js';

const BASE = 'http://127.0.0.1';

/** Simulators are made inside tests: a mutant breaking their start must fail a test, not the file's loading. */
function lazy<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
const SPA = 'https://spa.test';

async function send(sim: Sim, method: string, path: string, headers: Record<string, string>) {
  const res = await sim.handle(new Request(`${BASE}${path}`, { method, headers }));
  return { status: res.status, headers: Object.fromEntries(res.headers.entries()), text: await res.text() };
}

const preflightHeaders = (asked = 'authorization, content-type') => ({
  origin: SPA,
  'access-control-request-method': 'POST',
  'access-control-request-headers': asked,
});

describe('CORS preflight (CORS-PREFLIGHT, CORS-ALLOWED-HEADERS-LIST, CORS-X-REQUESTED-WITH-REFUSED)', () => {
  const sim = lazy(() => createSimulator());

  it('answers 204 with the origin, the methods of the path plus OPTIONS, and exactly the listed headers', async () => {
    const methods: Record<string, string> = {
      '/oauth/token': 'POST, OPTIONS',
      '/oauth/revoke': 'POST, OPTIONS',
      '/oauth/userinfo': 'GET, POST, OPTIONS',
    };
    for (const [path, allowed] of Object.entries(methods)) {
      const res = await send(sim(), 'OPTIONS', path, preflightHeaders('x-requested-with, authorization, x-custom'));
      expect(res, path).toEqual({
        status: 204,
        headers: {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': allowed,
          'access-control-allow-headers': 'authorization, content-type, accept',
        },
        text: '',
      });
    }
    expect(
      operations()
        .filter((o) => o.path === '/oauth/userinfo')
        .map((o) => o.method.toUpperCase()),
    ).toEqual(['GET', 'POST']);
  });

  it('is no preflight without an Origin, without Access-Control-Request-Method, on another path or before 15.1', async () => {
    const notPreflight = async (on: Sim, path: string, headers: Record<string, string>) => {
      const res = await send(on, 'OPTIONS', path, headers);
      expect(res.status, path).toBe(405);
      expect(res.headers['access-control-allow-origin'], path).toBeUndefined();
      expect(res.headers['access-control-allow-headers'], path).toBeUndefined();
    };
    const { origin: _origin, ...noOrigin } = preflightHeaders();
    const { 'access-control-request-method': _method, ...noMethod } = preflightHeaders();
    await notPreflight(sim(), '/oauth/token', noOrigin);
    await notPreflight(sim(), '/oauth/token', noMethod);
    await notPreflight(sim(), '/oauth/token/info', preflightHeaders());
    // Only OPTIONS is a preflight: a POST carrying the same headers is answered as a POST.
    const post = await send(sim(), 'POST', '/oauth/token', preflightHeaders());
    expect(post.status).toBe(400);
    expect(JSON.parse(post.text)).toMatchObject({ error: 'invalid_request' });
    expect(post.headers['access-control-allow-origin']).toBe('*');
    expect(post.headers['access-control-allow-methods']).toBeUndefined();
    await notPreflight(createSimulator({ release: '15.0' }), '/oauth/token', preflightHeaders());
    expect(
      (await send(createSimulator({ release: '15.1' }), 'OPTIONS', '/oauth/token', preflightHeaders())).status,
    ).toBe(204);
  });

  it('cors-allows-x-requested-with grants every asked header, trimmed, lower-cased and once each', async () => {
    const faulty = createSimulator({ faults: ['cors-allows-x-requested-with'] });
    const res = await send(faulty, 'OPTIONS', '/oauth/token', preflightHeaders(' X-Requested-With ,, Accept,x-b'));
    expect(res.headers['access-control-allow-headers']).toBe(
      'authorization, content-type, accept, x-requested-with, x-b',
    );
    const none = await send(faulty, 'OPTIONS', '/oauth/token', {
      origin: SPA,
      'access-control-request-method': 'POST',
    });
    expect(none.headers['access-control-allow-headers']).toBe('authorization, content-type, accept');
  });

  it('cors-no-preflight: the preflight gets the plain 405, no CORS header', async () => {
    const res = await send(
      createSimulator({ faults: ['cors-no-preflight'] }),
      'OPTIONS',
      '/oauth/token',
      preflightHeaders(),
    );
    expect(res.status).toBe(405);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('cross-origin answers (CORS-OAUTH-ENDPOINTS)', () => {
  it('every cross-origin OAuth endpoint answers with Access-Control-Allow-Origin: *', async () => {
    const old = createSimulator({ release: '16.11' });
    const get = [
      '/oauth/token/info',
      '/oauth/userinfo',
      '/oauth/discovery/keys',
      '/-/jwks',
      '/.well-known/openid-configuration',
    ];
    for (const path of get) {
      expect((await send(old, 'GET', path, { origin: SPA })).headers['access-control-allow-origin'], path).toBe('*');
    }
    for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/authorize_device']) {
      expect((await send(old, 'POST', path, { origin: SPA })).headers['access-control-allow-origin'], path).toBe('*');
    }
  });

  it('not without an Origin, not on pages or /oauth/authorize, not on an OPTIONS that is no granted preflight', async () => {
    const sim = createSimulator();
    expect(
      (await send(sim, 'GET', '/oauth/discovery/keys', {})).headers['access-control-allow-origin'],
    ).toBeUndefined();
    for (const path of ['/oauth/authorize', '/users/sign_in', '/oauth/device']) {
      expect(
        (await send(sim, 'GET', path, { origin: SPA })).headers['access-control-allow-origin'],
        path,
      ).toBeUndefined();
    }
    const options = await send(sim, 'OPTIONS', '/oauth/token', { origin: SPA });
    expect(options.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('is the one OAuth middleware', () => {
    expect(oauthMiddlewares).toEqual([cors]);
  });
});

describe('OAuth errors (RFC 6749 §5.2, RFC 8628 §3.5, RFC 6750 §3.1)', () => {
  const sim = lazy(() => createSimulator());

  function answer(error: OAuthError, on: Sim = sim()) {
    const reply = error.toResponse(on);
    return {
      status: reply.status,
      headers: Object.fromEntries(reply.toResponse(false).headers),
      body: JSON.parse(String(reply.body)) as unknown,
    };
  }

  it('each named error has its code and status', () => {
    const table = [
      [InvalidRequest, 'invalid_request', 400],
      [InvalidClient, 'invalid_client', 401],
      [InvalidGrant, 'invalid_grant', 400],
      [UnauthorizedClient, 'unauthorized_client', 400],
      [UnsupportedGrantType, 'unsupported_grant_type', 400],
      [InvalidScope, 'invalid_scope', 400],
      [AuthorizationPending, 'authorization_pending', 400],
      [SlowDown, 'slow_down', 400],
      [ExpiredToken, 'expired_token', 400],
      [AccessDenied, 'access_denied', 400],
      [InvalidToken, 'invalid_token', 401],
      [InsufficientScope, 'insufficient_scope', 403],
    ] as const;
    for (const [make, code, status] of table) {
      const error = make('why');
      expect({
        error: error.error,
        description: error.description,
        status: error.status,
        message: error.message,
      }).toEqual({
        error: code,
        description: 'why',
        status,
        message: 'why',
      });
      expect(error.body()).toEqual({ error: code, error_description: 'why' });
    }
  });

  it('a 400 is never cached and carries no challenge', () => {
    expect(answer(InvalidGrant('The code is invalid'))).toEqual({
      status: 400,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache' },
      body: { error: 'invalid_grant', error_description: 'The code is invalid' },
    });
  });

  it('a 401 invalid_client challenges Basic, a 401 or 403 resource error Bearer; quotes and backslashes leave the description', () => {
    const client = answer(InvalidClient('Client "x" \\ unknown'));
    expect(client.status).toBe(401);
    expect(client.headers['www-authenticate']).toBe(
      'Basic realm="oauth", error="invalid_client", error_description="Client x  unknown"',
    );
    // RFC 6749 §5.2 allows neither in error_description: the body loses them too.
    expect(client.body).toEqual({ error: 'invalid_client', error_description: 'Client x  unknown' });
    expect(answer(InvalidToken('The access token expired')).headers['www-authenticate']).toBe(
      'Bearer realm="oauth", error="invalid_token", error_description="The access token expired"',
    );
    const scope = answer(InsufficientScope('needs openid'));
    expect(scope.status).toBe(403);
    expect(scope.headers['www-authenticate']).toBe(
      'Bearer realm="oauth", error="insufficient_scope", error_description="needs openid"',
    );
  });

  it('invalid-client-no-challenge turns only invalid_client into a bare 400; token-cacheable drops no-store and no-cache from token responses, token-error-cacheable from refusals', () => {
    const noChallenge = createSimulator({ faults: ['invalid-client-no-challenge'] });
    const client = answer(InvalidClient('unknown client'), noChallenge);
    expect(client.status).toBe(400);
    expect(client.headers['www-authenticate']).toBeUndefined();
    const token = answer(InvalidToken('expired'), noChallenge);
    expect(token.status).toBe(401);
    expect(token.headers['www-authenticate']).toBe(
      'Bearer realm="oauth", error="invalid_token", error_description="expired"',
    );
    const kept = { 'cache-control': 'no-store', pragma: 'no-cache' };
    const cacheable = createSimulator({ faults: ['token-cacheable'] });
    expect(noStore(sim())).toEqual(kept);
    expect(noStore(cacheable)).toEqual({});
    // token-cacheable keeps them on refusals, token-error-cacheable drops them there alone.
    expect(answer(InvalidGrant('x'), cacheable).headers).toEqual({ 'content-type': 'application/json', ...kept });
    const errorCacheable = createSimulator({ faults: ['token-error-cacheable'] });
    expect(noStore(errorCacheable)).toEqual(kept);
    expect(answer(InvalidGrant('x'), errorCacheable).headers).toEqual({ 'content-type': 'application/json' });
  });
});

describe('brute-force throttle (AUTH-BRUTE-FORCE-THROTTLED)', () => {
  const { authFailuresMax, authFailureWindowSeconds } = limits();
  const user = { id: 12 } as User;

  it('keys an account by id, an unknown login by its lower-cased name cut at 256 characters', () => {
    expect(accountKey(user, 'whatever')).toBe('user:12');
    expect(accountKey(undefined, 'Alice')).toBe('login:alice');
    expect(accountKey(undefined, `${'B'.repeat(300)}`)).toBe(`login:${'b'.repeat(256)}`);
  });

  it('locks a key at the limit of failures, not one before, until its window has passed', () => {
    const sim = createSimulator({ clock: { frozen: true } });
    expect(accountLocked(sim, 'k')).toBe(false);
    expect(retryAfter(sim, 'k')).toBe(0);
    for (let i = 1; i < authFailuresMax; i++) recordFailure(sim, 'k');
    expect(accountLocked(sim, 'k')).toBe(false);
    recordFailure(sim, 'k');
    expect(accountLocked(sim, 'k')).toBe(true);
    expect(accountLocked(sim, 'other')).toBe(false);
    expect(retryAfter(sim, 'k')).toBe(authFailureWindowSeconds);
    sim.clock.advance(authFailureWindowSeconds - 1);
    expect(accountLocked(sim, 'k')).toBe(true);
    expect(retryAfter(sim, 'k')).toBe(1);
    sim.clock.advance(1);
    expect(accountLocked(sim, 'k')).toBe(false);
    expect(retryAfter(sim, 'k')).toBe(0);
  });

  it('a failure after the window starts a new window of one failure', () => {
    const sim = createSimulator({ clock: { frozen: true } });
    for (let i = 0; i < authFailuresMax - 1; i++) recordFailure(sim, 'k');
    sim.clock.advance(authFailureWindowSeconds);
    recordFailure(sim, 'k');
    sim.clock.advance(10);
    for (let i = 1; i < authFailuresMax - 1; i++) recordFailure(sim, 'k');
    expect(accountLocked(sim, 'k')).toBe(false);
    recordFailure(sim, 'k');
    expect(accountLocked(sim, 'k')).toBe(true);
    expect(retryAfter(sim, 'k')).toBe(authFailureWindowSeconds - 10);
  });

  it('keeps at most 10,000 unknown-login keys: expired windows go first, then the oldest, and the new failure is counted', () => {
    const sim = createSimulator({ clock: { frozen: true } });
    const keys = () => sim.state('oauth:throttle:unknown-logins', () => new Map<string, unknown>());
    const login = (name: string) => accountKey(undefined, name);
    for (let i = 0; i < 5_000; i++) recordFailure(sim, login(`old${i}`));
    sim.clock.advance(authFailureWindowSeconds);
    for (let i = 0; i < 5_000; i++) recordFailure(sim, login(`new${i}`));
    expect(keys().size).toBe(MAX_UNKNOWN_LOGIN_KEYS);
    recordFailure(sim, login('fresh'));
    expect(keys().size).toBe(5_001);
    for (let i = 0; i < 4_999; i++) recordFailure(sim, login(`more${i}`));
    expect(keys().size).toBe(10_000);
    for (let i = 1; i < authFailuresMax; i++) recordFailure(sim, login('new0'));
    recordFailure(sim, login('newest'));
    expect(keys().size).toBe(10_000);
    expect(keys().has(login('new0'))).toBe(false);
    expect(keys().has(login('new1'))).toBe(true);
    expect(keys().get(login('newest'))).toEqual({ count: 1, since: sim.clock.nowSeconds() });
  });

  it('a flood of unknown logins at the table size flushes neither a locked account nor the count of one', () => {
    const sim = createSimulator({ clock: { frozen: true } });
    const locked = accountKey(user, 'x');
    const counting = accountKey({ id: 13 } as User, 'y');
    const codes = userCodeKey(user);
    for (let i = 0; i < authFailuresMax; i++) recordFailure(sim, locked);
    for (let i = 0; i < authFailuresMax; i++) recordFailure(sim, codes);
    for (let i = 1; i < authFailuresMax; i++) recordFailure(sim, counting);
    for (let i = 0; i < 2 * MAX_UNKNOWN_LOGIN_KEYS; i++) recordFailure(sim, accountKey(undefined, `noise${i}`));
    expect(accountLocked(sim, locked)).toBe(true);
    expect(accountLocked(sim, codes)).toBe(true);
    expect(accountLocked(sim, counting)).toBe(false);
    recordFailure(sim, counting);
    expect(accountLocked(sim, counting)).toBe(true);
  });
});

describe('brute-force throttle: browser requests from another origin count apart (review 20)', () => {
  const { authFailuresMax } = limits();
  const grant = async (sim: Sim, password: string, headers: Record<string, string>, base = BASE) => {
    const { user } = (await (await sim.handle(new Request(`${BASE}/-/simulator/config`))).json()) as {
      user: { username: string; password: string };
    };
    const body = new URLSearchParams({
      grant_type: 'password',
      username: user.username,
      password: password || user.password,
    });
    const res = await sim.handle(new Request(`${base}/oauth/token`, { method: 'POST', headers, body }));
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const tooMany = {
    status: 400,
    body: expect.objectContaining({ error_description: expect.stringMatching(/^Too many failed/) }),
  };

  it.each([
    ['a foreign Origin', { origin: 'http://127.0.0.2:3000' }],
    ['an opaque Origin', { origin: 'null' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
  ])(
    '%s: its failures lock only such requests; the right password without them still gets a token',
    async (_label, headers) => {
      const sim = createSimulator({ clock: { frozen: true } });
      for (let i = 0; i < authFailuresMax; i++) expect((await grant(sim, `wrong-${i}`, headers)).status).toBe(400);
      expect(await grant(sim, '', headers)).toEqual(tooMany);
      expect(await grant(sim, '', {})).toMatchObject({ status: 200, body: { access_token: expect.any(String) } });
    },
  );

  // Review 25, finding 2: after a DNS rebinding the page's name resolves here, and Chromium sends
  // Host and Origin both with that name and calls the request same-origin.
  it('a rebinding page (Host and Origin a name not allowed, same-origin): its failures lock only such requests', async () => {
    const sim = createSimulator({ clock: { frozen: true }, controlHosts: ['127.0.0.1'] });
    const rebound = 'http://attacker.test:3000';
    const headers = { origin: rebound, 'sec-fetch-site': 'same-origin' };
    for (let i = 0; i < authFailuresMax + 5; i++)
      expect((await grant(sim, `wrong-${i}`, headers, rebound)).status).toBe(400);
    expect(await grant(sim, '', headers, rebound)).toEqual(tooMany);
    expect(await grant(sim, '', {})).toMatchObject({ status: 200, body: { access_token: expect.any(String) } });
  });

  it.each([
    ['no browser header', {}],
    ['its own Origin', { origin: BASE }],
    ['Sec-Fetch-Site: same-origin', { 'sec-fetch-site': 'same-origin', origin: BASE }],
    ['Sec-Fetch-Site: none', { 'sec-fetch-site': 'none' }],
  ])('%s: counts under the account, as before', async (_label, headers) => {
    const sim = createSimulator({ clock: { frozen: true } });
    for (let i = 0; i < authFailuresMax; i++) await grant(sim, `wrong-${i}`, headers);
    expect(await grant(sim, '', {})).toEqual(tooMany);
  });
});

describe('the operations and gates of the OAuth side', () => {
  it('a handler for every OAuth, page and control operation of spec/openapi.yaml, and nothing else', () => {
    const oauthSide = operations()
      // The REST side serves /api/v4, Git over HTTPS and the control API's REST data (projects).
      .filter((o) => !o.path.startsWith('/api/v4') && !o.path.includes('.git/') && o.operationId !== 'simCreateProject')
      .map((o) => o.operationId);
    for (const id of oauthSide) expect(oauthHandlers, id).toHaveProperty(id);
    expect(Object.keys(oauthHandlers).filter((id) => !operations().some((o) => o.operationId === id))).toEqual([]);
  });

  it('legacy-jwks-served keeps /-/jwks routed after 17.0, equal to the key set', async () => {
    const faulty = createSimulator({ release: '17.0', faults: ['legacy-jwks-served'] });
    const legacy = await send(faulty, 'GET', '/-/jwks', {});
    expect(legacy.status).toBe(200);
    expect(legacy.text).toBe((await send(faulty, 'GET', '/oauth/discovery/keys', {})).text);
    expect((await send(createSimulator({ release: '17.0' }), 'GET', '/-/jwks', {})).status).toBe(404);
    expect(Object.keys(oauthGateOverrides)).toEqual(['legacyJwks']);
  });
});
