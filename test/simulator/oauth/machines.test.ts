/**
 * Every row of every table in spec/machines, driven through the real endpoints: reach the row's
 * state, make its condition true, fire its trigger, then compare the answer and the next state
 * with the row. A row without a scenario fails, so a table change cannot go untested.
 */
import { describe, expect, it } from 'vitest';
import { machine, type MachineRow } from '../../../spec/index.js';
import type { AccessToken, AuthorizationCode, DeviceCode, RefreshToken } from '../../../simulator/store.js';
import { tokenExpired } from '../../../simulator/credentials.js';
import { refreshState } from '../../../simulator/oauth/tokens.js';
import { seeded } from '../../../simulator/oauth/accounts.js';
import { L, app, code, exchangeForm, formFields, pkcePair, signInRoot, tokens, world, type World } from './helpers.js';
import { digest } from '../../../simulator/digest.js';
import { deviceByCode } from '../../../simulator/oauth/device.js';

/** A stored token record (kept by digest) with the value a client presents. */
type WithValue<T> = T & { token: string };
function withValue<T extends object>(record: T, token: string): WithValue<T> {
  return Object.assign(Object.create(record) as T, { token });
}

interface Seen {
  status: number;
  error?: string;
  body?: Record<string, unknown>;
  page?: string;
}

interface Harness<T> {
  reach(state: string, row: MachineRow): Promise<T>;
  fire(t: T, row: MachineRow): Promise<Seen>;
  state(t: T): string;
}

/** Fields of each success body a table names. */
const BODIES: Record<string, (body: Record<string, unknown>) => void> = {
  AuthorizationCodeTokenResponse: (b) => {
    expect(Object.keys(b).sort()).toEqual(['access_token', 'created_at', 'expires_in', 'refresh_token', 'token_type']);
    expect(b.token_type).toBe('bearer');
  },
  RefreshTokenResponse: (b) => {
    expect(Object.keys(b).sort()).toEqual(['access_token', 'created_at', 'expires_in', 'refresh_token', 'token_type']);
    expect(b.token_type).toBe('bearer');
  },
  DeviceTokenResponse: (b) => {
    expect(Object.keys(b).sort()).toEqual(['access_token', 'created_at', 'expires_in', 'scope', 'token_type']);
    expect(b.token_type).toBe('Bearer');
    expect(b.expires_in).toBe(L.accessTokenLifetime);
  },
  RevokeResponse: (b) => expect(b).toEqual({}),
};

const noScenario = (row: MachineRow): never => {
  throw new Error(`no test scenario for row ${row.state} / ${row.trigger} / ${row.condition}`);
};

function seen(res: { status: number; body: any; text: string; headers: Record<string, string> }): Seen {
  const type = res.headers['content-type'] ?? '';
  if (type.startsWith('text/html')) return { status: res.status, page: /data-page="([^"]+)"/.exec(res.text)?.[1] };
  if (res.status >= 400) return { status: res.status, error: res.body?.error };
  return { status: res.status, body: res.body };
}

function tableTests<T>(name: string, make: () => Promise<{ h: Harness<T> }>) {
  describe(`machine ${name}`, () => {
    const rows = machine(name).rows;
    it.each(rows.map((r) => [`${r.state} --${r.trigger}[${r.condition}]--> ${r.next}`, r] as const))(
      '%s',
      async (_label, row) => {
        const { h } = await make();
        const t = await h.reach(row.state, row);
        const answer = await h.fire(t, row);
        expect(answer.status).toBe(row.result.status);
        if (row.result.error) expect(answer.error).toBe(row.result.error);
        if (row.result.page) expect(answer.page).toBe(row.result.page);
        if (row.result.body) {
          const check = BODIES[row.result.body];
          if (!check) throw new Error(`no body check for ${row.result.body}`);
          check(answer.body!);
        }
        expect(h.state(t)).toBe(row.next);
      },
    );
  });
}

