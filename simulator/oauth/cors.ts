/**
 * CORS on the /oauth endpoints. Cross-origin requests get `Access-Control-Allow-Origin: *`
 * (no credentials: tokens travel in headers, not cookies). Preflight is answered on the paths
 * spec/openapi.yaml marks with x-cors-preflight, from its release on, granting only the headers
 * listed there: X-Requested-With is never among them.
 */
import { corsPreflights, operations, type CorsPreflight } from '../../spec/index.js';
import type { Middleware, Sim, SimRequest } from '../types.js';
import { Reply, withHeaders, type Answer } from '../http.js';
import { requestUrl } from '../request.js';

const CROSS_ORIGIN = new Set([
  '/oauth/token',
  '/oauth/revoke',
  '/oauth/userinfo',
  '/oauth/token/info',
  '/oauth/authorize_device',
  '/oauth/discovery/keys',
  '/-/jwks',
  '/.well-known/openid-configuration',
]);

function preflightOf(sim: Sim, path: string): CorsPreflight | undefined {
  const found = corsPreflights().find((p) => p.path === path);
  return found && sim.inForce({ since: found.since }) ? found : undefined;
}

function preflight(request: SimRequest, sim: Sim, spec: CorsPreflight): Answer {
  const methods = operations()
    .filter((o) => o.path === spec.path)
    .map((o) => o.method.toUpperCase());
  const asked = (request.headers.get('access-control-request-headers') ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const granted = sim.fault('cors-allows-x-requested-with')
    ? [...new Set([...spec.allowedHeaders, ...asked])]
    : spec.allowedHeaders;
  return new Reply(204, null, {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': [...methods, 'OPTIONS'].join(', '),
    'access-control-allow-headers': granted.join(', '),
  });
}

export const cors: Middleware = (request, sim, next) => {
  const origin = request.headers.get('origin');
  // No Origin: neither a preflight nor a CORS header applies (most requests; no promise made).
  if (origin === null) return next();
  const path = requestUrl(request).pathname;
  if (
    request.method === 'OPTIONS' &&
    origin &&
    request.headers.has('access-control-request-method') &&
    !sim.fault('cors-no-preflight')
  ) {
    const spec = preflightOf(sim, path);
    if (spec) return preflight(request, sim, spec);
  }
  // An OPTIONS that is not a granted preflight gets no CORS headers: the browser must refuse it.
  if (!origin || !CROSS_ORIGIN.has(path) || request.method === 'OPTIONS') return next();
  return allowAnyOrigin(next());
};

async function allowAnyOrigin(answer: Answer | Promise<Answer>): Promise<Answer> {
  return withHeaders(await answer, { 'access-control-allow-origin': '*' });
}
