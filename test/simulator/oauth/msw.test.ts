/** The msw adapter: a client runs against the simulator with no server listening anywhere. */
import { setupServer } from 'msw/node';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../../../simulator/core.js';
import { simulatorHandlers } from '../../../simulator/msw.js';
import type { TargetConfig } from '../../../suites/types.js';

const BASE = 'http://idp.test';
const insecure = { [oauth.allowInsecureRequests]: true };
const sim = createSimulator();
const server = setupServer(...simulatorHandlers(sim, BASE));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

describe('msw handlers', () => {
  it('serve discovery, the password grant, the device flow and token info to an unmodified client', async () => {
    const config = (await (await fetch(`${BASE}/-/simulator/config`)).json()) as TargetConfig;
    expect(config.baseUrl).toBe(BASE);
    const issuer = new URL(BASE);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }),
    );
    expect(as.token_endpoint).toBe(`${BASE}/oauth/token`);

    const conf = config.applications!.confidential!;
    const client: oauth.Client = { client_id: conf.clientId };
    const response = await oauth.genericTokenEndpointRequest(
      as,
      client,
      oauth.ClientSecretBasic(conf.clientSecret!),
      'password',
      new URLSearchParams({ username: config.user!.username, password: config.user!.password, scope: 'read_user' }),
      insecure,
    );
    const token = await oauth.processGenericTokenEndpointResponse(as, client, response);
    expect(token.refresh_token).toBeUndefined();

    const info = await fetch(`${BASE}/oauth/token/info`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ scope: ['read_user'], application: { uid: conf.clientId } });

    const pub = config.applications!.public!;
    const publicClient: oauth.Client = { client_id: pub.clientId };
    const device = await oauth.processDeviceAuthorizationResponse(
      as,
      publicClient,
      await oauth.deviceAuthorizationRequest(as, publicClient, oauth.None(), new URLSearchParams(), insecure),
    );
    expect(device.verification_uri).toBe(`${BASE}/oauth/device`);
  });

  it('fails for a host the handlers do not cover (nothing else answers)', async () => {
    await expect(fetch('http://elsewhere.test/oauth/token')).rejects.toThrow();
  });
});
