/**
 * A provider under a rate limit, as Okta's, Entra ID's and Auth0's are: every few requests to the
 * token endpoint answered 429 with `Retry-After: 1`, or 503 with `Retry-After: 1` (a load balancer
 * shedding load), and the authorization endpoint's page now and then 429 too. A throttled answer
 * answers nothing the request asked: the harness waits as told and asks again, so no grant rule is
 * blamed on it and the run ends exit 0 with the waits counted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allChecks } from '../../suites/index.js';
import {
  checksWith,
  expectAllPassed,
  explain,
  PAGE_DRIVERS,
  rulesWith,
  runAgainst,
  runWithDriver,
  startProvider,
  type Provider,
  type Reply,
} from './provider.js';

const CHECKS = ['grants.code-single-use', 'grants.refresh-rotation', 'device.token-response'];

const tooMany: Reply = {
  status: 429,
  headers: { 'content-type': 'application/json', 'retry-after': '1' },
  body: JSON.stringify({
    errorCode: 'E0000047',
    errorSummary: 'API call exceeded rate limit due to too many requests.',
  }),
};
const shedding: Reply = {
  status: 503,
  headers: { 'content-type': 'text/html', 'retry-after': '1' },
  body: '<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>',
};

let provider: Provider;
const throttled: string[] = [];
let tokenRequests = 0;
let pages = 0;
/**
 * Throttled once of each kind (the second token request 429, the fourth 503, the second page 429),
 * or every authorization request; `probe-long`: every authorization request with a state, the
 * start-up's premise first, asked to wait longer than is left of --deadline.
 */
let mode: 'once-each' | 'page-refused' | 'page-long' | 'probe-long' = 'once-each';

beforeAll(async () => {
  provider = await startProvider((method, url) => {
    if (method === 'POST' && url.pathname === '/oauth/token' && mode === 'once-each') {
      tokenRequests++;
      if (tokenRequests === 2) return () => (throttled.push('429 token'), tooMany);
      if (tokenRequests === 4) return () => (throttled.push('503 token'), shedding);
    }
    // For good: a check's authorization request (its state), not the start-up's probe of the endpoint.
    // The browser's pages only: the start-up's premise (its own state) goes through the HTTP target.
    if (
      method === 'GET' &&
      url.pathname === '/oauth/authorize' &&
      mode === 'page-long' &&
      /^(?!start-up-premise$)./.test(url.searchParams.get('state') ?? '')
    )
      return () => (
        throttled.push('429 authorize'),
        { ...tooMany, headers: { ...tooMany.headers, 'retry-after': '500' } }
      );
    if (
      method === 'GET' &&
      url.pathname === '/oauth/authorize' &&
      mode === 'probe-long' &&
      url.searchParams.has('state')
    )
      return () => (
        throttled.push(`429 ${url.searchParams.get('state') === 'start-up-premise' ? 'start-up' : 'authorize'}`),
        { ...tooMany, headers: { ...tooMany.headers, 'retry-after': '50' } }
      );
    const refused = mode === 'page-refused' && url.searchParams.has('state');
    if (method === 'GET' && url.pathname === '/oauth/authorize' && (++pages === 2 || refused))
      // For good with Retry-After: 0 (no real time spent): only the retries' count gives it up.
      return () => (
        throttled.push('429 authorize'),
        refused ? { ...tooMany, headers: { ...tooMany.headers, 'retry-after': '0' } } : tooMany
      );
    return undefined;
  });
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

describe('a provider whose token endpoint is throttled now and then (429 or 503 with Retry-After)', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: each throttled answer waited out, every check passes, no rule is blamed, exit 0',
    async (kind) => {
      throttled.length = tokenRequests = pages = 0;
      mode = 'once-each';
      const run = await runWithDriver(provider, kind, CHECKS);
      const why = expectAllPassed(run);
      // The provider did throttle each kind of answer, and nothing was given up (rateLimited counts those).
      expect(new Set(throttled), why).toEqual(new Set(['429 token', '503 token', '429 authorize']));
      expect(run.report.rateLimited, why).toBeUndefined();
    },
    120_000,
  );
});

describe('a provider whose authorization page is throttled for good', () => {
  it.skipIf(!PAGE_DRIVERS.includes('browser'))(
    'browser driver: the page given up after two retries, the check errored with the rate limit line, no rule blamed',
    async () => {
      mode = 'page-refused';
      const { code, report, stderr } = await runWithDriver(provider, 'browser', ['grants.code-single-use']);
      const why = explain(report, stderr);
      expect(rulesWith(report, 'failed', 'warned'), why).toEqual([]);
      expect(checksWith(report, 'errored'), why).toEqual(['grants.code-single-use']);
      expect(report.checks[0].message, why).toMatch(
        /the target rate-limited this request \(GET \/oauth\/authorize\): 429 after 2 retries, waited 0 s; lower --rate/,
      );
      expect(code, why).toBe(2);
    },
    60_000,
  );
});

describe('a provider whose authorization page asks a wait longer than the time left', () => {
  it.skipIf(!PAGE_DRIVERS.includes('browser'))(
    'browser driver: Retry-After 500 under --deadline 90s is given up at once with the rate limit line, not slept through',
    async () => {
      mode = 'page-long';
      throttled.length = 0;
      const checks = allChecks().filter((c) => c.id === 'grants.code-single-use');
      // A deadline far from the run's start-up (slow on a loaded machine), a wait far past it.
      const { report, stderr } = await runAgainst(provider, { runs: '1', deadline: '90s' }, checks, {
        driver: { kind: 'browser' },
      });
      const why = explain(report, stderr);
      // Before: the sleep ran on to the deadline (and past the check's limit): the check was skipped at the deadline.
      // Now it is given up unslept ('waited 0 s', below), the check errored, not skipped.
      expect(throttled, why).toContain('429 authorize');
      expect(report.checks[0].status, why).toBe('errored');
      expect(rulesWith(report, 'failed', 'warned'), why).toEqual([]);
      expect(report.checks[0].message, why).toMatch(
        /the target rate-limited this request \(GET \/oauth\/authorize\): 429 after 0 retries, waited 0 s; it asked to wait 500 s, longer than the \d+ s the harness waits; lower --rate/,
      );
    },
    120_000,
  );
});

describe('a provider whose authorization endpoint asks the start-up a wait longer than is left of --deadline', () => {
  it('form driver: Retry-After 50 under --deadline 20s is given up at once, the run ends before its deadline with the rate limit said once', async () => {
    mode = 'probe-long';
    throttled.length = 0;
    const checks = allChecks().filter((c) => c.id === 'grants.code-single-use');
    const { code, report, stderr } = await runAgainst(provider, { runs: '1', deadline: '20s' }, checks, {
      driver: { kind: 'form' },
    });
    const why = explain(report, stderr);
    // Before: the start-up's premise slept Retry-After out twice (100 s) past the deadline.
    expect(throttled, why).toContain('429 start-up');
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual([]);
    const said = [...report.checks.map((c) => c.message ?? ''), report.stopped?.message ?? ''].filter((m) =>
      /it asked to wait 50 s, longer than the \d+ s the harness waits|rate-limited/.test(m),
    );
    expect(said, why).toHaveLength(1);
    // Given up unslept, as the harness says: no retry, no time waited.
    expect(said[0], why).toMatch(/: 429 after 0 retries, waited 0 s; it asked to wait 50 s/);
    expect(code, why).toBe(2);
  }, 60_000);
});
