/**
 * A provider whose quota runs out at the first sign-in page a check loads: from then on every
 * request is answered 429 with `Retry-After: 3600`. The browser driver gives each page up at once
 * (the wait is longer than the harness waits); those give-ups count toward the run's "refused in a
 * row" rule as the HTTP target's do, so the run stops once, with its one line, instead of erroring
 * every check that signs in one by one (its page loads go through no Http that counts them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMITED_LIMIT } from '../../suites/runner/session.js';
import { checksWith, explain, HAS_CHROMIUM, runWithDriver, startProvider, type Provider } from './provider.js';

/** Checks that each begin with a sign-in: without the rule, each would be errored by the refusal. */
const CHECKS = [
  'grants.code-single-use',
  'grants.refresh-rotation',
  'grants.code-reuse-revokes-tokens',
  'grants.pkce-valid-verifier',
  'grants.state-unchanged',
  'grants.token-response-fields',
];

let provider: Provider;
/** Requests refused since the quota ran out, `METHOD /path`. */
const refused: string[] = [];
let spent = false;

beforeAll(async () => {
  // The quota runs out at the first sign-in page a check loads; from then on every request is refused.
  provider = await startProvider((method, url) => {
    spent ||= method === 'GET' && url.pathname === '/users/sign_in';
    if (!spent) return undefined;
    return () => (
      refused.push(`${method} ${url.pathname}`),
      {
        status: 429,
        headers: { 'content-type': 'text/html', 'retry-after': '3600' },
        body: '<html><body><h1>Too many requests</h1></body></html>',
      }
    );
  });
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

describe('a provider whose quota runs out at the sign-in page, for an hour', () => {
  it.skipIf(!HAS_CHROMIUM)(
    `browser driver: the run stops after ${RATE_LIMITED_LIMIT} refusals in a row with the one line, not every check errored`,
    async () => {
      const { code, report, stderr } = await runWithDriver(provider, 'browser', CHECKS);
      const why = explain(report, stderr);
      const message = `the target stopped serving the harness: ${RATE_LIMITED_LIMIT} requests in a row were rate-limited; its limit resets in 3600 s`;
      // Before: every check errored with the rate-limit line, one by one, and the run was not stopped.
      expect(report.stopped, why).toEqual({ reason: 'rate-limited', message });
      expect(stderr, why).toContain(`idp-conformance: ${message}; `);
      expect(checksWith(report, 'failed', 'warned'), why).toEqual([]);
      const errored = report.checks.filter((c) => c.status === 'errored');
      expect(errored.length, why).toBeLessThan(RATE_LIMITED_LIMIT);
      for (const c of errored) expect(c.message, why).toMatch(/^the target rate-limited this request \(GET \//);
      const rest = report.checks.filter((c) => c.status !== 'errored');
      expect(rest.length, why).toBeGreaterThan(0);
      for (const c of rest) expect(`${c.status}: ${c.message}`, why).toBe(`skipped: ${message}`);
      // The browser's give-ups counted as the HTTP target's are, and nothing asked after the stop.
      expect(report.rateLimited, why).toBe(RATE_LIMITED_LIMIT);
      // (Chromium asks the refusal page's /favicon.ico on its own: no request of the harness.)
      expect(
        refused.filter((r) => r !== 'GET /favicon.ico'),
        why,
      ).toHaveLength(RATE_LIMITED_LIMIT);
      expect(code, why).toBe(2);
    },
    120_000,
  );
});
