// Temporary dev harness (delete before hand-off): each check without a simulator fault is run
// against a simulator whose wire behaviour is broken just for it, and must fail.
import { it } from 'vitest';
import { createSimulator } from '../../../simulator/core.js';
import type { Sim, SimulatorOptions } from '../../../simulator/types.js';
import { createEmbeddedTarget } from '../../target/embedded.js';
import { openSession } from '../../runner/session.js';
import { checks as grants } from '../index.js';
import { checks as device } from '../../device/index.js';
import { checks as tokens } from '../../tokens/index.js';
import { checks as oidc } from '../../oidc/index.js';
import { checks as cors } from '../../cors/index.js';

type Next = (r: Request) => Promise<Response>;
type Mutant = (req: Request, next: Next, memo: Record<string, string>) => Promise<Response>;
const all = [...grants, ...device, ...tokens, ...oidc, ...cors];

const path = (r: Request) => new URL(r.url).pathname;
async function form(r: Request): Promise<URLSearchParams> {
  if (r.method === 'GET') return new URLSearchParams();
  const type = r.headers.get('content-type') ?? '';
  const text = await r.clone().text();
  if (type.includes('json')) return new URLSearchParams(Object.entries(JSON.parse(text || '{}')).map(([k, v]) => [k, String(v)]));
  return new URLSearchParams(text);
}
function withForm(r: Request, f: URLSearchParams): Request {
  const headers = new Headers(r.headers);
  headers.set('content-type', 'application/x-www-form-urlencoded');
  return new Request(r.url, { method: r.method, headers, body: f.toString() });
}
function withQuery(r: Request, edit: (q: URLSearchParams) => void): Request {
  const u = new URL(r.url);
  edit(u.searchParams);
  return new Request(u.href, { method: r.method, headers: r.headers, redirect: 'manual' });
}
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } });
const fakeTokens = () => json(200, { access_token: 'fake', token_type: 'bearer', expires_in: 7200, refresh_token: 'fake-r', created_at: 1 });
async function editJson(res: Response, edit: (b: any) => any, status?: number): Promise<Response> {
  let body: any;
  try {
    body = JSON.parse(await res.clone().text());
  } catch {
    return res;
  }
  const headers = new Headers(res.headers);
  return new Response(JSON.stringify(edit(body)), { status: status ?? res.status, headers });
}
const isToken = (r: Request) => path(r) === '/oauth/token';
const errorIs = async (res: Response, code: string) => {
  try {
    return JSON.parse(await res.clone().text()).error === code;
  } catch {
    return false;
  }
};

