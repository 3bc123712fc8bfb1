/**
 * "One cause, one blame" for providers that rate-limit (rate-limits.ts): a limit the harness can
 * wait out, however the provider says the wait, changes no must verdict; a path refused for good
 * is a missing premise: its checks are errored with one line saying so, no rule fails, the run
 * ends with its verdict and reports (exit 2, as for any errored check), and it counts the requests
 * refused. The waits pass on a virtual clock: no entry sleeps in real time.
 */
import { describe, expect, it } from 'vitest';
import { expectAllowed, labelled } from './corpus.js';
import { blamed, explain, proxyForTests } from './oauth-proxy.js';
import { LIMITED_CHECKS, RATE_LIMIT_VARIANTS, tokenEndpointRefused, withVirtualClock } from './rate-limits.js';
import { verdictLine } from '../../reporters/text.js';

const proxy = proxyForTests();

describe('providers that rate-limit', () => {
  it.each(labelled(RATE_LIMIT_VARIANTS))(
    '%s: waited out, no must failure, exit 0',
    (_label, variant) => expectAllowed(proxy(), variant),
    300_000,
  );

  it('a token endpoint refused 429 for good, with no wait named: its checks errored with the reason, no rule failed', async () => {
    proxy().use(tokenEndpointRefused());
    const { code, report, stderr } = await proxy().run('token-refused', LIMITED_CHECKS, {}, withVirtualClock());
    proxy().use(undefined);
    const why = explain(report, stderr);
    expect(blamed(report), why).toEqual([]);
    const errored = report.checks.filter((c) => c.status === 'errored');
    expect(errored.length, why).toBeGreaterThan(0);
    for (const c of errored)
      expect(c.message, c.id).toBe(
        'the target rate-limited this request (POST /oauth/token): 429 after 2 retries, waited 3 s; lower --rate, or run again once its limit resets',
      );
    // The checks that never reach the token endpoint still pass.
    expect(report.checks.filter((c) => c.status === 'passed').map((c) => c.id)).toEqual(
      expect.arrayContaining(['oidc.jwks', 'device.authorization-response']),
    );
    // Each errored check gave up one request (the first refusal ends the check).
    expect(report.rateLimited, why).toBe(errored.length);
    expect(verdictLine(report)).toMatch(
      new RegExp(`^ERROR .*; ${errored.length} requests rate-limited by the target$`),
    );
    // One path refused, the others served: the run goes to its end, not STOPPED.
    expect(report.stopped, why).toBeUndefined();
    expect(code, why).toBe(2);
  }, 300_000);
});
