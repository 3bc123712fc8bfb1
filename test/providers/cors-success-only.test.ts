/**
 * nginx's `add_header Access-Control-Allow-Origin *;` without `always` adds the header to 2xx and
 * 3xx answers only: every successful cross-origin answer of the /oauth endpoints carries it, their
 * refusals (401 invalid_client, invalid_token) do not. The endpoints support CORS (L170): a
 * browser client gets its tokens, token info, userinfo and revocation. CORS-OAUTH-ENDPOINTS (must)
 * is judged on successful answers and passes; the refusals without the header, which a browser
 * client cannot read (Fetch's CORS check), warn CORS-ERROR-ANSWERS (should) alone. The header
 * missing from successful answers too still fails the must.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { simulatorRewriting, type Loopback } from '../suites/loopback.js';
import { explain, rulesWith, runChecks } from './provider.js';

/** Which answers lose their CORS headers: refusals only (nginx without `always`), or every one. */
let strip: 'refusals' | 'all' = 'refusals';
let stripped = 0;
let front: Loopback & { sim: Sim };

beforeAll(async () => {
  front = await simulatorRewriting(
    (_method, url) => url.pathname.startsWith('/oauth/'),
    (answer) => {
      if (strip === 'refusals' && answer.status < 400) return answer;
      const headers = new Headers(answer.headers);
      for (const name of [...headers.keys()]) if (name.startsWith('access-control-')) headers.delete(name);
      stripped++;
      return new Response(answer.body, { status: answer.status, headers });
    },
  );
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe('CORS headers on successful answers only', () => {
  it('passes CORS-OAUTH-ENDPOINTS and warns CORS-ERROR-ANSWERS alone', async () => {
    strip = 'refusals';
    stripped = 0;
    const { code, report, stderr } = await runChecks(front, ['cors.simple-requests']);
    const why = explain(report, stderr);
    expect(stripped, why).toBeGreaterThan(0);
    expect(rulesWith(report, 'failed', 'errored'), why).toEqual([]);
    expect(rulesWith(report, 'warned'), why).toEqual(['CORS-ERROR-ANSWERS']);
    expect(report.rules.find((r) => r.id === 'CORS-OAUTH-ENDPOINTS')?.status, why).toBe('passed');
    expect(code, why).toBe(0);
  }, 60_000);

  it('without the header on successful answers too, fails CORS-OAUTH-ENDPOINTS', async () => {
    strip = 'all';
    const { code, report, stderr } = await runChecks(front, ['cors.simple-requests']);
    const why = explain(report, stderr);
    expect(rulesWith(report, 'failed'), why).toEqual(['CORS-OAUTH-ENDPOINTS']);
    expect(code, why).toBe(1);
  }, 60_000);
});
