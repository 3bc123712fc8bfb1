/** Responses conform to the schemas of spec/openapi.yaml (one source for both sides). */
import { createAjv } from '../../../spec/ajv.js';
import { describe, expect, it } from 'vitest';
import { openapi, targetConfigSchema } from '../../../spec/index.js';
import { seeded } from '../../../simulator/oauth/accounts.js';
import { app, signInRoot, tokens, world } from './helpers.js';

const ajv = createAjv({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'openapi', components: openapi().components }, 'openapi');

function conforms(name: string, body: unknown) {
  const validate = ajv.getSchema(`openapi#/components/schemas/${name}`)!;
  expect(validate, `schema ${name}`).toBeDefined();
  const ok = validate(body);
  expect(ok, `${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`).toBe(true);
}

describe('responses match spec/openapi.yaml schemas', () => {
  it('token responses of every grant, the device authorization response, errors and revocation', async () => {
    const w = world();
    await signInRoot(w);
    const code = await tokens(w, 'confidential', { scope: 'openid api' });
    conforms('AuthorizationCodeTokenResponse', code);
    conforms('TokenResponse', code);
    const userinfo = await w.http().get('/oauth/userinfo').set('authorization', `Bearer ${code.access_token}`);
    conforms('UserInfo', userinfo.body);
    const a = app(w.sim, 'confidential');
    const refreshed = await w.http().post('/oauth/token').type('form').send({
      grant_type: 'refresh_token',
      client_id: a.uid,
      client_secret: a.secret,
      refresh_token: code.refresh_token,
    });
    conforms('RefreshTokenResponse', refreshed.body);
    const { admin } = seeded(w.sim);
    const pw = await w
      .http()
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'password', username: admin.username, password: admin.password });
    conforms('PasswordTokenResponse', pw.body);
    const pub = app(w.sim, 'public');
    const device = await w.http().post('/oauth/authorize_device').type('form').send({ client_id: pub.uid });
    conforms('DeviceAuthorizationResponse', device.body);
    const pending = await w.http().post('/oauth/token').type('form').send({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      client_id: pub.uid,
      device_code: device.body.device_code,
    });
    conforms('OAuthError', pending.body);
    await w.http().post('/-/simulator/device/approve').send({ user_code: device.body.user_code });
    w.sim.clock.advance(device.body.interval);
    const deviceToken = await w.http().post('/oauth/token').type('form').send({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      client_id: pub.uid,
      device_code: device.body.device_code,
    });
    conforms('DeviceTokenResponse', deviceToken.body);
    const revoke = await w
      .http()
      .post('/oauth/revoke')
      .type('form')
      .send({ client_id: a.uid, client_secret: a.secret, token: refreshed.body.access_token });
    conforms('RevokeResponse', revoke.body);
    const info = await w.http().get('/oauth/token/info').query({ access_token: deviceToken.body.access_token });
    conforms('TokenInfo', info.body);
  });

  it('discovery, keys and the control API', async () => {
    const w = world();
    conforms('OpenIdConfiguration', (await w.http().get('/.well-known/openid-configuration')).body);
    conforms('Jwks', (await w.http().get('/oauth/discovery/keys')).body);
    conforms('SimulatorOk', (await w.http().post('/-/simulator/reset').set('content-type', 'application/json')).body);
    conforms('SimulatorClock', (await w.http().post('/-/simulator/clock').send({ advanceSeconds: 1 })).body);
    conforms('SimulatorStats', (await w.http().get('/-/simulator/stats')).body);
    conforms(
      'SimulatorApplication',
      (
        await w
          .http()
          .post('/-/simulator/applications')
          .send({ name: 'a', redirectUri: 'https://a.test/cb', scopes: ['api'] })
      ).body,
    );
    conforms('User', (await w.http().post('/-/simulator/users').send({ username: 'u1', password: 'pw' })).body);
    const pub = app(w.sim, 'public');
    const device = await w.http().post('/oauth/authorize_device').type('form').send({ client_id: pub.uid });
    conforms(
      'SimulatorOk',
      (await w.http().post('/-/simulator/device/approve').send({ user_code: device.body.user_code })).body,
    );
  });

  it("GET /-/simulator/config matches the published target-config schema (fixtures are API-SIM's)", async () => {
    const w = world();
    const config = (await w.http().get('/-/simulator/config')).body;
    const validate = ajv.compile({ ...targetConfigSchema(), $id: undefined, $schema: undefined });
    const ok = validate({ ...config, fixtures: {} });
    expect(ok, ajv.errorsText(validate.errors)).toBe(true);
  });
});
