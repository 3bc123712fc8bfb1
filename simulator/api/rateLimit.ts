/**
 * Rate limiting of /api/v4 (off unless settings.rateLimit is set): a fixed window per client (the
 * presented token, else anonymous) on the simulator clock. Every limited response carries the
 * RateLimit-* headers; the refused one is 429 with Retry-After.
 */
import { presentedToken } from '../credentials.js';
import { apiError, withHeaders, type Answer } from '../http.js';
import type { InstanceSettings, Middleware, Sim, SimRequest } from '../types.js';
import { requestUrl } from '../request.js';
import { digest } from '../digest.js';
import { makeRoom, MOST_HELD } from '../evict.js';

interface Window {
  start: number;
  count: number;
}

// Not async: off (the default) it returns next()'s own promise (an async wrapper costs ticks per request).
export const rateLimit: Middleware = (request, sim, next) => {
  const limit = sim.options.settings.rateLimit;
  if (!limit || !requestUrl(request).pathname.startsWith('/api/')) return next();
  return limited(request, sim, next, limit);
};

async function limited(
  request: SimRequest,
  sim: Sim,
  next: () => Answer | Promise<Answer>,
  limit: NonNullable<InstanceSettings['rateLimit']>,
): Promise<Answer> {
  const url = requestUrl(request);
  const windows = sim.state('api.rateLimit', () => new Map<string, Window>());
  // Keyed by the token's digest: module state holds no credential either (AUTH-CREDENTIALS-STORED-HASHED).
  const presented = presentedToken(request, url)?.token;
  const key = presented === undefined ? 'anonymous' : digest(presented);
  const now = sim.clock.nowSeconds();
  let w = windows.get(key);
  if (!w || now >= w.start + limit.periodSeconds) {
    // Any string presented gets a window: at most MOST_HELD, a new one last so the oldest go first.
    windows.delete(key);
    makeRoom(windows, MOST_HELD.rateLimitWindows);
    windows.set(key, (w = { start: now, count: 0 }));
  }
  w.count += 1;
  const reset = w.start + limit.periodSeconds;
  const headers: Record<string, string> = {
    'ratelimit-limit': String(limit.requests),
    'ratelimit-observed': String(w.count),
    'ratelimit-remaining': String(Math.max(0, limit.requests - w.count)),
    'ratelimit-reset': String(reset),
    'ratelimit-resettime': new Date(reset * 1000).toUTCString(),
  };
  if (w.count > limit.requests) {
    return apiError(429, 'Retry later', { ...headers, 'retry-after': String(Math.max(1, reset - now)) });
  }
  return withHeaders(await next(), headers);
}
