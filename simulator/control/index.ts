/**
 * The simulator control API under /-/simulator/ (DESIGN.md): what a person cannot do quickly in a
 * test. JSON in and out; a bad body answers 400 `{message}`. simCreateProject belongs to the
 * REST side (simulator/api).
 */
import { apiError, json, type Answer } from '../http.js';
import type { Ctx, Handler } from '../types.js';
import { userByLogin } from '../store.js';
import { tokenExpired } from '../credentials.js';
import { createApplication, createUser, seeded, ValidationError } from '../oauth/accounts.js';
import { deviceByUserCode, fireDevice } from '../oauth/device.js';
import { refreshState } from '../oauth/grants/refresh-token.js';
import { unknownScopes } from '../oauth/scopes.js';
import { mintTokens } from '../oauth/tokens.js';
import { storeSizes } from '../evict.js';
import { limits } from '../../spec/index.js';
import { BadControlRequest, badRequest, bool, controlBody, list, str } from './body.js';
import { targetConfig } from './config.js';
import { applySettings, currentSettings, settingChanges } from './settings.js';

function guarded(handler: (ctx: Ctx, body: Record<string, unknown>) => Promise<Answer> | Answer): Handler {
  return async (ctx) => {
    try {
      return await handler(ctx, await controlBody(ctx));
    } catch (error) {
      if (error instanceof BadControlRequest || error instanceof ValidationError) return badRequest(error);
      throw error;
    }
  };
}

export const simConfig: Handler = (ctx) => json(200, targetConfig(ctx.sim, ctx.origin));

export const simReset = guarded((ctx) => {
  ctx.sim.reset();
  return json(200, { ok: true });
});

export const simClock = guarded((ctx, body) => {
  const seconds = typeof body.advanceSeconds === 'string' ? Number(body.advanceSeconds) : body.advanceSeconds;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
    throw new BadControlRequest('advanceSeconds must be a non-negative number');
  }
  ctx.sim.clock.advance(seconds);
  return json(200, { now: ctx.sim.clock.nowSeconds() });
});

function deviceDecision(trigger: 'approve' | 'deny'): Handler {
  return guarded(async (ctx, body) => {
    const userCode = str(body, 'user_code');
    if (!userCode) throw new BadControlRequest('user_code is required');
    const username = str(body, 'username');
    const user = username ? userByLogin(ctx.sim.store, username) : seeded(ctx.sim).admin;
    if (!user) return apiError(404, `no user ${username}`);
    const record = deviceByUserCode(ctx.sim, userCode);
    if (!record) return apiError(404, 'no device authorization has this user_code');
    const row = await fireDevice({ sim: ctx.sim, record, user }, trigger);
    const ok = row.result.status < 400;
    return json(row.result.status, {
      ok,
      user_code: record.userCode,
      state: record.state,
      result: row.result.page ?? null,
    });
  });
}

export const simDeviceApprove = deviceDecision('approve');
export const simDeviceDeny = deviceDecision('deny');

export const simCreateApplication = guarded((ctx, body) => {
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
});

export const simCreateUser = guarded((ctx, body) => {
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
});

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

export const simUpdateSettings = guarded((ctx, body) => json(200, applySettings(ctx.sim, settingChanges(body))));

/** expiresIn: absent = the usual lifetime; null = no expiry (a token created before expiry became mandatory). */
function lifetime(body: Record<string, unknown>): number | null {
  if (!('expiresIn' in body)) return limits().accessTokenLifetime;
  const v = body.expiresIn;
  if (v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
    throw new BadControlRequest('expiresIn must be a positive integer or null');
  return v;
}

/** Mint an OAuth access token directly: what no grant can give any more, such as one without expiry. */
export const simCreateToken = guarded((ctx, body) => {
  const { sim } = ctx;
  const scopes = list(body, 'scopes');
  if (!scopes?.length) throw new BadControlRequest('scopes is required');
  const unknown = unknownScopes(scopes);
  if (unknown.length) throw new BadControlRequest(`unknown scope ${unknown.join(', ')}`);
  const username = str(body, 'username');
  const user = username ? userByLogin(sim.store, username) : seeded(sim).admin;
  if (!user) return apiError(404, `no user ${username}`);
  const clientId = str(body, 'clientId');
  const app = clientId ? sim.store.applications.get(clientId) : seeded(sim).applications.confidential;
  if (!app) return apiError(404, 'no application has this clientId');
  const { access } = mintTokens(sim, { userId: user.id, app, scopes, refresh: false, expiresIn: lifetime(body) });
  return json(201, { access_token: access.token });
});
