/**
 * The simulator control API under /-/simulator/ (DESIGN.md): what a person cannot do quickly in a
 * test. JSON in and out; a bad body throws a ControlError, answered 400 `{message}` by core.ts. simCreateProject belongs to the
 * REST side (simulator/api).
 */
import { ControlError } from '../errors.js';
import { json } from '../http.js';
import type { Handler } from '../types.js';
import { userByLogin } from '../store.js';
import { tokenExpired } from '../credentials.js';
import { createApplication, createUser, seeded } from '../oauth/accounts.js';
import { deviceByUserCode, fireDevice, normalizeUserCode } from '../oauth/device.js';
import { unknownScopes } from '../oauth/scopes.js';
import { mintTokens, refreshState } from '../oauth/tokens.js';
import { MOST_HELD, storeSizes } from '../evict.js';
import { limits } from '../../spec/index.js';
import { bool, controlBody, list, str } from './body.js';
import { targetConfig } from './config.js';
import { applySettings, currentSettings, settingChanges } from './settings.js';

/** Every secret of the simulator: no cache (a browser's, a shared one) may keep it. */
export const simConfig: Handler = (ctx) =>
  json(200, targetConfig(ctx.sim, ctx.origin), { 'cache-control': 'no-store' });

export const simReset: Handler = async (ctx) => {
  await controlBody(ctx); // an unreadable body is a 400 even here
  ctx.sim.reset();
  return json(200, { ok: true });
};

export const simClock: Handler = async (ctx) => {
  const body = await controlBody(ctx);
  const seconds = typeof body.advanceSeconds === 'string' ? Number(body.advanceSeconds) : body.advanceSeconds;
  if (typeof seconds !== 'number') throw new ControlError('advanceSeconds must be a non-negative number');
  const refusal = ctx.sim.clock.advanceRefusal(seconds);
  if (refusal) throw new ControlError(refusal);
  ctx.sim.clock.advance(seconds);
  return json(200, { now: ctx.sim.clock.nowSeconds() });
};

function deviceDecision(trigger: 'approve' | 'deny'): Handler {
  return async (ctx) => {
    const body = await controlBody(ctx);
    const userCode = str(body, 'user_code');
    if (!userCode) throw new ControlError('user_code is required');
    const username = str(body, 'username');
    const user = username ? userByLogin(ctx.sim.store, username) : seeded(ctx.sim).admin;
    if (!user) throw new ControlError(`no user ${username}`, 404);
    const record = deviceByUserCode(ctx.sim, userCode);
    if (!record) throw new ControlError('no device authorization has this user_code', 404);
    const row = await fireDevice({ sim: ctx.sim, record, user }, trigger);
    const ok = row.result.status < 400;
    return json(row.result.status, {
      ok,
      user_code: normalizeUserCode(userCode),
      state: record.state,
      result: row.result.page ?? null,
    });
  };
}

export const simDeviceApprove = deviceDecision('approve');
export const simDeviceDeny = deviceDecision('deny');

export const simCreateApplication: Handler = async (ctx) => {
  const body = await controlBody(ctx);
  const single = str(body, 'redirectUri');
  const app = createApplication(ctx.sim, {
    name: str(body, 'name') ?? '',
    redirectUris: list(body, 'redirectUris') ?? (single ? [single] : []),
    scopes: list(body, 'scopes') ?? [],
    confidential: bool(body, 'confidential'),
    ownerId: seeded(ctx.sim).admin.id,
  });
  return json(201, {
    id: app.id,
    name: app.name,
    clientId: app.uid,
    clientSecret: app.secret,
    redirectUri: app.redirectUris[0],
    redirectUris: app.redirectUris,
    scopes: app.scopes,
    confidential: app.confidential,
  });
};

