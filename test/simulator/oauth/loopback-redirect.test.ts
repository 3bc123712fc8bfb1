/**
 * RFC 8252 §7.3: a native (public) application's registered loopback IP redirect URI matches a
 * request with any port, nothing else differing; a confidential application's matches exactly.
 */
import { describe, expect, it } from 'vitest';
import { createApplication } from '../../../simulator/oauth/accounts.js';
import { world } from './helpers.js';

const REGISTERED = [
  'http://127.0.0.1/cb',
  'http://[::1]:8080/native/cb?x=1',
  'https://127.0.0.1/secure',
  'http://localhost/cb',
];

// A public application must send a challenge; any well-formed one does to reach sign-in.
const PKCE = { code_challenge: 'c'.repeat(43), code_challenge_method: 'S256' };

describe('loopback redirect URIs (GRANT-REDIRECT-LOOPBACK-PORT)', () => {
  const w = world();
  const client = createApplication(w.sim, {
    name: 'native',
    redirectUris: REGISTERED,
    scopes: ['read_user'],
    confidential: false,
  });
  // A request the simulator accepts goes on to sign in; a refused redirect_uri stops on a 400 page.
  const accepted = async (redirectUri: string, clientId = client.uid) => {
    const res = await w
      .http()
      .get('/oauth/authorize')
      .query({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'read_user', ...PKCE });
    return res.status === 302 && /\/users\/sign_in/.test(res.headers.location);
  };

  it.each([
    ['http://127.0.0.1:49152/cb', true],
    ['http://127.0.0.1/cb', true],
    ['http://[::1]:1234/native/cb?x=1', true],
    ['http://[::1]/native/cb?x=1', true],
    ['http://127.0.0.1:49152/other', false],
    ['http://127.0.0.2:49152/cb', false],
    ['http://[::1]:1234/native/cb?x=2', false],
    // Only http loopback IP literals: not https, not the name localhost (RFC 8252 §8.3).
    ['https://127.0.0.1:8443/secure', false],
    ['http://localhost:8080/cb', false],
  ])('%s accepted: %s', async (uri, expected) => {
    expect(await accepted(uri)).toBe(expected);
  });

  // A confidential application is a server: its callback listens on the port it registered, and a
  // code sent to another port of the host goes to whatever else listens there.
  it.each([
    ['http://127.0.0.1:49152/cb', false],
    ['http://[::1]:1234/native/cb?x=1', false],
    ['http://[::1]/native/cb?x=1', false],
    ['http://127.0.0.1/cb', true],
    ['http://[::1]:8080/native/cb?x=1', true],
  ])("a confidential application's %s accepted: %s (exactly as registered)", async (uri, expected) => {
    const server = createApplication(w.sim, { name: 'web', redirectUris: REGISTERED, scopes: ['read_user'] });
    expect(await accepted(uri, server.uid)).toBe(expected);
  });

  it('compares the port again under the fault loopback-port-exact', async () => {
    const strict = world({ faults: ['loopback-port-exact'] });
    const app = createApplication(strict.sim, {
      name: 'native',
      redirectUris: REGISTERED,
      scopes: ['read_user'],
      confidential: false,
    });
    const res = await strict
      .http()
      .get('/oauth/authorize')
      .query({ client_id: app.uid, redirect_uri: 'http://127.0.0.1:49152/cb', response_type: 'code' });
    expect(res.status).toBe(400);
  });
});
