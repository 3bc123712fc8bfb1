/**
 * A token endpoint as Auth0's answers: a grant the client may not use (or does not know) refused
 * 403 `{"error":"access_denied","error_description":"Unauthorized"}` instead of 400
 * `unauthorized_client` or `unsupported_grant_type`, and refresh tokens rotated with reuse
 * detection: a rotated refresh token presented again is refused and revokes its whole family, the
 * newest pair included (RFC 9700 §4.14.2). `access_denied` is RFC 8628's code for a device grant
 * poll the user refused, no token error code of RFC 6749 §5.2 for any other request: the source's
 * "standard OAuth 2.0 token error codes" (L262) breaks, `ERR-TOKEN-STANDARD-CODES`, a must; the 403
 * is `ERR-TOKEN-STATUS`'s (a should). The reuse detection is allowed: no rule is blamed for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import type { Loopback } from '../suites/loopback.js';
import { answeringPosts, checksWith, explain, rulesWith, runChecks } from './provider.js';

/** The codes Auth0 answers 403 access_denied in place of. */
const DENIED = ['unauthorized_client', 'unsupported_grant_type'];

let front: Loopback & { sim: Sim };
/** Each refresh token of a grant to its family's newest one. */
const newest = new Map<string, { token: string }>();
const seen = { denied: 0, reused: 0 };

beforeAll(async () => {
  front = await answeringPosts(['/oauth/token'], async ({ form }, simulator, sim) => {
    const answer = await simulator();
    const body = (await answer
      .clone()
      .json()
      .catch(() => undefined)) as Record<string, unknown> | undefined;
    if (typeof body?.error === 'string' && DENIED.includes(body.error)) {
      seen.denied++;
      return new Response(JSON.stringify({ error: 'access_denied', error_description: 'Unauthorized' }), {
        status: 403,
        headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
      });
    }
    const presented = form.get('grant_type') === 'refresh_token' ? form.get('refresh_token') : null;
    if (typeof body?.refresh_token === 'string') {
      const family = (presented && newest.get(presented)) || { token: '' };
      family.token = body.refresh_token;
      newest.set(body.refresh_token, family);
    } else if (presented && body?.error === 'invalid_grant') {
      const family = newest.get(presented);
      // A rotated token replayed by its own client: the family's newest pair is revoked too.
      if (family && family.token !== presented) {
        seen.reused++;
        const revoke = new URLSearchParams({ token: family.token });
        for (const k of ['client_id', 'client_secret']) if (form.get(k)) revoke.set(k, form.get(k)!);
        await sim.handle(
          new Request(`${front.url}/oauth/revoke`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: revoke.toString(),
          }),
        );
      }
    }
    return answer;
  });
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe("Auth0's token endpoint: 403 access_denied for a grant refused, refresh reuse revoking the family", () => {
  it('fails ERR-TOKEN-STANDARD-CODES and warns ERR-TOKEN-STATUS alone; reuse detection blames nothing', async () => {
    seen.denied = seen.reused = 0;
    const { code, report, stderr } = await runChecks(front, [
      'grants.unsupported-grant-type',
      'grants.refresh-rotation',
      'grants.refresh-client-bound',
    ]);
    const why = explain(report, stderr);
    expect(seen.denied, why).toBeGreaterThanOrEqual(1);
    expect(seen.reused, why).toBeGreaterThanOrEqual(1);
    expect(rulesWith(report, 'failed'), why).toEqual(['ERR-TOKEN-STANDARD-CODES']);
    expect(rulesWith(report, 'warned'), why).toEqual(['ERR-TOKEN-STATUS']);
    expect(checksWith(report, 'failed'), why).toEqual(['grants.unsupported-grant-type']);
    expect(checksWith(report, 'warned', 'errored', 'skipped'), why).toEqual([]);
    expect(code, why).toBe(1);
  }, 120_000);
});