// ------------------------------------------------------------------ device authorization
tableTests('device-authorization', async () => {
  const w = world();
  await signInRoot(w);
  const pub = app(w.sim, 'public');
  const poll = (d: D) =>
    w.http().post('/oauth/token').type('form').send({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      client_id: pub.uid,
      device_code: d.deviceCode,
    });
  const decide = async (d: D, decision: string) => {
    const page = await w.browser.get('/oauth/device').query({ user_code: d.userCode });
    return w.browser
      .post('/oauth/device')
      .type('form')
      .send({ ...formFields(page.text, 'device'), user_code: d.userCode, decision });
  };
  /** The stored record and the codes the response showed (the store keeps only their digests). */
  type D = { record: DeviceCode; deviceCode: string; userCode: string };
  const wait = () => w.sim.clock.advance(L.deviceInterval);
  const h: Harness<D> = {
    async reach(state) {
      const res = await w
        .http()
        .post('/oauth/authorize_device')
        .type('form')
        .send({ client_id: pub.uid, scope: 'api' });
      const d: D = {
        record: deviceByCode(w.sim, res.body.device_code)!,
        deviceCode: res.body.device_code,
        userCode: res.body.user_code,
      };
      if (state === 'pending') return d;
      if (state === 'authorized' || state === 'consumed') await decide(d, 'approve');
      if (state === 'denied') await decide(d, 'deny');
      if (state === 'consumed') await poll(d);
      if (state === 'expired') {
        w.sim.clock.advance(L.deviceCodeLifetime);
        await poll(d);
      }
      expect(d.record.state).toBe(state);
      return d;
    },
    async fire(d, row) {
      if (row.condition === 'code_expired') w.sim.clock.advance(L.deviceCodeLifetime);
      else if (row.condition === 'too_fast') {
        wait();
        await poll(d);
      } else if (row.condition === 'otherwise') wait();
      else noScenario(row);
      if (row.trigger === 'poll') return seen(await poll(d));
      if (row.trigger === 'approve' || row.trigger === 'deny') return seen(await decide(d, row.trigger));
      return noScenario(row);
    },
    state: (d) => d.record.state,
  };
  return { h };
});

// ------------------------------------------------------------------ authorization code
tableTests('authorization-code', async () => {
  const w = world();
  await signInRoot(w);
  const exchange = (form: Record<string, string>) => w.http().post('/oauth/token').type('form').send(form);
  type C = { record: AuthorizationCode; form: Record<string, string> };
  const h: Harness<C> = {
    async reach(state) {
      const c = await code(w, 'confidential', { pkce: true });
      const t = {
        record: w.sim.store.codes.get(digest(c.code))!,
        form: exchangeForm(w, 'confidential', c.code, c.verifier),
      };
      if (state === 'exchanged' || state === 'reused') await exchange(t.form);
      if (state === 'reused') await exchange(t.form);
      if (state === 'expired') {
        w.sim.clock.advance(L.authorizationCodeLifetime);
        await exchange(t.form);
      }
      expect(t.record.state ?? 'issued').toBe(state);
      return t;
    },
    async fire(t, row) {
      const form = { ...t.form };
      const limited = app(w.sim, 'limited');
      switch (row.condition) {
        case 'client_auth_failed':
          form.client_secret = 'wrong';
          break;
        case 'client_mismatch':
          Object.assign(form, { client_id: limited.uid, client_secret: limited.secret });
          break;
        case 'code_expired':
          w.sim.clock.advance(L.authorizationCodeLifetime);
          break;
        case 'redirect_uri_mismatch':
          form.redirect_uri = 'https://client.test/elsewhere';
          break;
        case 'verifier_missing':
          delete form.code_verifier;
          break;
        case 'verifier_malformed':
          form.code_verifier = 'short';
          break;
        case 'verifier_mismatch':
          form.code_verifier = pkcePair().verifier;
          break;
        case 'otherwise':
          break;
        default:
          noScenario(row);
      }
      if (row.trigger !== 'exchange') noScenario(row);
      return seen(await exchange(form));
    },
    state: (t) => t.record.state ?? 'issued',
  };
  return { h };
});

// ------------------------------------------------------------------ refresh token
function clientForm(w: World, condition: string, row: MachineRow): Record<string, string> {
  const conf = app(w.sim, 'confidential');
  const limited = app(w.sim, 'limited');
  if (condition === 'client_auth_failed') return { client_id: conf.uid, client_secret: 'wrong' };
  if (condition === 'client_mismatch') return { client_id: limited.uid, client_secret: limited.secret };
  if (condition === 'otherwise') return { client_id: conf.uid, client_secret: conf.secret };
  return noScenario(row);
}

tableTests('token-refresh', async () => {
  const w = world();
  await signInRoot(w);
  const conf = app(w.sim, 'confidential');
  const refresh = (
    token: string,
    client: Record<string, string> = { client_id: conf.uid, client_secret: conf.secret },
  ) =>
    w
      .http()
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: token, ...client });
  const revoke = (
    token: string,
    client: Record<string, string> = { client_id: conf.uid, client_secret: conf.secret },
  ) =>
    w
      .http()
      .post('/oauth/revoke')
      .type('form')
      .send({ token, ...client });
  const h: Harness<WithValue<RefreshToken>> = {
    async reach(state) {
      const t = await tokens(w, 'confidential');
      if (state === 'rotated') await refresh(t.refresh_token);
      if (state === 'revoked') await revoke(t.refresh_token);
      const record = w.sim.store.refreshTokens.get(digest(t.refresh_token))!;
      expect(refreshState(record)).toBe(state);
      return withValue(record, t.refresh_token);
    },
    async fire(r, row) {
      const client = clientForm(w, row.condition, row);
      if (row.trigger === 'refresh') return seen(await refresh(r.token, client));
      if (row.trigger === 'revoke') return seen(await revoke(r.token, client));
      return noScenario(row);
    },
    state: (r) => refreshState(r),
  };
  return { h };
});

