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
import type { Clock } from '../../suites/target/rate.js';
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

const refusal = (status: number, headers: Record<string, string>, message = 'Retry later'): Answer => ({
  status,
  head: new Map([
    ['content-type', ['application/json']],
    ...Object.entries(headers).map(([k, v]) => [k, [v]] as [string, string[]]),
  ]),
  body: Buffer.from(JSON.stringify({ message })),
});

const epochIn = (seconds: number) => String(Math.floor(Date.now() / 1000) + seconds);

/** Every `n`th request, whatever its path, refused with what `headers` make of it. */
function everyNth(n: number, answer: () => Answer): Rewrite {
  let requests = 0;
  return { refuse: () => (++requests % n === 0 ? answer() : undefined) };
}

/**
 * A window limiter on the run's (virtual) clock: the 5th request opens a window of `seconds` in
 * which every request is refused, `answer(left)` saying how many seconds are left. Far longer than
 * the harness's own backoff (1 s, then 2 s, for each request held, which all move the virtual
 * clock on), so only a wait read from the answer gets through.
 */
function windowed(
  entry: Omit<Variant, 'rewrite' | 'http' | 'checks'>,
  seconds: number,
  answer: (left: number) => Answer,
): Variant {
  let clock: Clock = virtualClock();
  return {
    ...entry,
    checks: LIMITED_CHECKS,
    http: () => {
      clock = virtualClock();
      return { clock };
    },
    get rewrite(): Rewrite {
      let requests = 0;
      let until = 0;
      return {
        refuse() {
          const now = clock.now();
          if (now < until) return answer(Math.ceil((until - now) / 1000));
          if (++requests !== 5) return undefined;
          until = now + seconds * 1000;
          return answer(seconds);
        },
      };
    },
  };
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
  windowed(
    {
      name: 'a 40 s window of 429s told only by the structured RateLimit field ("default";r=0;t=N) and RateLimit-Policy',
      cite: 'L283 (rate limits, headers not shown); draft-ietf-httpapi-ratelimit-headers-08 §3: t is the seconds until the quota resets',
    },
    40,
    (left) => refusal(429, { ratelimit: `"default";r=0;t=${left}`, 'ratelimit-policy': '"default";q=600;w=60' }),
  ),
  windowed(
    {
      name: "a 30 s window of 429s told by the older draft's one field (RateLimit: limit=600, remaining=0, reset=N)",
      cite: 'L283 (rate limits, headers not shown); draft-ietf-httpapi-ratelimit-headers-03 to -06: RateLimit with limit, remaining, reset',
    },
    30,
    (left) => refusal(429, { ratelimit: `limit=600, remaining=0, reset=${left}` }),
  ),
  windowed(
    {
      name: "a 5 s window of GitHub's secondary rate limit: 403 with Retry-After and no x-ratelimit-remaining: 0",
      cite: "L283 (rate limits, headers not shown); GitHub's secondary rate limits answer 403 or 429 with Retry-After",
    },
    5,
    (left) =>
      refusal(
        403,
        { 'retry-after': String(left) },
        'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      ),
  ),
  windowed(
    {
      name: "a 10 s window of Discord's 429s: Retry-After, X-RateLimit-* with a fractional reset, retry_after a float in the body",
      cite: "L283 (rate limits, headers not shown); Discord's 429 carries Retry-After, X-RateLimit-Reset-After, X-RateLimit-Scope and a JSON retry_after",
    },
    10,
    (left) => ({
      ...refusal(429, {
        'retry-after': String(left),
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': `${epochIn(left)}.123`,
        'x-ratelimit-reset-after': `${left - 1}.877`,
        'x-ratelimit-bucket': 'a1b2c3d4e5f6',
        'x-ratelimit-scope': 'user',
      }),
      body: Buffer.from(
        JSON.stringify({ message: 'You are being rate limited.', retry_after: left - 0.123, global: false }),
      ),
    }),
  ),
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