export const simCreateUser: Handler = async (ctx) => {
  const body = await controlBody(ctx);
  const user = createUser(ctx.sim, {
    username: str(body, 'username') ?? '',
    password: str(body, 'password'),
    name: str(body, 'name'),
    email: str(body, 'email'),
    admin: bool(body, 'admin'),
    twoFactor: bool(body, 'twoFactor'),
  });
  const groups = list(body, 'groups');
  if (groups) user.groups = groups;
  // The REST User shape (spec/openapi.yaml `User`) plus what a test needs to sign in.
  return json(201, {
    id: user.id,
    username: user.username,
    name: user.name,
    state: 'active',
    email: user.email,
    two_factor_enabled: user.twoFactor,
    is_admin: user.admin,
    groups: user.groups ?? [],
    password: user.password,
  });
};

/** Live counts: what is still usable right now; `stored`: what the store holds, evicted or not yet. */
export const simStats: Handler = (ctx) => {
  const { sim } = ctx;
  const { store } = sim;
  const count = <T>(items: Iterable<T>, alive: (item: T) => boolean) => [...items].filter(alive).length;
  const now = sim.clock.nowSeconds();
  return json(200, {
    users: store.users.size,
    applications: store.applications.size,
    accessTokens: count(
      store.accessTokens.values(),
      (t) => t.kind === 'oauth' && t.revokedAt === null && !tokenExpired(sim, t),
    ),
    personalAccessTokens: count(
      store.accessTokens.values(),
      (t) => t.kind === 'personal' && t.revokedAt === null && !tokenExpired(sim, t),
    ),
    refreshTokens: count(store.refreshTokens.values(), (t) => refreshState(t) === 'active'),
    codes: count(store.codes.values(), (c) => (c.state ?? 'issued') === 'issued' && now < c.createdAt + c.expiresIn),
    deviceCodes: count(
      store.deviceCodes.values(),
      (d) => (d.state === 'pending' || d.state === 'authorized') && now < d.createdAt + d.expiresIn,
    ),
    sessions: store.sessions.size,
    stored: storeSizes(store),
  });
};

export const simGetSettings: Handler = (ctx) => json(200, currentSettings(ctx.sim));

export const simUpdateSettings: Handler = async (ctx) =>
  json(200, applySettings(ctx.sim, settingChanges(await controlBody(ctx))));

/** expiresIn: absent = the usual lifetime; null = no expiry (a token created before expiry became mandatory). */
function lifetime(body: Record<string, unknown>): number | null {
  if (!('expiresIn' in body)) return limits().accessTokenLifetime;
  const v = body.expiresIn;
  if (v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
    throw new ControlError('expiresIn must be a positive integer or null');
  return v;
}

/** Mint an OAuth access token directly: what no grant can give any more, such as one without expiry. */
export const simCreateToken: Handler = async (ctx) => {
  const body = await controlBody(ctx);
  const { sim } = ctx;
  const scopes = list(body, 'scopes');
  if (!scopes?.length) throw new ControlError('scopes is required');
  const unknown = unknownScopes(scopes);
  if (unknown.length) throw new ControlError(`unknown scope ${unknown.join(', ')}`);
  const username = str(body, 'username');
  const user = username ? userByLogin(sim.store, username) : seeded(sim).admin;
  if (!user) throw new ControlError(`no user ${username}`, 404);
  const clientId = str(body, 'clientId');
  const app = clientId ? sim.store.applications.get(clientId) : seeded(sim).applications.confidential;
  if (!app) throw new ControlError('no application has this clientId', 404);
  // Pinned, so bounded apart (evict.ts MOST_HELD): a scan, as minting by hand is rare.
  let held = 0;
  for (const t of sim.store.accessTokens.values()) if (t.pinned === true && t.revokedAt === null) held++;
  if (held >= MOST_HELD.mintedTokens)
    throw new ControlError(
      `at most ${MOST_HELD.mintedTokens} tokens minted through the control API are held at once: revoke some, or reset the simulator`,
      409,
    );
  const { accessToken } = mintTokens(sim, {
    userId: user.id,
    app,
    scopes,
    refresh: false,
    expiresIn: lifetime(body),
    pinned: true,
  });
  return json(201, { access_token: accessToken });
};
