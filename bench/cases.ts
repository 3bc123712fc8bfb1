/**
 * The HTTP requests of the bench, one case per row: how to ask the simulator, and where it is
 * compared, node-oidc-provider (the bare server answers every case with a body of the simulator's
 * size). Shared by `npm run bench` and `npm run bench:profile`.
 */
import type { Child } from './ipc.js';
import type { LoadRequest } from './load.js';

export const CONNECTIONS = 50;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** `floor`: the simulator's adapter in front of nothing (floor-server.ts), on the rows with a target. */
export type Server = 'sim' | 'bare' | 'floor' | 'oidc';

/** One row of HTTP load: how to ask each server (absent = that server is not compared on it). */
export interface Case {
  label: string;
  expect: number;
  /** A request per server; built fresh before every run (a device code per run, tokens per connection). */
  build: Partial<Record<Server, () => Promise<LoadRequest>>>;
  /** Target of sim / bare req/s (issue 12, point 4; issue 20 item 7 raised keys and the device rows). */
  target?: number;
}

export interface TargetConfigLike {
  personalAccessToken: string;
  applications: { confidential: { clientId: string; clientSecret: string } };
}

export async function post(url: string, body: Record<string, unknown>, json = false): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: json ? { 'content-type': 'application/json' } : FORM,
    body: json ? JSON.stringify(body) : new URLSearchParams(body as Record<string, string>).toString(),
  });
}

/** The cases against `sim` at `simUrl`; node-oidc-provider's requests only when `oidc` runs. */
export function casesFor(sim: Child, simUrl: string, config: TargetConfigLike, oidc?: Child): Case[] {
  const app = config.applications.confidential;
  const client = { client_id: app.clientId, client_secret: app.clientSecret };
  const oidcClient = { client_id: oidc?.ready.clientId as string, client_secret: oidc?.ready.clientSecret as string };
  const oidcUrl = oidc?.ready.url as string;
  const bearer = { authorization: `Bearer ${config.personalAccessToken}` };
  const get =
    (path: string, headers: Record<string, string> = {}) =>
    async (): Promise<LoadRequest> => ({
      method: 'GET',
      path,
      headers,
    });
  const form = (path: string, fields: Record<string, string>) => async (): Promise<LoadRequest> => ({
    method: 'POST',
    path,
    headers: FORM,
    body: new URLSearchParams(fields).toString(),
  });
  const devicePoll =
    (base: string, start: string, poll: string, who: Record<string, string>, scope: string) => async () => {
      const issued = (await (await post(base + start, { ...who, scope })).json()) as { device_code: string };
      return form(poll, { grant_type: DEVICE_GRANT, device_code: issued.device_code, ...who })();
    };
  // A pool of live refresh tokens: each request takes one, each answer puts its successor back
  // (autocannon clears a connection's context between requests, so the pool is shared).
  const refreshChain = async (): Promise<LoadRequest> => {
    const { tokens } = await sim.ask<{ tokens: string[] }>('refresh-tokens', { count: CONNECTIONS * 2 });
    return {
      method: 'POST',
      path: '/oauth/token',
      headers: FORM,
      setupRequest: (request) => {
        const token = tokens.shift() ?? '';
        const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, ...client });
        return { ...request, body: body.toString() };
      },
      onResponse: (status, body) => {
        if (status === 200) tokens.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
      },
    };
  };
  const accessToken = async () => {
    const minted = (await (await post(`${simUrl}/-/simulator/tokens`, { scopes: ['api'] }, true)).json()) as {
      access_token: string;
    };
    return minted.access_token;
  };
  const tokenInfo = async (): Promise<LoadRequest> => ({
    method: 'GET',
    path: '/oauth/token/info',
    headers: { authorization: `Bearer ${await accessToken()}` },
  });
  const total = 1_000_000;
  const keyset = `/api/v4/audit_events?pagination=keyset&order_by=id&sort=desc&per_page=20`;
  const deep = `${keyset}&id_before=${total - 900_000 + 1}`;
  const simDevice = devicePoll(simUrl, '/oauth/authorize_device', '/oauth/token', client, 'api');
  const oidcDevice = devicePoll(oidcUrl, '/device/auth', '/token', oidcClient, 'openid');
  return [
    {
      label: 'GET /api/v4/projects?per_page=20',
      expect: 200,
      target: 0.5,
      build: { sim: get('/api/v4/projects?per_page=20', bearer) },
    },
    {
      label: 'GET /oauth/discovery/keys',
      expect: 200,
      target: 0.7,
      build: { sim: get('/oauth/discovery/keys'), ...(oidc && { oidc: get('/jwks') }) },
    },
    {
      label: 'POST /oauth/authorize_device',
      expect: 200,
      target: 0.5,
      build: {
        sim: form('/oauth/authorize_device', { ...client, scope: 'api' }),
        ...(oidc && { oidc: form('/device/auth', { ...oidcClient, scope: 'openid' }) }),
      },
    },
    {
      label: 'POST /oauth/token (device poll, pending)',
      expect: 400,
      target: 0.5,
      build: { sim: simDevice, ...(oidc && { oidc: oidcDevice }) },
    },
    { label: 'POST /oauth/token (refresh grant)', expect: 200, build: { sim: refreshChain } },
    { label: 'GET /oauth/token/info', expect: 200, target: 0.5, build: { sim: tokenInfo } },
    { label: 'keyset page, depth 1 (per_page 20, of 1,000,000)', expect: 200, build: { sim: get(keyset, bearer) } },
    { label: 'keyset page, depth 900,000', expect: 200, build: { sim: get(deep, bearer) } },
  ];
}

/** The bare server answers each case's request with a body of the size the simulator sends. */
export async function measureSizes(
  simUrl: string,
  cases: Case[],
): Promise<Map<Case, { key: string; size: number; req: LoadRequest }>> {
  const out = new Map<Case, { key: string; size: number; req: LoadRequest }>();
  for (const c of cases) {
    const req = await c.build.sim!();
    const sent = req.setupRequest ? req.setupRequest(req, {}) : req;
    const response = await fetch(simUrl + sent.path, { method: sent.method, headers: sent.headers, body: sent.body });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== c.expect)
      throw new Error(`${c.label}: the simulator answered ${response.status}, expected ${c.expect}`);
    out.set(c, { key: `${sent.method} ${sent.path}`, size: body.length, req: sent });
  }
  return out;
}
