/** Shared by the API tests: a simulator, a supertest agent over its Node listener, and tokens. */
import { digest } from '../../../simulator/digest.js';
import { seeded } from '../../../simulator/oauth/accounts.js';
import request from 'supertest';
import { createSimulator } from '../../../simulator/core.js';
import { toNodeListener } from '../../../simulator/adapters/node.js';
import { secret } from '../../../simulator/random.js';
import type { Sim, SimulatorOptions } from '../../../simulator/types.js';
import type { AccessToken } from '../../../simulator/store.js';

export function setup(options: SimulatorOptions = {}) {
  const sim = createSimulator(options);
  const listener = toNodeListener(sim);
  return { sim, api: request(listener), listener };
}

export function userId(sim: Sim, username: string): number {
  for (const u of sim.store.users.values()) if (u.username === username) return u.id;
  throw new Error(`no user ${username}`);
}

/** Put a token straight into the store (what the OAuth side would mint). */
export function mint(
  sim: Sim,
  scopes: string[],
  options: { username?: string; expiresIn?: number | null; revoked?: boolean; kind?: AccessToken['kind'] } = {},
): string {
  const token = secret(20, 'test-');
  sim.store.accessTokens.set(digest(token), {
    digest: digest(token),
    userId: userId(sim, options.username ?? 'root'),
    applicationId: null,
    scopes,
    createdAt: sim.clock.nowSeconds(),
    expiresIn: options.expiresIn ?? null,
    revokedAt: options.revoked ? sim.clock.nowSeconds() : null,
    refreshToken: null,
    fromCode: null,
    kind: options.kind ?? 'oauth',
  });
  return token;
}

/** The seeded personal access token (scope api), found through the store. */
export function seededPat(sim: Sim): string {
  return seeded(sim).personalAccessToken;
}

/** Link header as { rel: url }. */
export function links(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (header ?? '').matchAll(/<([^<>]+)>;\s*rel="([^"]+)"/g)) out[m[2]] = m[1];
  return out;
}

/** Path and query of an absolute URL (supertest takes a path). */
export function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}
