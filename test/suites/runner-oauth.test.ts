/**
 * The harness's OAuth client (`t.oauth`, suites/runner/oauth.ts) with exact outputs, over an
 * in-memory target that records every request: the authorize URL the driver is handed, each token
 * and revocation request (method, URL, client authentication, form fields in order), what the
 * redactor learns to mask, which tokens are left to revoke, and the error each failure throws.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { limits } from '../../spec/index.js';
import { CheckFailure, CheckSkipped, HarnessError } from '../../suites/runner/errors.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import {
  VERIFIER_ALPHABET,
  clientCredentials,
  createOAuthFlows,
  s256,
  type ClientAuthFound,
} from '../../suites/runner/oauth.js';
import { createRandom } from '../../suites/runner/random.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { TransportError, type RawRequest } from '../../suites/target/types.js';
import type { AuthorizeOutcome, Driver, HttpResponse, TargetConfig } from '../../suites/types.js';
import { FAKE_BASE, fakeTarget } from './fakes.js';

const SEED = 11;
const CONFIDENTIAL = {
  clientId: 'conf-client',
  clientSecret: 'conf-secret-value-1',
  redirectUri: 'http://client.test/cb',
  scopes: ['api', 'openid'],
};
const PUBLIC = { clientId: 'public-client', redirectUri: 'http://client.test/public', scopes: ['read_user'] };
const LIMITED = {
  clientId: 'limited-client',
  clientSecret: 'limited-secret-22',
  redirectUri: 'http://client.test/limited',
  scopes: ['read_user'],
};
const USER = { username: 'qa-bot', password: 'alice-password-1' };
const ALL: Partial<TargetConfig> = { applications: { confidential: CONFIDENTIAL, public: PUBLIC, limited: LIMITED } };

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const enc = encodeURIComponent;
/** A value as a form or query string spells it (URLSearchParams: `~` as %7E, space as +). */
const formed = (value: string) => new URLSearchParams([['v', value]]).toString().slice(2);

interface Sent {
  method: string;
  path: string;
  authorization: string | null;
  contentType: string | null;
  body?: string;
}

/** A page or redirect the fake driver hands back (only the status is read from the response). */
const page = (status: number): HttpResponse => ({
  status,
  headers: new Headers(),
  text: '',
  url: `${FAKE_BASE}/oauth/authorize`,
  json: <T>() => ({}) as T,
});
const redirect = (to: string, decided: boolean | undefined = true): AuthorizeOutcome => ({
  redirect: new URL(to),
  response: page(302),
  decided,
});

/** Token responses with fresh values each time (the same provider answers every test). */
function tokenAnswer(n: number): Response {
  return Response.json({
    access_token: `access-token-number-${n}`,
    token_type: 'Bearer',
    refresh_token: `refresh-token-number-${n}`,
  });
}

function flows(
  config: Partial<TargetConfig> = ALL,
  answer?: (r: RawRequest, path: string) => Response | undefined,
  outcome: (url: string) => AuthorizeOutcome = (url) => {
    const state = new URL(url).searchParams.get('state');
    return redirect(`http://client.test/cb?code=the-code-value-1&state=${state}`);
  },
  found: ClientAuthFound = {},
) {
  const sent: Sent[] = [];
  const authorized: Array<{ url: string; decision: string }> = [];
  let tokens = 0;
  const recorder = createRecorder(100);
  const redactor = createRedactor();
  const target = fakeTarget((r) => {
    const path = new URL(r.url).pathname;
    sent.push({
      method: r.method,
      path: r.url.slice(FAKE_BASE.length),
      authorization: r.headers.get('authorization'),
      contentType: r.headers.get('content-type'),
      ...(r.body !== undefined ? { body: r.body } : {}),
    });
    const given = answer?.(r, path);
    if (given) return given;
    if (path === '/oauth/token') return tokenAnswer(++tokens);
    if (path === '/oauth/revoke') return Response.json({});
    return new Response('{}', { status: 404 });
  });
  const http = createHttp(target, recorder, redactor);
  const driver: Driver = {
    kind: 'simulator',
    authorize(url, decision) {
      authorized.push({ url, decision });
      return Promise.resolve(outcome(url));
    },
    approveDevice: () => Promise.resolve(),
    denyDevice: () => Promise.resolve(),
    advanceClock: () => Promise.resolve(),
  };
  const oauth = createOAuthFlows(http, driver, { baseUrl: FAKE_BASE, ...config }, redactor, createRandom(SEED), found);
  /** The requests sent since the last call, as `METHOD path | authorization | body`. */
  const take = () => sent.splice(0).map((s) => [s.method, s.path, s.authorization ?? '-', s.body ?? '-'].join(' | '));
  /** Is a value masked wherever it turns up (a report's text)? */
  const masked = (value: string) => redactor.text(`[${value}]`) !== `[${value}]`;
  return { oauth, sent, take, authorized, recorder, redactor, masked };
}

const revocation = (token: string, app?: { clientId: string; clientSecret?: string }) =>
  `POST | /oauth/revoke | - | token=${token}${app ? `&client_id=${app.clientId}` : ''}${
    app?.clientSecret ? `&client_secret=${app.clientSecret}` : ''
  }`;