const ONLY = process.env.ONLY?.split(',');
const mutants: Record<string, { mutant: Mutant; options?: SimulatorOptions }> = {
  'grants.token-error-body': { mutant: async (r, next) => { const res = await next(r); return isToken(r) && res.status >= 400 ? editJson(res, (b) => ({ ...b, error: 'bad_thing' })) : res; } },
  'tokens.json-content-type': { mutant: async (r, next) => { const res = await next(r); if (path(r) !== '/oauth/discovery/keys') return res; const h = new Headers(res.headers); h.set('content-type', 'application/json; charset=utf-8'); return new Response(await res.text(), { status: res.status, headers: h }); } },
  'grants.application-registration': { mutant: async (r, next) => { const res = await next(r); return path(r) === '/user_settings/applications' && r.method === 'POST' ? new Response((await res.text()).replace(/id="client-secret">[^<]*/, 'id="client-secret">hidden-secret'), { status: res.status, headers: res.headers }) : res; } },
  'grants.password-git-setting': { mutant: async (r, next) => { const res = await next(r); return path(r) === '/api/v4/application/settings' ? editJson(res, (b) => ({ ...b, password_authentication_enabled_for_git: false })) : res; } },
  'grants.sign-in-required': { mutant: async (r, next, memo) => { const res = await next(r); return path(r) === '/oauth/authorize' && res.status === 302 && (res.headers.get('location') ?? '').includes('sign_in') ? new Response(null, { status: 302, headers: { location: `${memo.confidentialRedirect}?code=zzz` } }) : res; } },
  'grants.pkce-invalid-verifier': {
    mutant: async (r, next) => {
      const f = await form(r);
      const res = await next(r);
      const v = f.get('code_verifier');
      return isToken(r) && v !== null && !/^[A-Za-z0-9._~-]{43,128}$/.test(v) ? fakeTokens() : res;
    },
  },
  'grants.pkce-method-unsupported': { mutant: (r, next) => next(path(r) === '/oauth/authorize' ? withQuery(r, (q) => q.has('code_challenge_method') && q.set('code_challenge_method', 'S256')) : r) },
  'grants.scope-unknown': {
    mutant: (r, next) => next(path(r) === '/oauth/authorize' ? withQuery(r, (q) => q.has('scope') && q.set('scope', q.get('scope')!.split(' ').filter((s) => ['api', 'read_user', 'openid', 'profile', 'email'].includes(s)).join(' ') || 'api')) : r),
  },
  'grants.response-type-code-only': { mutant: (r, next) => next(path(r) === '/oauth/authorize' ? withQuery(r, (q) => q.has('response_type') && q.set('response_type', 'code')) : r) },
  'grants.authorize-unknown-client': { mutant: async (r, next, memo) => { const res = await next(r); return path(r) === '/oauth/authorize' && res.status >= 400 ? new Response(null, { status: 302, headers: { location: `${memo.confidentialRedirect}?error=invalid_client` } }) : res; } },
  'grants.authorize-missing-parameters': { mutant: async (r, next, memo) => { const res = await next(r); return path(r) === '/oauth/authorize' && res.status >= 400 ? new Response(null, { status: 302, headers: { location: `${memo.confidentialRedirect}?error=invalid_request` } }) : res; } },
  'grants.code-unknown': { mutant: async (r, next) => { const res = await next(r); return isToken(r) && (await errorIs(res, 'invalid_grant')) ? json(400, { error: 'invalid_request', error_description: 'x' }) : res; } },
  'grants.code-client-bound': { mutant: async (r, next, memo) => { const f = await form(r); const res = await next(r); return isToken(r) && f.get('client_id') === memo.limited && f.get('grant_type') === 'authorization_code' ? fakeTokens() : res; } },
  'grants.code-expiry': { mutant: async (r, next) => { const f = await form(r); const res = await next(r); return isToken(r) && f.get('grant_type') === 'authorization_code' && f.get('code') !== 'not-a-code' && (await errorIs(res, 'invalid_grant')) ? fakeTokens() : res; } },
  'grants.scope-within-application': { mutant: async (r, next) => { const res = await next(r); return path(r) === '/oauth/token/info' && res.status === 200 ? editJson(res, (b) => ({ ...b, scope: [...b.scope, 'read'] })) : res; } },
  'grants.refresh-after-expiry': { mutant: async (r, next, memo) => { const res = await next(r); return path(r) === '/oauth/token/info' && res.status === 401 ? json(200, { scope: ['api'] }) : res; } },
  'grants.refresh-client-bound': { mutant: async (r, next, memo) => { const f = await form(r); const res = await next(r); return isToken(r) && f.get('client_id') === memo.limited && f.get('grant_type') === 'refresh_token' ? fakeTokens() : res; } },
  'grants.password-bad-credentials': { mutant: async (r, next) => { const res = await next(r); return isToken(r) && (await errorIs(res, 'invalid_grant')) ? json(401, { error: 'invalid_client', error_description: 'x' }) : res; } },
  'grants.password-hosted-client-auth': { options: { offering: 'hosted' }, mutant: async (r, next) => { const f = await form(r); const res = await next(r); return isToken(r) && f.get('grant_type') === 'password' && res.status === 401 ? fakeTokens() : res; } },
  'grants.password-removed': { options: { release: '19.0' }, mutant: async (r, next) => { const res = await next(r); return isToken(r) && (await errorIs(res, 'unsupported_grant_type')) ? fakeTokens() : res; } },
  'grants.unsupported-grant-type': { mutant: async (r, next) => { const res = await next(r); return isToken(r) && (await errorIs(res, 'unsupported_grant_type')) ? json(400, { error: 'invalid_request', error_description: 'x' }) : res; } },
  'grants.missing-parameter': { mutant: async (r, next) => { const res = await next(r); return isToken(r) && (await errorIs(res, 'invalid_request')) ? json(400, { error: 'invalid_grant', error_description: 'x' }) : res; } },
  'device.authorization-response': { mutant: async (r, next) => { const res = await next(r); return path(r) === '/oauth/authorize_device' && res.status === 200 ? editJson(res, (b) => ({ ...b, verification_uri_complete: b.verification_uri })) : res; } },
  'device.authorization-timings': { mutant: async (r, next) => { const res = await next(r); return path(r) === '/oauth/authorize_device' && res.status === 200 ? editJson(res, (b) => ({ ...b, expires_in: 600 })) : res; } },
  'device.unknown-device-code': { mutant: async (r, next) => { const f = await form(r); const res = await next(r); return isToken(r) && f.get('grant_type')?.includes('device') && (await errorIs(res, 'invalid_grant')) ? json(400, { error: 'authorization_pending', error_description: 'x' }) : res; } },
  'device.client-bound': { mutant: async (r, next, memo) => { const f = await form(r); if (isToken(r) && f.get('grant_type')?.includes('device')) { f.set('client_id', memo.public); f.delete('client_secret'); return next(withForm(r, f)); } return next(r); } },
  'device.unknown-user-code': {
    mutant: async (r, next, memo) => {
      if (path(r).includes('/device/approve')) return next(new Request(r.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user_code: memo.userCode }) }));
      const res = await next(r);
      if (path(r) === '/oauth/authorize_device' && res.status === 200) memo.userCode = JSON.parse(await res.clone().text()).user_code;
      return res;
    },
  },
  'device.verification-page': { mutant: async (r, next, memo) => { const res = await next(r); if (path(r) === '/oauth/authorize_device' && res.status === 200) memo.userCode = JSON.parse(await res.clone().text()).user_code; return path(r) === '/oauth/device' && r.method === 'GET' && res.status === 200 ? new Response((await res.text()).split(memo.userCode).join(''), { status: 200, headers: res.headers }) : res; } },
  'device.unavailable': { options: { release: '17.0' }, mutant: async (r, next) => { const res = await next(r); return path(r) === '/oauth/authorize_device' ? json(200, { device_code: 'x' }) : res; } },
  'tokens.info-presentations': { mutant: async (r, next) => { const res = await next(r); return path(r) === '/oauth/token/info' && new URL(r.url).searchParams.has('access_token') && res.status === 200 ? editJson(res, (b) => ({ ...b, resource_owner_id: String(b.resource_owner_id) })) : res; } },
  'tokens.info-expires-in-remaining': { mutant: async (r, next) => { const res = await next(r); return path(r) === '/oauth/token/info' && res.status === 200 ? editJson(res, (b) => ({ ...b, expires_in: 7200, expires_in_seconds: 7200 })) : res; } },
  'tokens.info-invalid-token': { mutant: async (r, next) => { const res = await next(r); return path(r) === '/oauth/token/info' && res.status === 401 ? json(404, { error: 'not_found', error_description: 'x' }) : res; } },
  'tokens.info-dead-token': { mutant: async (r, next) => { const res = await next(r); return path(r) === '/oauth/token/info' && res.status === 401 ? json(401, { error: 'invalid_request', error_description: 'x' }) : res; } },
  'tokens.revoke-unknown-token': { mutant: async (r, next) => { const res = await next(r); return path(r) === '/oauth/revoke' ? json(400, { error: 'invalid_request', error_description: 'x' }) : res; } },
  'tokens.revoke-client-bound': { mutant: async (r, next, memo) => { const f = await form(r); if (path(r) === '/oauth/revoke' && f.get('client_id') === memo.limited) { f.set('client_id', memo.confidential); f.set('client_secret', memo.confidentialSecret); return next(withForm(r, f)); } return next(r); } },
  'oidc.openid-scope-only': { mutant: async (r, next) => { const res = await next(r); return isToken(r) && res.status === 200 ? editJson(res, (b) => ({ id_token: 'x.y.z', ...b })) : res; } },
  'oidc.discovery': { mutant: async (r, next) => { const res = await next(r); return path(r) === '/.well-known/openid-configuration' ? editJson(res, ({ jwks_uri: _j, ...b }) => b) : res; } },
  'oidc.jwks': { mutant: async (r, next) => { const res = await next(r); return path(r) === '/oauth/discovery/keys' ? editJson(res, (b) => ({ keys: b.keys.map((k: object) => ({ ...k, d: 'secret' })) })) : res; } },
  'oidc.userinfo-requires-openid': { mutant: async (r, next) => { const res = await next(r); return path(r) === '/oauth/userinfo' && res.status === 403 ? json(200, { sub: '1' }) : res; } },
  'oidc.userinfo-invalid-token': { mutant: async (r, next) => { const res = await next(r); return path(r) === '/oauth/userinfo' && res.status === 401 ? json(401, { error: 'invalid_token' }) : res; } },
  'oidc.legacy-jwks-alias': { options: { release: '16.11' }, mutant: async (r, next) => (path(r) === '/-/jwks' ? json(404, { error: '404' }) : next(r)) },
  'oidc.legacy-jwks-removed': { mutant: async (r, next) => (path(r) === '/-/jwks' ? next(new Request(r.url.replace('/-/jwks', '/oauth/discovery/keys'))) : next(r)) },
  'cors.preflight': { mutant: async (r, next) => (r.method === 'OPTIONS' ? new Response(null, { status: 404 }) : next(r)) },
  'cors.preflight-standard-headers': { mutant: async (r, next) => { const res = await next(r); if (r.method !== 'OPTIONS') return res; const h = new Headers(res.headers); h.set('access-control-allow-headers', 'Content-Type'); return new Response(null, { status: res.status, headers: h }); } },
  'cors.simple-requests': { mutant: async (r, next) => { const res = await next(r); if (r.method === 'OPTIONS' || !path(r).includes('keys')) return res; const h = new Headers(res.headers); h.delete('access-control-allow-origin'); return new Response(await res.text(), { status: res.status, headers: h }); } },
};

