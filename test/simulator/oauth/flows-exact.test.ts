/**
 * The token endpoint's grant handlers (simulator/oauth/grants/) pinned to exact refusals, one
 * input changed at a time: each problem's error code, status and description.
 */
import { describe, expect, it } from 'vitest';
import { seeded } from '../../../simulator/oauth/accounts.js';
import { app, world, type World } from './helpers.js';

type Res = { status: number; body: any };

function expectError(res: Res, error: string, description: string, status = 400) {
  expect(res.body, JSON.stringify(res.body)).toEqual({ error, error_description: description });
  expect(res.status).toBe(status);
}

const token = (w: World, form: Record<string, string>) => w.http().post('/oauth/token').type('form').send(form);

function confidential(w: World) {
  const a = app(w.sim, 'confidential');
  return { client_id: a.uid, client_secret: a.secret };
}

function password(w: World, who: 'admin' | 'twoFactorUser', extra: Record<string, string> = {}) {
  const user = seeded(w.sim)[who];
  return token(w, { grant_type: 'password', username: user.username, password: user.password, ...extra });
}

describe('password grant', () => {
  it('a wrong password is invalid_grant, and the right one gets a token', async () => {
    const w = world();
    expectError(
      await password(w, 'admin', { password: 'not-the-password' }),
      'invalid_grant',
      'Invalid username or password',
    );
    expect((await password(w, 'admin')).status).toBe(200);
  });

  it('a user with two-factor authentication is sent to personal access tokens', async () => {
    expectError(
      await password(world(), 'twoFactorUser'),
      'invalid_grant',
      'Two-factor authentication is enabled for this user: use a personal access token',
    );
  });

  it('a public application may not use it', async () => {
    const w = world();
    expectError(
      await password(w, 'admin', { client_id: app(w.sim, 'public').uid }),
      'unauthorized_client',
      'A public application may not use the password grant',
    );
  });

  it('with password authentication for Git off it is refused, credentials right or not', async () => {
    const w = world({ settings: { gitPasswordAuth: false } });
    expectError(await password(w, 'admin'), 'invalid_grant', 'Password authentication is disabled on this instance');
  });

  it('with "client credentials only" on, a request without a client is invalid_client', async () => {
    const w = world({ settings: { passwordGrantClientCredentialsOnly: true } });
    expectError(
      await password(w, 'admin'),
      'invalid_client',
      'The password grant requires client authentication (HTTP Basic client_id:client_secret)',
      401,
    );
    expect((await password(w, 'admin', confidential(w))).status).toBe(200);
  });
});

describe('device code grant', () => {
  const grant = 'urn:ietf:params:oauth:grant-type:device_code';

  it('an unknown device code is invalid_grant', async () => {
    const w = world();
    expectError(
      await token(w, { grant_type: grant, device_code: 'no-such-code', ...confidential(w) }),
      'invalid_grant',
      'The device code is invalid',
    );
  });

  it('a device code presented by another client is invalid_grant', async () => {
    const w = world();
    const issued = await w.http().post('/oauth/authorize_device').type('form').send(confidential(w));
    expect(issued.status).toBe(200);
    const limited = app(w.sim, 'limited');
    expectError(
      await token(w, {
        grant_type: grant,
        device_code: issued.body.device_code,
        client_id: limited.uid,
        client_secret: limited.secret,
      }),
      'invalid_grant',
      'The device code was issued to another client',
    );
  });
});

describe('authorization code and refresh token grants', () => {
  it('an unknown code or refresh token is invalid_grant', async () => {
    const w = world();
    expectError(
      await token(w, { grant_type: 'authorization_code', code: 'no-such-code', ...confidential(w) }),
      'invalid_grant',
      'The authorization code is invalid',
    );
    expectError(
      await token(w, { grant_type: 'refresh_token', refresh_token: 'no-such-token', ...confidential(w) }),
      'invalid_grant',
      'The refresh token is invalid',
    );
  });
});