async function thrown(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('s256 and the PKCE pair', () => {
  it('s256 is base64url without padding of SHA-256 over the UTF-8 bytes (RFC 7636 Appendix B)', () => {
    expect(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    // Any string is hashed, one the source forbids too: é is the two bytes c3 a9.
    expect(s256('é')).toBe(
      createHash('sha256')
        .update(Buffer.from([0xc3, 0xa9]))
        .digest('base64url'),
    );
  });

  it('the verifier alphabet is exactly the unreserved characters of RFC 7636 §4.1', () => {
    expect([...VERIFIER_ALPHABET].sort().join('')).toBe(
      [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~'].sort().join(''),
    );
    expect(new Set(VERIFIER_ALPHABET).size).toBe(66);
  });

  it('pkce(): a seeded verifier of the longest allowed length, or the one given, with its S256 challenge', () => {
    const { oauth } = flows();
    const random = createRandom(SEED);
    const first = random.string(limits().verifierMaxLength, VERIFIER_ALPHABET);
    const second = random.string(limits().verifierMaxLength, VERIFIER_ALPHABET);
    expect(first).toHaveLength(128);
    expect(oauth.pkce()).toEqual({ verifier: first, challenge: s256(first) });
    expect(oauth.pkce('given-verifier')).toEqual({ verifier: 'given-verifier', challenge: s256('given-verifier') });
    // The given verifier drew nothing from the seeded source.
    expect(oauth.pkce()).toEqual({ verifier: second, challenge: s256(second) });
  });
});

describe('app and authorizeUrl', () => {
  it('app(): the configured application, or the check skipped naming the missing role', () => {
    expect(flows().oauth.app('limited')).toBe(LIMITED);
    const partial = flows({ applications: { confidential: CONFIDENTIAL } }).oauth;
    expect(() => partial.app('public')).toThrow(new CheckSkipped('the target config has no public application'));
    expect(() => partial.app('public')).toThrow(CheckSkipped);
    expect(() => flows({}).oauth.app('limited')).toThrow(
      new CheckSkipped('the target config has no limited application'),
    );
  });

  it("the application's client, redirect URI, code response type, scopes and a state, in that order", () => {
    const { oauth, sent } = flows();
    expect(oauth.authorizeUrl('confidential', { scope: 'api' })).toMatch(
      new RegExp(
        `^${FAKE_BASE}/oauth/authorize\\?client_id=conf-client&redirect_uri=${enc('http://client.test/cb')}&response_type=code&scope=api&state=[A-Za-z0-9._~-]{24}$`,
      ),
    );
    expect(sent).toEqual([]);
  });

  it('every request carries a fresh state (L17: the client sends one with each) unless the check chose or removed it', () => {
    const stateOf = (url: string) => new URL(url).searchParams.get('state');
    const { oauth } = flows();
    expect(stateOf(oauth.authorizeUrl('confidential'))).not.toBe(stateOf(oauth.authorizeUrl('confidential')));
    expect(stateOf(oauth.authorizeUrl('confidential', { state: 'chosen' }))).toBe('chosen');
    expect(stateOf(oauth.authorizeUrl('confidential', { state: undefined }))).toBeNull();
  });

  it('an openid request carries a seeded nonce unless the check chose one or removed it', () => {
    const nonceOf = (url: string) => new URL(url).searchParams.get('nonce');
    const url = flows().oauth.authorizeUrl('confidential');
    expect(url).toMatch(
      new RegExp(
        `^${FAKE_BASE}/oauth/authorize\\?client_id=conf-client&redirect_uri=[^&]+&response_type=code&scope=api\\+openid&state=[^&]+&nonce=`,
      ),
    );
    expect(nonceOf(url)).toMatch(/^[A-Za-z0-9._~-]{32}$/);
    // The same seed, the same nonce; another request of the run, another one.
    expect(nonceOf(flows().oauth.authorizeUrl('confidential'))).toBe(nonceOf(url));
    const { oauth } = flows();
    expect(nonceOf(oauth.authorizeUrl('confidential'))).not.toBe(nonceOf(oauth.authorizeUrl('confidential')));
    expect(nonceOf(oauth.authorizeUrl('confidential', { nonce: 'chosen' }))).toBe('chosen');
    expect(nonceOf(oauth.authorizeUrl('confidential', { nonce: undefined }))).toBeNull();
    expect(nonceOf(oauth.authorizeUrl('confidential', { scope: 'api openidx' }))).toBeNull();
  });

  it("the check's parameters replace a default in place, add new ones after, and undefined removes one", () => {
    const { oauth } = flows();
    expect(
      oauth.authorizeUrl('public', { scope: 'a b', response_type: undefined, state: 's 1', prompt: undefined }),
    ).toBe(
      `${FAKE_BASE}/oauth/authorize?client_id=public-client&redirect_uri=${enc(PUBLIC.redirectUri)}&scope=a+b&state=s+1`,
    );
    expect(() => flows({}).oauth.authorizeUrl('public')).toThrow(CheckSkipped);
  });
});

describe('tokenRequest: client authentication and the form', () => {
  it('a confidential client authenticates in the body by default: client_id, client_secret, then the form', async () => {
    const { oauth, take, sent } = flows();
    const response = await oauth.tokenRequest({ grant_type: 'client_credentials', scope: 'api' });
    expect(sent[0].contentType).toBe('application/x-www-form-urlencoded');
    expect(take()).toEqual([
      'POST | /oauth/token | - | client_id=conf-client&client_secret=conf-secret-value-1&grant_type=client_credentials&scope=api',
    ]);
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({
      access_token: 'access-token-number-1',
      token_type: 'Bearer',
      refresh_token: 'refresh-token-number-1',
    });
  });

  it('auth basic: the client in an HTTP Basic header and nowhere in the body', async () => {
    const { oauth, take } = flows();
    await oauth.tokenRequest({ grant_type: 'client_credentials' }, { auth: 'basic' });
    await oauth.tokenRequest({ grant_type: 'client_credentials' }, { auth: 'basic', app: 'limited' });
    expect(take()).toEqual([
      `POST | /oauth/token | ${basic('conf-client', 'conf-secret-value-1')} | grant_type=client_credentials`,
      `POST | /oauth/token | ${basic('limited-client', 'limited-secret-22')} | grant_type=client_credentials`,
    ]);
  });

  it('a public client sends its client_id alone; over Basic its password is empty', async () => {
    const { oauth, take } = flows();
    await oauth.tokenRequest({ grant_type: 'x' }, { app: 'public' });
    await oauth.tokenRequest({ grant_type: 'x' }, { app: 'public', auth: 'body' });
    await oauth.tokenRequest({ grant_type: 'x' }, { app: 'public', auth: 'basic' });
    expect(take()).toEqual([
      'POST | /oauth/token | - | client_id=public-client&grant_type=x',
      'POST | /oauth/token | - | client_id=public-client&grant_type=x',
      `POST | /oauth/token | ${basic('public-client', '')} | grant_type=x`,
    ]);
  });

  it('auth none: no client at all, and no application needed in the config', async () => {
    const { oauth, take } = flows({});
    await oauth.tokenRequest({ grant_type: 'password', username: 'u' }, { auth: 'none' });
    expect(take()).toEqual(['POST | /oauth/token | - | grant_type=password&username=u']);
    const withApps = flows();
    await withApps.oauth.tokenRequest({ grant_type: 'x' }, { auth: 'none', app: 'limited' });
    expect(withApps.take()).toEqual(['POST | /oauth/token | - | grant_type=x']);
  });

  it("the check's fields win in place, an undefined one is removed, and the secret is concealed all the same", async () => {
    const { oauth, take, masked } = flows();
    expect(masked(CONFIDENTIAL.clientSecret)).toBe(false);
    await oauth.tokenRequest({ client_id: 'someone-else', client_secret: undefined, grant_type: 'x' });
    expect(take()).toEqual(['POST | /oauth/token | - | client_id=someone-else&grant_type=x']);
    expect(masked(CONFIDENTIAL.clientSecret)).toBe(true);
    expect(masked(LIMITED.clientSecret)).toBe(false);
  });

  it('a missing application skips the check before any request', async () => {
    const { oauth, sent } = flows({ applications: { public: PUBLIC } });
    await expect(oauth.tokenRequest({ grant_type: 'x' })).rejects.toEqual(
      new CheckSkipped('the target config has no confidential application'),
    );
    await expect(oauth.tokenRequest({ grant_type: 'x' }, { app: 'limited', auth: 'basic' })).rejects.toThrow(
      CheckSkipped,
    );
    expect(sent).toEqual([]);
  });

  it('the tokens of a 200 are tracked for the application that asked, and revoked with its credentials', async () => {
    const { oauth, take, masked } = flows();
    await oauth.tokenRequest({ grant_type: 'x' }, { app: 'limited' });
    await oauth.tokenRequest({ grant_type: 'x' }, { auth: 'none' });
    take();
    expect(masked('access-token-number-1')).toBe(true);
    expect(masked('refresh-token-number-2')).toBe(true);
    await oauth.revokeAll();
    expect(take()).toEqual([
      revocation('access-token-number-1', LIMITED),
      revocation('refresh-token-number-1', LIMITED),
      // Asked without a client: revoked as the confidential application (any client may).
      revocation('access-token-number-2', CONFIDENTIAL),
      revocation('refresh-token-number-2', CONFIDENTIAL),
    ]);
  });

  it('the tokens of a refusal are not tracked for revocation', async () => {
    const { oauth, take } = flows(ALL, (_r, path) =>
      path === '/oauth/token'
        ? Response.json({ error: 'invalid_grant', access_token: 'not-a-real-token-1' }, { status: 400 })
        : undefined,
    );
    const response = await oauth.tokenRequest({ grant_type: 'x' });
    expect(response.status).toBe(400);
    take();
    await oauth.revokeAll();
    expect(take()).toEqual([]);
  });
});

describe('a secret the start-up found refused in the body (clientBodyRefused): every request by HTTP Basic', () => {
  const bodyRefused = (config: Partial<TargetConfig> = ALL) =>
    flows(config, undefined, undefined, { clientBodyRefused: { confidential: '401 invalid_client' } });

  it('token, device authorization and revocation requests of that application go by Basic; the others in the body', async () => {
    const { oauth, take } = bodyRefused();
    await oauth.tokenRequest({ grant_type: 'x' });
    await oauth.clientRequest('/oauth/authorize_device', { client_id: 'conf-client', scope: 'api' });
    await oauth.revoke('some-token-value');
    await oauth.tokenRequest({ grant_type: 'x' }, { app: 'limited' });
    await oauth.revoke('other-token-value', 'limited');
    const conf = basic('conf-client', 'conf-secret-value-1');
    expect(take()).toEqual([
      `POST | /oauth/token | ${conf} | grant_type=x`,
      `POST | /oauth/authorize_device | ${conf} | client_id=conf-client&scope=api`,
      `POST | /oauth/revoke | ${conf} | token=some-token-value`,
      'POST | /oauth/token | - | client_id=limited-client&client_secret=limited-secret-22&grant_type=x',
      revocation('other-token-value', LIMITED),
    ]);
  });

  it('a way asked for wins (AUTH-CLIENT-BODY asks the body); another secret, or none, goes the same way', async () => {
    const { oauth, take, masked } = bodyRefused();
    await oauth.tokenRequest({ grant_type: 'x' }, { auth: 'body' });
    await oauth.clientRequest('/oauth/revoke', { token: 't-1' }, { secret: 'wrong-secret-value-9' });
    await oauth.clientRequest('/oauth/revoke', { token: 't-2' }, { secret: null });
    expect(take()).toEqual([
      'POST | /oauth/token | - | client_id=conf-client&client_secret=conf-secret-value-1&grant_type=x',
      `POST | /oauth/revoke | ${basic('conf-client', 'wrong-secret-value-9')} | token=t-1`,
      `POST | /oauth/revoke | ${basic('conf-client', '')} | token=t-2`,
    ]);
    expect(masked('wrong-secret-value-9')).toBe(true);
    expect(oauth.clientAuth('confidential', { auth: 'body', secret: null })).toEqual({
      fields: { client_id: 'conf-client', client_secret: undefined },
    });
  });

  it('clientCredentials: the body, Basic (an empty password without a secret) or nothing', () => {
    expect(clientCredentials(CONFIDENTIAL, 'body')).toEqual({
      fields: { client_id: 'conf-client', client_secret: 'conf-secret-value-1' },
    });
    expect(clientCredentials(PUBLIC, 'basic')).toEqual({
      fields: {},
      clientBasic: { user: 'public-client', password: '' },
    });
    expect(clientCredentials(CONFIDENTIAL, 'none')).toEqual({ fields: {} });
  });
});

describe('adopt, track, revoke and revokeAll', () => {
  const response = (status: number, text: string): HttpResponse => ({ ...page(status), text });

  it('adopt: a 200 token response, its access and refresh tokens tracked, its ID token only concealed', async () => {
    const { oauth, take, masked } = flows();
    oauth.adopt(
      response(
        200,
        JSON.stringify({
          id_token: 'id-token-value-77',
          refresh_token: 'refresh-first-1',
          access_token: 'access-second-1',
        }),
      ),
      'public',
    );
    expect(['id-token-value-77', 'refresh-first-1', 'access-second-1'].map(masked)).toEqual([true, true, true]);
    await oauth.revokeAll();
    // access_token first, whatever the order of the response's fields.
    expect(take()).toEqual([revocation('access-second-1', PUBLIC), revocation('refresh-first-1', PUBLIC)]);
  });

  it('adopt without a role: revoked as the confidential application', async () => {
    const { oauth, take } = flows();
    oauth.adopt(response(200, JSON.stringify({ access_token: 'access-no-role-1' })));
    await oauth.revokeAll();
    expect(take()).toEqual([revocation('access-no-role-1', CONFIDENTIAL)]);
  });

  it('adopt ignores a refusal, a body that is not JSON and token fields that are not strings', async () => {
    const { oauth, take, masked } = flows();
    oauth.adopt(response(400, JSON.stringify({ access_token: 'refused-token-11' })), 'confidential');
    oauth.adopt(response(201, JSON.stringify({ access_token: 'created-token-11' })), 'confidential');
    oauth.adopt(response(200, 'access_token=form-token-1111'), 'confidential');
    oauth.adopt(response(200, JSON.stringify({ access_token: 123456789, refresh_token: true })), 'confidential');
    await oauth.revokeAll();
    expect(take()).toEqual([]);
    expect(['refused-token-11', 'created-token-11', 'form-token-1111'].map(masked)).toEqual([false, false, false]);
  });

  it('adopt reads a token response labelled form-encoded (a provider that answers JSON only when asked)', async () => {
    const { oauth, take, masked } = flows();
    const form = {
      ...response(200, 'access_token=form-access-1111&token_type=bearer&refresh_token=form-refresh-1111'),
      headers: new Headers({ 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }),
    };
    oauth.adopt(form, 'public');
    expect(['form-access-1111', 'form-refresh-1111'].map(masked)).toEqual([true, true]);
    await oauth.revokeAll();
    expect(take()).toEqual([revocation('form-access-1111', PUBLIC), revocation('form-refresh-1111', PUBLIC)]);
  });

  it('track: conceals and tracks a token, in order, with its role; nothing for an absent or empty one', async () => {
    const { oauth, take, masked } = flows();
    oauth.track(undefined);
    oauth.track('', 'public');
    oauth.track('hand-made-token-1', 'limited');
    oauth.track('short');
    expect(masked('hand-made-token-1')).toBe(true);
    await oauth.revokeAll();
    expect(take()).toEqual([revocation('hand-made-token-1', LIMITED), revocation('short', CONFIDENTIAL)]);
  });

  it("revoke: the token and the role's client in the body; a role with no application sends the token alone", async () => {
    const { oauth, take } = flows({ applications: { public: PUBLIC, confidential: CONFIDENTIAL } });
    const r = await oauth.revoke('some-token-value');
    await oauth.revoke('other-token-value', 'public');
    await oauth.revoke('third-token-value', 'limited');
    expect(r.status).toBe(200);
    expect(take()).toEqual([
      revocation('some-token-value', CONFIDENTIAL),
      revocation('other-token-value', PUBLIC),
      revocation('third-token-value'),
    ]);
    const bare = flows({});
    await bare.oauth.revoke('token-of-nobody');
    expect(bare.take()).toEqual([revocation('token-of-nobody')]);
  });

  it('revoke: a 200 ends the tracking; any other answer leaves the token for revokeAll', async () => {
    let status = 200;
    const { oauth, take } = flows(ALL, (_r, path) =>
      path === '/oauth/revoke' ? Response.json({}, { status }) : undefined,
    );
    oauth.track('revoked-by-check', 'public');
    oauth.track('refused-by-provider', 'public');
    await oauth.revoke('revoked-by-check', 'public');
    status = 503;
    await oauth.revoke('refused-by-provider', 'public');
    take();
    status = 200;
    await oauth.revokeAll();
    expect(take()).toEqual([revocation('refused-by-provider', PUBLIC)]);
  });

  it('revokeAll: best effort past a transport failure or a refusal, and nothing is left for a second call', async () => {
    const { oauth, take } = flows(ALL, (r, path) => {
      if (path !== '/oauth/revoke') return undefined;
      if (r.body?.startsWith('token=unreachable')) throw new TransportError('connection refused', 'unreachable');
      return Response.json({ error: 'invalid_request' }, { status: 400 });
    });
    oauth.track('unreachable-token', 'limited');
    oauth.track('refused-token-22', 'limited');
    await expect(oauth.revokeAll()).resolves.toBeUndefined();
    expect(take()).toEqual([revocation('unreachable-token', LIMITED), revocation('refused-token-22', LIMITED)]);
    await oauth.revokeAll();
    expect(take()).toEqual([]);
  });

  it('conceal: a secret the check read on a page is masked from then on', () => {
    const { oauth, masked } = flows();
    expect(masked('secret-read-on-page-7f3')).toBe(false);
    oauth.conceal('secret-read-on-page-7f3');
    oauth.conceal(undefined);
    expect(masked('secret-read-on-page-7f3')).toBe(true);
  });
});

describe('code: the authorization request through the driver', () => {
  /** The state, verifier and nonce the flows draw for SEED: the verifier (when PKCE is used) first, the nonce last. */
  const drawn = (pkce: boolean) => {
    const random = createRandom(SEED);
    const verifier = pkce ? random.string(limits().verifierMaxLength, VERIFIER_ALPHABET) : undefined;
    const state = random.string(24, VERIFIER_ALPHABET);
    return { verifier, state, nonce: random.string(32, VERIFIER_ALPHABET) };
  };

  it('a confidential client: no PKCE, a seeded 24-character state, a nonce for openid, approved, the code concealed', async () => {
    const { oauth, authorized, masked, sent } = flows();
    const { state, nonce } = drawn(false);
    const grant = await oauth.code('confidential');
    expect(authorized).toEqual([
      {
        url: `${FAKE_BASE}/oauth/authorize?client_id=conf-client&redirect_uri=${enc(CONFIDENTIAL.redirectUri)}&response_type=code&scope=api+openid&state=${formed(state)}&nonce=${formed(nonce)}`,
        decision: 'approve',
      },
    ]);
    expect(state).toMatch(/^[A-Za-z0-9._~-]{24}$/);
    expect(grant).toEqual({
      code: 'the-code-value-1',
      state,
      verifier: undefined,
      redirectUri: CONFIDENTIAL.redirectUri,
    });
    expect(masked('the-code-value-1')).toBe(true);
    expect(sent).toEqual([]);
  });

  it('a public client: PKCE with a seeded verifier drawn before the state, S256', async () => {
    const { oauth, authorized } = flows();
    const { verifier, state } = drawn(true);
    const grant = await oauth.code('public');
    expect(authorized.map((a) => a.url)).toEqual([
      `${FAKE_BASE}/oauth/authorize?client_id=public-client&redirect_uri=${enc(PUBLIC.redirectUri)}&response_type=code&scope=read_user&state=${formed(state)}&code_challenge=${s256(verifier!)}&code_challenge_method=S256`,
    ]);
    expect(grant.verifier).toBe(verifier);
  });

  it('PKCE: a given verifier turns it on; the pkce option decides over both', async () => {
    const challengeOf = async (role: 'confidential' | 'public', options: { pkce?: boolean; verifier?: string }) => {
      const { oauth, authorized } = flows();
      const grant = await oauth.code(role, options);
      const query = new URL(authorized[0].url).searchParams;
      return [grant.verifier, query.get('code_challenge'), query.get('code_challenge_method')];
    };
    const given = 'v'.repeat(43);
    const seeded = drawn(true).verifier!;
    expect(await challengeOf('confidential', { verifier: given })).toEqual([given, s256(given), 'S256']);
    expect(await challengeOf('confidential', { pkce: true })).toEqual([seeded, s256(seeded), 'S256']);
    expect(await challengeOf('confidential', { pkce: false, verifier: given })).toEqual([undefined, null, null]);
    expect(await challengeOf('public', { pkce: false })).toEqual([undefined, null, null]);
    expect(await challengeOf('public', { verifier: given })).toEqual([given, s256(given), 'S256']);
  });

  it("the check's state, scope and nonce, in the URL's order; the state returned is the redirect's", async () => {
    const { oauth, authorized } = flows(ALL, undefined, () =>
      redirect('http://client.test/cb?code=code-without-state'),
    );
    const grant = await oauth.code('limited', { state: 'my-state', scope: 'api read_user', nonce: 'n-0S6' });
    expect(authorized[0].url).toBe(
      `${FAKE_BASE}/oauth/authorize?client_id=limited-client&redirect_uri=${enc(LIMITED.redirectUri)}&response_type=code&scope=api+read_user&state=my-state&nonce=n-0S6`,
    );
    expect(grant).toEqual({
      code: 'code-without-state',
      state: null,
      verifier: undefined,
      redirectUri: LIMITED.redirectUri,
    });
  });

  it('a redirect although the driver decided nothing (a remembered consent) is the provider’s answer', async () => {
    const { oauth } = flows(ALL, undefined, () =>
      redirect('http://client.test/cb?code=remembered-code&state=s', false),
    );
    expect((await oauth.code('confidential')).code).toBe('remembered-code');
  });

  it('no approve control on the page: the harness’s trouble, not a failure', async () => {
    const { oauth } = flows(ALL, undefined, () => ({ response: page(200), decided: false }));
    const error = await thrown(oauth.code('confidential'));
    expect(error).toBeInstanceOf(HarnessError);
    expect(error.message).toBe("the driver found no approve control on the provider's page (status 200)");
  });

  it('a page instead of a redirect after a decision: GRANT-REDIRECT-WITH-CODE fails, naming the status', async () => {
    for (const decided of [true, undefined]) {
      const { oauth } = flows(ALL, undefined, () => ({ response: page(400), decided }));
      const error = await thrown(oauth.code('confidential'));
      expect(error).toBeInstanceOf(CheckFailure);
      expect(error.message).toBe(
        "the authorization request ended on a page (status 400) instead of redirecting to the application; this check's own rules are untested",
      );
      expect((error as CheckFailure).rules).toEqual(['GRANT-REDIRECT-WITH-CODE']);
    }
  });

  it('a refusal in the redirect is GRANT-AUTHORIZE-PARAMS alone, with the error and its description; an error beside a code wins', async () => {
    const refused = async (query: string) => {
      const { oauth, masked } = flows(ALL, undefined, () => redirect(`http://client.test/cb?${query}`));
      const error = (await thrown(oauth.code('confidential'))) as CheckFailure;
      expect(error).toBeInstanceOf(CheckFailure);
      return { message: error.message, details: error.details, codeMasked: masked('code-beside-an-error') };
    };
    const untested = "; this check's own rules are untested";
    expect(await refused('error=access_denied&error_description=the+user+said+no&state=s')).toStrictEqual({
      message: `the provider refused an approved authorization request of the documented parameters (access_denied)${untested}`,
      details: { error: 'access_denied', error_description: 'the user said no', rules: ['GRANT-AUTHORIZE-PARAMS'] },
      codeMasked: false,
    });
    expect(await refused('error=invalid_scope&code=code-beside-an-error')).toStrictEqual({
      message: `the provider refused an approved authorization request of the documented parameters (invalid_scope)${untested}`,
      details: { error: 'invalid_scope', error_description: undefined, rules: ['GRANT-AUTHORIZE-PARAMS'] },
      codeMasked: false,
    });
    expect(await refused('state=s')).toStrictEqual({
      message: `the redirect after approval carries no code${untested}`,
      details: { rules: ['GRANT-REDIRECT-WITH-CODE'] },
      codeMasked: false,
    });
  });

  it('a missing application skips before the driver is asked', async () => {
    const { oauth, authorized } = flows({ applications: { confidential: CONFIDENTIAL } });
    await expect(oauth.code('public')).rejects.toThrow(CheckSkipped);
    expect(authorized).toEqual([]);
  });
});

describe('token: the code exchanged at the token endpoint', () => {
  it('confidential: the code and redirect URI with the client in the body, no verifier; the tokens tracked', async () => {
    const { oauth, take } = flows();
    const body = await oauth.token('confidential', { scope: 'api' });
    expect(body).toEqual({
      access_token: 'access-token-number-1',
      token_type: 'Bearer',
      refresh_token: 'refresh-token-number-1',
    });
    expect(take()).toEqual([
      `POST | /oauth/token | - | client_id=conf-client&client_secret=conf-secret-value-1&grant_type=authorization_code&code=the-code-value-1&redirect_uri=${enc(CONFIDENTIAL.redirectUri)}`,
    ]);
    await oauth.revokeAll();
    expect(take()).toEqual([
      revocation('access-token-number-1', CONFIDENTIAL),
      revocation('refresh-token-number-1', CONFIDENTIAL),
    ]);
  });

  it('public: its client_id and the PKCE verifier; revoked as the public client', async () => {
    const { oauth, take, authorized } = flows();
    await oauth.token('public');
    const verifier = createRandom(SEED).string(limits().verifierMaxLength, VERIFIER_ALPHABET);
    expect(new URL(authorized[0].url).searchParams.get('code_challenge')).toBe(s256(verifier));
    expect(take()).toEqual([
      `POST | /oauth/token | - | client_id=public-client&grant_type=authorization_code&code=the-code-value-1&redirect_uri=${enc(PUBLIC.redirectUri)}&code_verifier=${formed(verifier)}`,
    ]);
    await oauth.revokeAll();
    expect(take()).toEqual([revocation('access-token-number-1', PUBLIC), revocation('refresh-token-number-1', PUBLIC)]);
  });

  it('the recorded exchanges, as a report shows them, hold no secret in clear', async () => {
    const { oauth, recorder, redactor } = flows();
    await oauth.token('public');
    await oauth.token('confidential');
    await oauth.tokenRequest({ grant_type: 'client_credentials' }, { auth: 'basic' });
    await oauth.revokeAll();
    const shown = JSON.stringify(recorder.exchanges.map((e) => redactor.exchange(e)));
    const raw = JSON.stringify(recorder.exchanges);
    for (const secret of [
      CONFIDENTIAL.clientSecret,
      'the-code-value-1',
      'access-token-number-1',
      'refresh-token-number-2',
      'access-token-number-3',
      formed(createRandom(SEED).string(limits().verifierMaxLength, VERIFIER_ALPHABET)),
    ]) {
      expect(raw).toContain(secret);
      expect(shown).not.toContain(secret);
    }
    expect(shown).toContain(basic('conf-client', 'conf-secret-value-1').slice(0, 10));
    expect(shown).not.toContain(basic('conf-client', 'conf-secret-value-1'));
  });

  it('a refused exchange fails naming the status, with the first 300 characters of the body', async () => {
    const text = JSON.stringify({ error: 'invalid_grant', error_description: 'x'.repeat(400) });
    const { oauth, take } = flows(ALL, (_r, path) =>
      path === '/oauth/token' ? new Response(text, { status: 400 }) : undefined,
    );
    const error = (await thrown(oauth.token('confidential'))) as CheckFailure;
    expect(error).toBeInstanceOf(CheckFailure);
    expect(error.message).toBe(
      "exchanging an authorization code for tokens failed with status 400; this check's own rules are untested",
    );
    // The exchange of a fresh code is the flow itself: its rule alone (the confidential app's plain flow).
    expect(error.details).toStrictEqual({ body: text.slice(0, 300), rules: ['GRANT-CODE-FLOW'] });
    take();
    await oauth.revokeAll();
    expect(take()).toEqual([]);
  });

  it('invalid_client is how the client authenticated: its secret in the body, or none for a public app, whatever the flow', async () => {
    const text = JSON.stringify({ error: 'invalid_client' });
    const refused = (_r: RawRequest, path: string) =>
      path === '/oauth/token' ? new Response(text, { status: 401 }) : undefined;
    // A confidential app sends its secret with PKCE too: PKCE-NO-SECRET is not the rule it broke.
    for (const [role, pkce, rule] of [
      ['confidential', false, 'AUTH-CLIENT-BODY'],
      ['confidential', true, 'AUTH-CLIENT-BODY'],
      ['public', true, 'PKCE-NO-SECRET'],
    ] as const) {
      const error = (await thrown(flows(ALL, refused).oauth.token(role, { pkce }))) as CheckFailure;
      expect(error.details?.rules, `${role}, pkce ${pkce}`).toEqual([rule]);
    }
  });

  it('a 200 without a string access_token fails', async () => {
    for (const body of [{ token_type: 'Bearer' }, { access_token: 42, token_type: 'Bearer' }]) {
      const { oauth } = flows(ALL, (_r, path) => (path === '/oauth/token' ? Response.json(body) : undefined));
      const error = await thrown(oauth.token('confidential'));
      expect(error).toEqual(
        new CheckFailure('the token response has no access_token', { rules: ['TOK-ACCESS-TOKEN', 'GRANT-CODE-FLOW'] }),
      );
      expect(error).toBeInstanceOf(CheckFailure);
    }
  });
});

describe('password', () => {
  it('without a configured user the check is skipped, before any request', async () => {
    const { oauth, sent } = flows();
    await expect(oauth.password()).rejects.toEqual(
      new CheckSkipped('the target config names no user for the password grant'),
    );
    await expect(oauth.password()).rejects.toThrow(CheckSkipped);
    expect(sent).toEqual([]);
  });

  it('with a confidential application: Basic by default, the user in the form, the scope only when given', async () => {
    const { oauth, take, masked } = flows({ ...ALL, user: USER });
    expect(masked(USER.password)).toBe(false);
    await oauth.password();
    await oauth.password({ scope: 'api' });
    await oauth.password({ auth: 'body' });
    expect(take()).toEqual([
      `POST | /oauth/token | ${basic('conf-client', 'conf-secret-value-1')} | grant_type=password&username=qa-bot&password=alice-password-1`,
      `POST | /oauth/token | ${basic('conf-client', 'conf-secret-value-1')} | grant_type=password&username=qa-bot&password=alice-password-1&scope=api`,
      'POST | /oauth/token | - | client_id=conf-client&client_secret=conf-secret-value-1&grant_type=password&username=qa-bot&password=alice-password-1',
    ]);
    expect(masked(USER.password)).toBe(true);
    await oauth.revokeAll();
    expect(take()).toHaveLength(6);
  });

  it('without a confidential application: no client authentication by default', async () => {
    const { oauth, take } = flows({ applications: { public: PUBLIC }, user: USER });
    const response = await oauth.password();
    expect(response.status).toBe(200);
    expect(take()).toEqual(['POST | /oauth/token | - | grant_type=password&username=qa-bot&password=alice-password-1']);
    await expect(oauth.password({ auth: 'basic' })).rejects.toThrow(CheckSkipped);
    const none = flows({ user: USER });
    await none.oauth.password();
    expect(none.take()).toEqual([
      'POST | /oauth/token | - | grant_type=password&username=qa-bot&password=alice-password-1',
    ]);
  });
});

describe('roleOf: the application a token request authenticated as', () => {
  const request = (headers: Record<string, string>, body?: string): RawRequest => ({
    method: 'POST',
    url: `${FAKE_BASE}/oauth/token`,
    headers: new Headers(headers),
    body,
  });
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  it('HTTP Basic: the user part of the credentials, any case of the scheme, one or more spaces', () => {
    const { oauth } = flows();
    expect(oauth.roleOf(request({ authorization: `Basic ${b64('limited-client:limited-secret-22')}` }))).toBe(
      'limited',
    );
    expect(oauth.roleOf(request({ authorization: `basic  ${b64('public-client:')}` }))).toBe('public');
    expect(oauth.roleOf(request({ authorization: `BASIC ${b64('conf-client')}` }))).toBe('confidential');
    expect(oauth.roleOf(request({ authorization: `Basic ${b64('stranger:s')}` }))).toBeUndefined();
  });

  it('another scheme is no Basic: the body names the client', () => {
    const { oauth } = flows();
    const form = 'grant_type=x&client_id=public-client';
    expect(oauth.roleOf(request({ authorization: `NotBasic ${b64('limited-client:s')}` }, form))).toBe('public');
    expect(oauth.roleOf(request({ authorization: 'Bearer abc' }, form))).toBe('public');
  });

  it('a JSON body: its client_id; malformed or without one, no application', () => {
    const { oauth } = flows();
    const json = { 'content-type': 'application/json; charset=utf-8' };
    expect(oauth.roleOf(request(json, '{"client_id":"limited-client"}'))).toBe('limited');
    expect(oauth.roleOf(request(json, '{"grant_type":"x"}'))).toBeUndefined();
    expect(oauth.roleOf(request(json, 'client_id=limited-client'))).toBeUndefined();
    expect(oauth.roleOf(request(json))).toBeUndefined();
  });

  it('a form body, or no content type at all: the client_id field', () => {
    const { oauth } = flows();
    expect(
      oauth.roleOf(request({ 'content-type': 'application/x-www-form-urlencoded' }, 'a=1&client_id=conf-client')),
    ).toBe('confidential');
    expect(oauth.roleOf(request({}, 'client_id=limited-client'))).toBe('limited');
    expect(oauth.roleOf(request({}, 'client_id=unknown-client'))).toBeUndefined();
    expect(oauth.roleOf(request({}))).toBeUndefined();
  });

  it('an application left undefined in the config is passed over; no applications, no role', () => {
    const sparse = flows({ applications: { limited: undefined, public: PUBLIC } }).oauth;
    expect(sparse.roleOf(request({}, 'client_id=public-client'))).toBe('public');
    expect(flows({}).oauth.roleOf(request({}, 'client_id=public-client'))).toBeUndefined();
  });
});