// ------------------------------------------------------------------ revocation (of an access token)
tableTests('revocation', async () => {
  const w = world();
  await signInRoot(w);
  const conf = app(w.sim, 'confidential');
  const revoke = (token: string, client: Record<string, string>) =>
    w
      .http()
      .post('/oauth/revoke')
      .type('form')
      .send({ token, ...client });
  const h: Harness<WithValue<AccessToken>> = {
    async reach(state) {
      const t = await tokens(w, 'confidential');
      if (state === 'revoked') await revoke(t.access_token, { client_id: conf.uid, client_secret: conf.secret });
      return withValue(w.sim.store.accessTokens.get(digest(t.access_token))!, t.access_token);
    },
    async fire(a, row) {
      if (row.trigger === 'revoke') return seen(await revoke(a.token, clientForm(w, row.condition, row)));
      if (row.trigger === 'use' && row.condition === 'otherwise')
        return seen(await w.http().get('/oauth/token/info').set('authorization', `Bearer ${a.token}`));
      return noScenario(row);
    },
    state: (a) => (a.revokedAt === null ? 'live' : 'revoked'),
  };
  return { h };
});

// ------------------------------------------------------------------ access token
tableTests('access-token', async () => {
  const w = world();
  await signInRoot(w);
  const conf = app(w.sim, 'confidential');
  const confClient = { client_id: conf.uid, client_secret: conf.secret };
  type A = { access: WithValue<AccessToken>; refresh: string };
  const stateOf = (a: A): string => {
    if (a.access.revokedAt !== null)
      return w.sim.store.refreshTokens.get(digest(a.refresh))!.state === 'rotated' ? 'superseded' : 'revoked';
    return tokenExpired(w.sim, a.access) ? 'expired' : 'active';
  };
  const h: Harness<A> = {
    async reach(state, row) {
      // /oauth/userinfo needs openid: a token without it plays "scope_insufficient".
      const t = await tokens(w, 'confidential', {
        scope: row.condition === 'scope_insufficient' ? 'api' : 'api openid',
      });
      const a = {
        access: withValue(w.sim.store.accessTokens.get(digest(t.access_token))!, t.access_token),
        refresh: t.refresh_token,
      };
      if (state === 'expired') w.sim.clock.advance(L.accessTokenLifetime);
      if (state === 'revoked')
        await w
          .http()
          .post('/oauth/revoke')
          .type('form')
          .send({ token: t.access_token, ...confClient });
      if (state === 'superseded')
        await w
          .http()
          .post('/oauth/token')
          .type('form')
          .send({ grant_type: 'refresh_token', refresh_token: t.refresh_token, ...confClient });
      expect(stateOf(a)).toBe(state);
      return a;
    },
    async fire(a, row) {
      if (row.condition === 'token_expired') w.sim.clock.advance(L.accessTokenLifetime);
      if (row.trigger === 'use') {
        if (!['token_expired', 'scope_insufficient', 'otherwise'].includes(row.condition)) noScenario(row);
        return seen(await w.http().get('/oauth/userinfo').set('authorization', `Bearer ${a.access.token}`));
      }
      if (row.trigger === 'revoke')
        return seen(
          await w
            .http()
            .post('/oauth/revoke')
            .type('form')
            .send({ token: a.access.token, ...clientForm(w, row.condition, row) }),
        );
      if (row.trigger === 'rotate' && row.condition === 'otherwise') {
        return seen(
          await w
            .http()
            .post('/oauth/token')
            .type('form')
            .send({ grant_type: 'refresh_token', refresh_token: a.refresh, ...confClient }),
        );
      }
      return noScenario(row);
    },
    state: stateOf,
  };
  return { h };
});

describe('control API drives the device machine too', () => {
  it('approves by user code and reports the state', async () => {
    const w = world();
    const pub = app(w.sim, 'public');
    const start = await w.http().post('/oauth/authorize_device').type('form').send({ client_id: pub.uid });
    const ok = await w
      .http()
      .post('/-/simulator/device/approve')
      .send({ user_code: start.body.user_code.toLowerCase() });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ state: 'authorized', result: 'device_approved' });
    const again = await w.http().post('/-/simulator/device/deny').send({ user_code: start.body.user_code });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ state: 'authorized', result: 'device_code_used' });
    expect(deviceByCode(w.sim, start.body.device_code)!.userId).toBe(seeded(w.sim).admin.id);
  });
});
