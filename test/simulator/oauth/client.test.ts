/**
 * A real OAuth client library (oauth4webapi) against the simulator over real HTTP on 127.0.0.1:
 * authorization code with PKCE approved through the HTML forms with a cookie jar, refresh, the
 * device flow approved through the control API, revocation, and the id_token verified against
 * the published keys.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { CookieJar } from 'tough-cookie';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../../../simulator/core.js';
import { serve, type Served } from '../../../simulator/adapters/node.js';
import type { TargetConfig } from '../../../suites/types.js';
import { formFields } from './helpers.js';

const insecure = { [oauth.allowInsecureRequests]: true };

let served: Served;
let config: TargetConfig;
let as: oauth.AuthorizationServer;

beforeAll(async () => {
  served = await serve(createSimulator());
  config = (await (await fetch(`${served.url}/-/simulator/config`)).json()) as TargetConfig;
  const issuer = new URL(config.issuer!);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }),
  );
});

afterAll(() => served.close());

/** A browser: a cookie jar and no automatic redirects (the test reads each Location). */
function browser() {
  const jar = new CookieJar();
  return async (url: string, init: { method?: string; form?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { cookie: await jar.getCookieString(url) };
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, {
      method: init.method ?? 'GET',
      headers,
      body: init.form ? new URLSearchParams(init.form) : undefined,
      redirect: 'manual',
    });
    for (const cookie of res.headers.getSetCookie()) await jar.setCookie(cookie, url);
    return res;
  };
}

describe('oauth4webapi against the simulator', () => {
  it('discovers the issuer', () => {
    expect(as.issuer).toBe(served.url);
    expect(as.token_endpoint).toBe(`${served.url}/oauth/token`);
  });

  it('authorization code with PKCE through the HTML forms, refresh, userinfo, id_token, revocation', async () => {
    const pub = config.applications!.public!;
    const client: oauth.Client = { client_id: pub.clientId };
    const clientAuth = oauth.None();
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: pub.clientId,
      redirect_uri: pub.redirectUri,
      response_type: 'code',
      scope: 'openid api',
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();

    // The browser: authorize → sign in → back to authorize → consent → redirect with the code.
    const go = browser();
    let res = await go(url.href);
    expect(res.status).toBe(302);
    const signInUrl = new URL(res.headers.get('location')!, served.url).href;
    const signInPage = await (await go(signInUrl)).text();
    res = await go(`${served.url}/users/sign_in`, {
      method: 'POST',
      form: {
        ...formFields(signInPage, 'sign-in'),
        'user[login]': config.user!.username,
        'user[password]': config.user!.password,
      },
    });
    expect(res.status).toBe(302);
    const consentPage = await (await go(new URL(res.headers.get('location')!, served.url).href)).text();
    res = await go(`${served.url}/oauth/authorize`, {
      method: 'POST',
      form: { ...formFields(consentPage, 'consent'), decision: 'approve' },
    });
    expect(res.status).toBe(302);
    const callback = new URL(res.headers.get('location')!);

    const params = oauth.validateAuthResponse(as, client, callback, state);
    const codeResponse = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      pub.redirectUri,
      verifier,
      insecure,
    );
    const result = await oauth.processAuthorizationCodeResponse(as, client, codeResponse, {
      expectedNonce: nonce,
      requireIdToken: true,
    });
    expect(result.token_type).toBe('bearer');
    await oauth.validateApplicationLevelSignature(as, codeResponse, insecure);
    const claims = oauth.getValidatedIdTokenClaims(result)!;
    expect(claims.aud).toBe(pub.clientId);
    // The same check with jose, fetching the key set from jwks_uri.
    const { payload } = await jwtVerify(result.id_token!, createRemoteJWKSet(new URL(as.jwks_uri!)), {
      issuer: as.issuer,
      audience: pub.clientId,
    });
    expect(payload.sub).toBe(claims.sub);

    const userinfo = await oauth.processUserInfoResponse(
      as,
      client,
      claims.sub,
      await oauth.userInfoRequest(as, client, result.access_token, insecure),
    );
    expect(userinfo.preferred_username).toBe(config.user!.username);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, result.refresh_token!, insecure),
    );
    expect(refreshed.access_token).not.toBe(result.access_token);
    const old = await fetch(`${served.url}/oauth/token/info`, {
      headers: { authorization: `Bearer ${result.access_token}` },
    });
    expect(old.status).toBe(401);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, refreshed.access_token, insecure),
    );
    const revoked = await fetch(`${served.url}/oauth/token/info`, {
      headers: { authorization: `Bearer ${refreshed.access_token}` },
    });
    expect(revoked.status).toBe(401);
  });

  it('device flow: approved through the control API, polled with the clock moved by the interval', async () => {
    const pub = config.applications!.public!;
    const client: oauth.Client = { client_id: pub.clientId };
    const clientAuth = oauth.None();
    const device = await oauth.processDeviceAuthorizationResponse(
      as,
      client,
      await oauth.deviceAuthorizationRequest(as, client, clientAuth, new URLSearchParams({ scope: 'api' }), insecure),
    );
    const poll = async () =>
      oauth.processDeviceCodeResponse(
        as,
        client,
        await oauth.deviceCodeGrantRequest(as, client, clientAuth, device.device_code, insecure),
      );
    await expect(poll()).rejects.toMatchObject({ error: 'authorization_pending' });
    const approve = await fetch(`${served.url}/-/simulator/device/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user_code: device.user_code }),
    });
    expect(approve.status).toBe(200);
    await fetch(`${served.url}/-/simulator/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceSeconds: device.interval }),
    });
    const result = await poll();
    expect(result.token_type).toBe('bearer'); // oauth4webapi normalizes the case; the wire says Bearer
    expect(result.scope).toBe('api');
    const me = await fetch(`${served.url}/oauth/token/info`, {
      headers: { authorization: `Bearer ${result.access_token}` },
    });
    expect(me.status).toBe(200);
  });
});
