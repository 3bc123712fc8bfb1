/**
 * A front that sends GET /oauth/userinfo on to /oauth/userinfo/ with `308 Permanent Redirect` (a
 * Next.js or Vercel front with `trailingSlash: true`, whose `Refresh` header and body name the
 * new path), and serves the slashed path as the simulator does; the harness follows no redirect.
 * The start-up's anonymous question is unsure of a redirect, and the first check whose token meets
 * it settles userinfo absent. That check is grants.code-reuse-revokes-tokens, which asks every
 * token oracle whether its token works: the redirect says nothing of the token, so token info and
 * the REST API judge it, and GRANT-CODE-REUSE-REVOKES is tested (before: the check was skipped
 * "the target has no userinfo endpoint", its rule untested on a provider that revokes).
 * OIDC-USERINFO fails alone, once, and userinfo's other checks are skipped naming its reporter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { simulatorWith, type Loopback } from '../suites/loopback.js';
import { checksWith, erroredText, explain, rulesWith, runChecks } from './provider.js';

const USERINFO = '/oauth/userinfo';
let front: Loopback & { sim: Sim };
/** Redirects answered, for a test that the provider was met at all. */
let redirected = 0;

beforeAll(async () => {
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === `${USERINFO}/`) {
      req.url = `${USERINFO}${url.search}`; // the simulator serves it
      return false;
    }
    if (req.method !== 'GET' || url.pathname !== USERINFO) return false;
    req.resume();
    redirected++;
    const to = `${USERINFO}/${url.search}`;
    res.writeHead(308, { location: to, refresh: `0;url=${to}`, 'content-type': 'text/plain' });
    res.end(to);
    return true;
  });
}, 60_000);

afterAll(async () => {
  await front?.close();
});

/** The code-reuse check first: the first request with a token to userinfo is its oracle's. */
const CHECKS = [
  'grants.code-reuse-revokes-tokens',
  'tokens.revoke-access-token',
  'oidc.userinfo',
  'oidc.userinfo-requires-openid',
  'oidc.userinfo-invalid-token',
];

describe('GET /oauth/userinfo answered 308 to /oauth/userinfo/', () => {
  it('judges the reused code on the other oracles; OIDC-USERINFO fails alone, once', async () => {
    redirected = 0;
    const { code, report, stderr } = await runChecks(front, CHECKS);
    const why = explain(report, stderr);
    expect(redirected, why).toBeGreaterThan(0);
    expect(checksWith(report, 'errored'), erroredText(report)).toEqual([]);
    const status = new Map(report.rules.map((r) => [r.id, r.status]));
    // The check whose token met the redirect first: judged by token info and GET /api/v4/user.
    expect(status.get('GRANT-CODE-REUSE-REVOKES'), why).toBe('passed');
    expect(status.get('REV-REVOKES-TOKEN'), why).toBe('passed');
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['OIDC-USERINFO']);
    expect(checksWith(report, 'failed', 'warned'), why).toEqual(['oidc.userinfo']);
    // What needs userinfo is untested, naming the check whose token settled it and the reporter.
    for (const id of ['oidc.userinfo-requires-openid', 'oidc.userinfo-invalid-token']) {
      const check = report.checks.find((c) => c.id === id);
      expect(check?.status, id).toBe('skipped');
      expect(check?.message, id).toMatch(
        /the target has no userinfo endpoint: GET \S*\/oauth\/userinfo answered 308 without credentials at start-up and 308 with them to grants\.code-reuse-revokes-tokens \(oidc\.userinfo reports it on OIDC-USERINFO\)$/,
      );
    }
    expect(code, why).toBe(1);
  }, 120_000);
});
