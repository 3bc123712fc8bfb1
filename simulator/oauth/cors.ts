/**
 * CORS on the /oauth endpoints. Cross-origin requests get `Access-Control-Allow-Origin: *`
 * (no credentials: tokens travel in headers, not cookies). From 15.1, preflight succeeds on
 * /oauth/token, /oauth/revoke and /oauth/userinfo, granting only the allowed headers:
 * X-Requested-With is never among them.
 */
import type { Middleware } from '../types.js';
import { corsPreflightAvailable } from './gates.js';

const PREFLIGHT_METHODS: Record<string, string[]> = {
  '/oauth/token': ['POST'],
  '/oauth/revoke': ['POST'],
  '/oauth/userinfo': ['GET', 'HEAD', 'POST'],
};

const CROSS_ORIGIN = new Set([
  ...Object.keys(PREFLIGHT_METHODS),
  '/oauth/token/info',
  '/oauth/authorize_device',
  '/oauth/discovery/keys',
  '/-/jwks',
  '/.well-known/openid-configuration',
]);

export const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Accept'];

function preflight(request: Request, methods: string[], allowAny: boolean): Response {
  const asked = (request.headers.get('access-control-request-headers') ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const allowed = allowAny ? asked : ALLOWED_HEADERS;
  return new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': [...methods, 'OPTIONS'].join(', '),
      'access-control-allow-headers': allowed.join(', '),
    },
  });
}

export const cors: Middleware = async (request, sim, next) => {
  const path = new URL(request.url).pathname;
  const origin = request.headers.get('origin');
  const methods = PREFLIGHT_METHODS[path];
  if (request.method === 'OPTIONS' && origin && request.headers.has('access-control-request-method') && methods && corsPreflightAvailable(sim)) {
    return preflight(request, methods, sim.fault('cors-allows-x-requested-with'));
  }
  const response = await next();
  if (!origin || !CROSS_ORIGIN.has(path)) return response;
  const out = new Response(response.body, response);
  out.headers.set('access-control-allow-origin', '*');
  return out;
};
