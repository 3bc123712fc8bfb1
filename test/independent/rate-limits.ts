/**
 * Providers that rate-limit, as real ones do (the source, L283: "REST requests are subject to rate
 * limits. Rate-limit values and headers: not shown"). A limiter stands in front of the simulator
 * (Rewrite.refuse): a refused request never reaches it, as a real limiter refuses before the
 * provider counts anything. The runs use a virtual clock, so the waits cost no real time.
 * Allowed: a limit that lets the harness through once it waits as told changes no must verdict.
 * Premise: a path refused for good errors the checks that need it, and fails none of their rules.
 */
import type { Answer, Asked, Rewrite } from './oauth-proxy.js';
import type { Variant } from './corpus.js';
import type { HttpTargetOptions } from '../../suites/target/http.js';
import { virtualClock } from '../suites/virtual-clock.js';

/** The checks an entry runs: every kind of request a run sends (pages, token, device, REST, keys). */
export const LIMITED_CHECKS = [
  'grants.token-response-fields',
  'grants.code-single-use',
  'grants.pkce-verifier-mismatch',
  'grants.refresh-rotation',
  'tokens.revoke-access-token',
  'device.authorization-response',
  'device.slow-down',
  'pagination.offset-headers',
  'scopes.read-user-reads-current-user',
  'oidc.jwks',
];

export const withVirtualClock = (): HttpTargetOptions => ({ clock: virtualClock() });

const refusal = (status: number, headers: Record<string, string>): Answer => ({
  status,
  head: new Map([
    ['content-type', ['application/json']],
    ...Object.entries(headers).map(([k, v]) => [k, [v]] as [string, string[]]),
  ]),
  body: Buffer.from(JSON.stringify({ message: 'Retry later' })),
});

const epochIn = (seconds: number) => String(Math.floor(Date.now() / 1000) + seconds);

/** Every `n`th request, whatever its path, refused with what `headers` make of it. */
function everyNth(n: number, answer: () => Answer): Rewrite {
  let requests = 0;
  return { refuse: () => (++requests % n === 0 ? answer() : undefined) };
}

export const RATE_LIMIT_VARIANTS: Variant[] = [
  {
    name: 'every 5th request 429 without Retry-After, with RateLimit-Reset: 1 (delta seconds)',
    cite: 'L283 (rate limits, headers not shown); draft-ietf-httpapi-ratelimit-headers: RateLimit-Reset in delta seconds',
    checks: LIMITED_CHECKS,
    get rewrite() {
      return everyNth(5, () =>
        refusal(429, { 'ratelimit-limit': '5', 'ratelimit-remaining': '0', 'ratelimit-reset': '1' }),
      );
    },
    http: withVirtualClock,
  },
  {
    name: 'every 5th request 429 without Retry-After, with X-RateLimit-Reset: the epoch second a second from now',
    cite: 'L283 (rate limits, headers not shown); GitHub and GitLab send the reset as epoch seconds',
    checks: LIMITED_CHECKS,
    get rewrite() {
      return everyNth(5, () => refusal(429, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epochIn(1) }));
    },
    http: withVirtualClock,
  },
  {
    name: "every 5th request 403 with x-ratelimit-remaining: 0 and X-RateLimit-Reset (GitHub's primary rate limit)",
    cite: 'L283 (rate limits, headers not shown); GitHub answers its primary rate limit 403 with x-ratelimit-remaining: 0',
    checks: LIMITED_CHECKS,
    get rewrite() {
      return everyNth(5, () => refusal(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epochIn(1) }));
    },
    http: withVirtualClock,
  },
];

/** Token requests a provider serves before it refuses the token endpoint for good (start-up asks some). */
export const TOKEN_REQUESTS_SERVED = 6;

/** The token endpoint refused 429 for good after TOKEN_REQUESTS_SERVED requests, with no header saying how long. */
export function tokenEndpointRefused(): Rewrite {
  let tokenRequests = 0;
  return {
    refuse: (asked: Asked) =>
      asked.url.pathname === '/oauth/token' && ++tokenRequests > TOKEN_REQUESTS_SERVED ? refusal(429, {}) : undefined,
  };
}