it('mutants', async () => {
  const lines: string[] = [];
  for (const [id, { mutant, options }] of Object.entries(mutants)) {
    if (ONLY && !ONLY.includes(id)) continue;
    const check = all.find((c) => c.id === id);
    if (!check) {
      lines.push(`UNKNOWN ${id}`);
      continue;
    }
    for (const broken of [false, true]) {
      const sim = createSimulator(options);
      const memo: Record<string, string> = {};
      const cfg = await (await sim.handle(new Request('http://simulator.local/-/simulator/config'))).json();
      memo.confidential = cfg.applications.confidential.clientId;
      memo.confidentialSecret = cfg.applications.confidential.clientSecret;
      memo.confidentialRedirect = cfg.applications.confidential.redirectUri;
      memo.limited = cfg.applications.limited.clientId;
      memo.public = cfg.applications.public.clientId;
      const wrapped = { options: sim.options, handle: (r: Request) => (broken ? mutant(r, (x) => sim.handle(x), memo) : sim.handle(r)) } as unknown as Sim;
      const session = await openSession({ target: await createEmbeddedTarget(wrapped), seed: 7, numRuns: 15 });
      const r = await session.runCheck(check);
      await session.close();
      const ok = broken ? r.status === 'failed' || r.status === 'warned' : r.status === 'passed';
      lines.push(`${ok ? 'OK  ' : 'BAD '} ${broken ? 'mutant' : 'clean '} ${id}: ${r.status} ${broken || !ok ? (r.message ?? '').slice(0, 160) : ''}`);
    }
  }
  console.log(lines.join('\n'));
}, 600_000);
