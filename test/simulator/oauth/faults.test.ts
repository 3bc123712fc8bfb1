/**
 * Every OAuth fault of spec/faults.yaml is a real deviation: its probe passes on a conformant
 * simulator and fails with the fault on. A fault without a probe fails here.
 */
import { createLocalJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { faults } from '../../../spec/index.js';
import { digest } from '../../../simulator/digest.js';
import { createApplication, seeded } from '../../../simulator/oauth/accounts.js';
import { L, app, code, consent, exchangeForm, pkcePair, signInRoot, tokens, world, type World } from './helpers.js';

const token = (w: World, form: Record<string, string>) => w.http().post('/oauth/token').type('form').send(form);
const info = (w: World, access: string) => w.http().get('/oauth/token/info').query({ access_token: access });
const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';

async function deviceStart(w: World) {
  const pub = app(w.sim, 'public');
  const { body } = await w.http().post('/oauth/authorize_device').type('form').send({ client_id: pub.uid });
  const poll = () => token(w, { grant_type: DEVICE, client_id: pub.uid, device_code: body.device_code });
  return { body, poll };
}

function refreshForm(w: World, refresh: string) {
  const a = app(w.sim, 'confidential');
  return { grant_type: 'refresh_token', client_id: a.uid, client_secret: a.secret, refresh_token: refresh };
}

/** true = conformant behaviour observed. */
const PROBES: Record<string, (w: World) => Promise<boolean>> = {
  'code-reusable': async (w) => {
    const c = await code(w, 'confidential');
    await token(w, exchangeForm(w, 'confidential', c.code));
    return (await token(w, exchangeForm(w, 'confidential', c.code))).status === 400;
  },
  'pkce-verifier-ignored': async (w) => {
    const c = await code(w, 'public');
    return (await token(w, exchangeForm(w, 'public', c.code, pkcePair().verifier))).body.error === 'invalid_grant';
  },
  'redirect-uri-unchecked': async (w) => {
    const c = await code(w, 'confidential');
    return (
      (await token(w, { ...exchangeForm(w, 'confidential', c.code), redirect_uri: 'https://client.test/other' })).body
        .error === 'invalid_grant'
    );
  },
  // RFC 8252 §7.3: a registered loopback redirect URI matches any port.
  'loopback-port-exact': async (w) => {
    const native = createApplication(w.sim, {
      name: 'native',
      redirectUris: ['http://127.0.0.1/cb'],
      scopes: ['api'],
      confidential: false,
    });
    const res = await w.browser
      .get('/oauth/authorize')
      .query({ client_id: native.uid, redirect_uri: 'http://127.0.0.1:49152/cb', response_type: 'code' });
    // Accepted: on to consent (signed in); refused: the 400 page of an unregistered redirect URI.
    return res.status !== 400;
  },
  'authorize-open-redirect': async (w) => {
    const a = app(w.sim, 'confidential');
    const res = await w.browser
      .get('/oauth/authorize')
      .query({ client_id: a.uid, redirect_uri: 'https://evil.test/cb', response_type: 'code' });
    return res.status === 400 && res.headers.location === undefined;
  },
  'scope-not-enforced': async (w) => {
    const a = app(w.sim, 'limited');
    const res = await w.browser
      .get('/oauth/authorize')
      .query({ client_id: a.uid, redirect_uri: a.redirectUris[0], response_type: 'code', scope: 'api' });
    return res.status === 302 && new URL(res.headers.location).searchParams.get('error') === 'invalid_scope';
  },
  'state-dropped': async (w) =>
    (await consent(w, 'confidential', { state: 'st' })).location.searchParams.get('state') === 'st',
  'refresh-token-reusable': async (w) => {
    const t = await tokens(w, 'confidential');
    await token(w, refreshForm(w, t.refresh_token));
    return (await token(w, refreshForm(w, t.refresh_token))).body.error === 'invalid_grant';
  },
  'refresh-scope-narrowed': async (w) => {
    const t = await tokens(w, 'confidential', { scope: 'api read_user' });
    const refreshed = await token(w, refreshForm(w, t.refresh_token));
    const scopes = (access: string) => w.sim.store.accessTokens.get(digest(access))?.scopes.join(' ');
    return scopes(refreshed.body.access_token) === scopes(t.access_token);
  },
  'old-access-token-valid': async (w) => {
    const t = await tokens(w, 'confidential');
    await token(w, refreshForm(w, t.refresh_token));
    return (await info(w, t.access_token)).status === 401;
  },
  'token-type-case': async (w) => (await tokens(w, 'confidential')).token_type === 'bearer',
  'token-cacheable': async (w) => {
    const c = await code(w, 'confidential');
    return (await token(w, exchangeForm(w, 'confidential', c.code))).headers['cache-control'] === 'no-store';
  },
  'token-error-cacheable': async (w) =>
    (await token(w, { grant_type: 'nope' })).headers['cache-control'] === 'no-store',
  'invalid-client-no-challenge': async (w) => {
    const res = await token(w, {
      grant_type: 'authorization_code',
      client_id: 'unknown',
      code: 'x',
      redirect_uri: 'https://x.test/',
    });
    return res.status === 401 && res.headers['www-authenticate'] !== undefined;
  },
  'password-grant-two-factor': async (w) => {
    const { twoFactorUser: u } = seeded(w.sim);
    return (
      (await token(w, { grant_type: 'password', username: u.username, password: u.password })).body.error ===
      'invalid_grant'
    );
  },
  'no-slow-down': async (w) => {
    const d = await deviceStart(w);
    await d.poll();
    return (await d.poll()).body.error === 'slow_down';
  },
  'device-code-never-expires': async (w) => {
    const d = await deviceStart(w);
    w.sim.clock.advance(L.deviceCodeLifetime);
    return (await d.poll()).body.error === 'expired_token';
  },
  'device-code-reusable': async (w) => {
    const d = await deviceStart(w);
    await w.http().post('/-/simulator/device/approve').send({ user_code: d.body.user_code });
    await d.poll();
    w.sim.clock.advance(L.deviceInterval);
    return (await d.poll()).body.error === 'invalid_grant';
  },
  'revoke-ignored': async (w) => {
    const t = await tokens(w, 'confidential');
    const a = app(w.sim, 'confidential');
    await w
      .http()
      .post('/oauth/revoke')
      .type('form')
      .send({ client_id: a.uid, client_secret: a.secret, token: t.access_token });
    return (await info(w, t.access_token)).status === 401;
  },
  'token-info-no-aliases': async (w) => {
    const body = (await info(w, (await tokens(w, 'confidential')).access_token)).body;
    return 'scopes' in body && 'expires_in_seconds' in body;
  },
  'cors-allows-x-requested-with': async (w) => {
    const res = await w.http().options('/oauth/token').set({
      origin: 'https://spa.test',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'x-requested-with',
    });
    return !/x-requested-with/i.test(res.headers['access-control-allow-headers'] ?? '');
  },
  'pkce-verifier-format-unchecked': async (w) => {
    // Too short but its own challenge: only the format check can refuse it.
    const c = await code(w, 'public', { verifier: 'short-verifier' });
    return (await token(w, exchangeForm(w, 'public', c.code, c.verifier))).body.error === 'invalid_grant';
  },
  'device-uri-complete-no-user-code': async (w) => {
    const { body } = await deviceStart(w);
    return new URL(body.verification_uri_complete).searchParams.get('user_code') === body.user_code;
  },
  'legacy-jwks-served': async (w) => (await w.http().get('/-/jwks')).status === 404,
  'discovery-no-rs256': async (w) =>
    (
      (await w.http().get('/.well-known/openid-configuration')).body as {
        id_token_signing_alg_values_supported: string[];
      }
    ).id_token_signing_alg_values_supported.includes('RS256'),
  'jwks-private-members': async (w) => {
    const { keys } = (await w.http().get('/oauth/discovery/keys')).body as { keys: Record<string, unknown>[] };
    return keys.length > 0 && keys.every((k) => !('d' in k) && !('p' in k));
  },
  'cors-no-preflight': async (w) => {
    const res = await w
      .http()
      .options('/oauth/token')
      .set({ origin: 'https://spa.test', 'access-control-request-method': 'POST' });
    return res.status === 204 && res.headers['access-control-allow-origin'] === '*';
  },
  'code-never-expires': async (w) => {
    const c = await code(w, 'confidential');
    w.sim.clock.advance(L.authorizationCodeLifetime);
    return (await token(w, exchangeForm(w, 'confidential', c.code))).body.error === 'invalid_grant';
  },
  'code-lifetime-long': async (w) => {
    const c = await code(w, 'confidential');
    w.sim.clock.advance(L.authorizationCodeLifetime + 1);
    return (await token(w, exchangeForm(w, 'confidential', c.code))).body.error === 'invalid_grant';
  },
  'password-client-credentials-setting-ignored': async (w) => {
    const { admin } = seeded(w.sim);
    await w.http().post('/-/simulator/settings').send({ passwordGrantClientCredentialsOnly: true });
    return (
      (await token(w, { grant_type: 'password', username: admin.username, password: admin.password })).body.error ===
      'invalid_client'
    );
  },
  'git-password-setting-ignored': async (w) => {
    const { admin } = seeded(w.sim);
    await w.http().post('/-/simulator/settings').send({ gitPasswordAuth: false });
    return (
      (await token(w, { grant_type: 'password', username: admin.username, password: admin.password })).body.error ===
      'invalid_grant'
    );
  },
  'token-info-expiry-never-null': async (w) => {
    const { access_token } = (
      await w
        .http()
        .post('/-/simulator/tokens')
        .send({ scopes: ['api'], expiresIn: null })
    ).body;
    const body = (await info(w, access_token)).body;
    return body.expires_in === null && body.expires_in_seconds === null;
  },
  'device-timings-doubled': async (w) => {
    const { body } = await deviceStart(w);
    return body.expires_in === L.deviceCodeLifetime && body.interval === L.deviceInterval;
  },
  'password-requires-client': async (w) => {
    const { admin } = seeded(w.sim);
    return (
      (await token(w, { grant_type: 'password', username: admin.username, password: admin.password })).status === 200
    );
  },
  'http-redirect-accepted': async (w) => {
    await w.http().post('/-/simulator/settings').send({ developmentMode: false });
    const res = await w
      .http()
      .post('/-/simulator/applications')
      .send({ name: 'plain http', redirectUri: 'http://app.test/cb', scopes: ['api'] });
    return res.status === 400;
  },
  'token-info-expires-in-frozen': async (w) => {
    const t = await tokens(w, 'confidential');
    w.sim.clock.advance(60);
    return (await info(w, t.access_token)).body.expires_in === L.accessTokenLifetime - 60;
  },
  'id-token-unpublished-key': async (w) => {
    const t = await tokens(w, 'confidential', { scope: 'openid' });
    const keys = (await w.http().get('/oauth/discovery/keys')).body;
    try {
      await jwtVerify(t.id_token!, createLocalJWKSet(keys), { currentDate: new Date(w.sim.clock.now()) });
      return true;
    } catch {
      return false;
    }
  },
};

const oauthFaults = faults().filter((f) => f.side === 'oauth');

describe('OAuth faults', () => {
  it('there are at least 12', () => {
    expect(oauthFaults.length).toBeGreaterThanOrEqual(12);
  });

  it.each(oauthFaults.map((f) => [f.name]))('%s deviates from the rules it names, and only when on', async (name) => {
    const probe = PROBES[name];
    if (!probe) throw new Error(`no probe for fault ${name}`);
    const clean = world();
    await signInRoot(clean);
    expect(await probe(clean)).toBe(true);
    const broken = world({ faults: [name] });
    await signInRoot(broken);
    expect(await probe(broken)).toBe(false);
  });
});
