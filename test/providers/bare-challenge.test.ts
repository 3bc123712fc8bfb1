/**
 * Refusals of a bearer token said in the challenge alone, as RFC 6750 §3 writes them and as a
 * resource server behind an API gateway answers (Kong's and Envoy's JWT filters, Spring Security's
 * BearerTokenAuthenticationEntryPoint): every 401 of the REST API and of userinfo has an empty body
 * (no `{"message": "401 Unauthorized"}`, no `{"error": …}`) and `WWW-Authenticate: Bearer
 * realm="api", error="invalid_token", error_description="…"` (without `error` for a request with
 * no token, RFC 6750 §3.1). The source shows no REST error body (L278) nor userinfo's shape (L189),
 * and OIDC Core §5.3.3 sends userinfo's errors as RFC 6750 §3 does: no must may change, and the
 * token oracles read such a 401 as a dead token. Every check passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatorRewriting, type Loopback } from '../suites/loopback.js';
import type { Sim } from '../../simulator/types.js';
import { explain, rulesWith, runAgainst } from './provider.js';
import { allChecks } from '../../suites/index.js';

/** The checks that present no token, a token never issued, a revoked or a refreshed-away one. */
const CHECKS = [
  'scopes.missing-token-401',
  'scopes.bad-token-401',
  'scopes.revoked-token-401',
  'tokens.info-dead-token',
  'oidc.userinfo-invalid-token',
  'grants.refresh-rotation',
];

let front: Loopback & { sim: Sim };
/** The 401s the provider answered with an empty body. */
let bare = 0;

beforeAll(async () => {
  front = await simulatorRewriting(
    (_method, url) => url.pathname.startsWith('/api/v4/') || url.pathname === '/oauth/userinfo',
    (answer) => {
      if (answer.status !== 401) return answer;
      bare++;
      // A request that presented a token is told why (the simulator's own challenge names an error); one without, not.
      const challenge = /error=/.test(answer.headers.get('www-authenticate') ?? '')
        ? 'Bearer realm="api", error="invalid_token", error_description="The access token is invalid or has expired"'
        : 'Bearer realm="api"';
      return new Response(null, { status: 401, headers: { 'www-authenticate': challenge } });
    },
  );
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe('401s with an empty body, the refusal in WWW-Authenticate alone', () => {
  it('change no verdict: every check passes', async () => {
    bare = 0;
    const { code, report, stderr } = await runAgainst(
      front,
      { runs: '1' },
      allChecks().filter((c) => CHECKS.includes(c.id)),
    );
    const why = explain(report, stderr);
    expect(bare, why).toBeGreaterThan(5);
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual([]);
    expect(
      report.checks.filter((c) => c.status !== 'passed').map((c) => c.id),
      why,
    ).toEqual([]);
    expect(code, why).toBe(0);
  }, 60_000);
});
