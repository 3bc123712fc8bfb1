/**
 * A target that rate-limits every request from the first: the run ends at once with one line that
 * says so (exit 2), not "not an identity provider", and never waits longer than it would for one
 * request. The waits pass on a virtual clock (test/suites/virtual-clock.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpTarget } from '../../suites/target/http.js';
import { listen, runCli, type Loopback } from '../suites/loopback.js';
import { virtualClock } from '../suites/virtual-clock.js';

const servers: Loopback[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function refusingAll(headers: Record<string, string>) {
  const server = await listen((req, res) => {
    req.resume();
    res.writeHead(429, { 'content-type': 'application/json', ...headers });
    res.end('{"message":"Retry later"}');
  });
  servers.push(server);
  const clock = virtualClock();
  const r = await runCli(
    { target: server.url },
    { target: async () => createHttpTarget({ baseUrl: server.url }, { clock }) },
  );
  return { ...r, url: server.url, clock };
}

describe('a target that rate-limits every request', () => {
  it('with no wait named: backs off 1 s and 2 s once, then stops the run with one line, exit 2', async () => {
    const r = await refusingAll({});
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toEqual([
      `idp-conformance: target ${r.url} does not serve the harness now: the target rate-limited this request (GET /.well-known/openid-configuration): 429 after 2 retries, waited 3 s; lower --rate, or run again once its limit resets`,
    ]);
    expect(r.out).toBe('');
    // Each probe question is refused after its own backoff; no more is asked once all three were.
    expect(r.clock.slept).toEqual([1000, 2000, 1000, 2000, 1000, 2000]);
  });

  it('asking a wait longer than the harness waits: gives up at once, waiting nothing', async () => {
    const r = await refusingAll({ 'retry-after': '3600' });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /does not serve the harness now: the target rate-limited this request \(GET \/\.well-known\/openid-configuration\): 429 after 0 retries, waited 0 s; it asked to wait 3600 s, longer than the 60 s the harness waits;/,
    );
    expect(r.clock.slept).toEqual([]);
  });
});
