/**
 * A provider that redeems a code and loses the answer: the token request is applied (the code is
 * used, tokens issued), then the connection drops with no answer, as a load balancer or an idle
 * timeout racing the answer does. The request went out whole on a kept-alive connection, so the
 * harness cannot know it was not applied: sent again, the used code would be refused and a rule
 * blamed for the provider keeping its word (RFC 9110 §9.2.2). It is sent once; the check that sent
 * it errors (a broken exchange), no rule is blamed, and the report shows the POST with no answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeResponse } from '../../simulator/adapters/node.js';
import type { Sim } from '../../simulator/types.js';
import { bodyOf, simulatorWith, type Loopback } from '../suites/loopback.js';
import { checksWith, explain, rulesWith, runChecks } from './provider.js';

const CHECK = 'grants.loopback-redirect-any-port';

let front: Loopback & { sim: Sim };
/** How often each code was posted to the token endpoint. */
const posted = new Map<string, number>();
/** The code whose answer was lost. */
let dropped: string | undefined;

beforeAll(async () => {
  let base = '';
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (req.method !== 'POST' || url.pathname !== '/oauth/token') return false;
    void bodyOf(req).then(async (body) => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
      const code = new URLSearchParams(body.toString('utf8')).get('code');
      if (code) posted.set(code, (posted.get(code) ?? 0) + 1);
      const answer = await front.sim.handle(new Request(url, { method: 'POST', headers, body: new Uint8Array(body) }));
      // The first code redeemed: applied, and its answer lost with the connection.
      if (code && answer.status === 200 && dropped === undefined) {
        dropped = code;
        return void req.socket.destroy();
      }
      await writeResponse(res, answer);
    });
    return true;
  });
  base = front.url;
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe('a token request applied, its answer lost with the connection', () => {
  it('is sent once: the check errors as a broken exchange, no rule is blamed, the report shows the POST unanswered', async () => {
    const { code, report, stderr } = await runChecks(front, [CHECK]);
    const why = explain(report, stderr);
    // The code whose answer was lost went to the token endpoint once (before: twice, the replay refused).
    expect(dropped, why).toBeDefined();
    expect(posted.get(dropped!), why).toBe(1);
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual([]);
    expect(checksWith(report, 'failed', 'warned', 'passed'), why).toEqual([]);
    const [check] = report.checks;
    expect(check.status, why).toBe('errored');
    expect(check.message, why).toMatch(
      /POST \/oauth\/token: .* closed the connection without an answer once the request had gone out/,
    );
    expect(check.message, why).toMatch(/not sent again/);
    // What was sent and what came back: the POST, and no answer to it (no replay's 200).
    const tokenPosts = (check.exchange ?? []).filter(
      (e) => e.request.method === 'POST' && /\/oauth\/token$/.test(e.request.url),
    );
    expect(tokenPosts.length, why).toBe(1);
    expect(tokenPosts[0].response, why).toBeUndefined();
    expect(rulesWith(report, 'passed'), why).toEqual([]);
    // A check errored and nothing failed (run --help, exit codes).
    expect(code, why).toBe(2);
  }, 120_000);
});
