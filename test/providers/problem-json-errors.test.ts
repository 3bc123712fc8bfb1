/**
 * OAuth errors written as RFC 9457 problem details, as a provider built on a framework that writes
 * every error so does (Spring Boot 3's ProblemDetail, ASP.NET Core's ProblemDetails): each refusal
 * of the token, revocation, device authorization and token information endpoints keeps its status, `error` and
 * `error_description` (RFC 6749 §5.2's members) and adds `type`, `title`, `status`, `detail` and
 * `instance`, labelled `application/problem+json`. A `+json` type is JSON (RFC 6839 §3.1), and
 * extra members are to be ignored (RFC 6749 §5.1 says so of the token response; §5.2 names no
 * others): no must changes. The one verdict is the label not being exactly `application/json`
 * (ENC-JSON-CONTENT-TYPE, a should, the real service's wire format), from the check that judges
 * the refusal's headers; the refusals themselves pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { simulatorRewriting, type Loopback } from '../suites/loopback.js';
import { checksWith, explain, rulesWith, runWithDriver } from './provider.js';

/** The endpoints whose refusals the framework writes as problems. */
const OAUTH = new Set(['/oauth/token', '/oauth/revoke', '/oauth/authorize_device', '/oauth/token/info']);

let front: Loopback & { sim: Sim };
/** The OAuth error codes the provider wrote as problems. */
const written: string[] = [];

beforeAll(async () => {
  front = await simulatorRewriting(
    (_method, url) => OAUTH.has(url.pathname),
    async (answer, url) => {
      const text = await answer.text();
      const body = (() => {
        try {
          return JSON.parse(text) as Record<string, unknown>;
        } catch {
          return undefined;
        }
      })();
      const headers = new Headers(answer.headers);
      headers.delete('content-length');
      if (typeof body?.error !== 'string') return new Response(text, { status: answer.status, headers });
      written.push(body.error);
      headers.set('content-type', 'application/problem+json');
      const problem = {
        type: `https://errors.example.invalid/oauth/${body.error}`,
        title: 'Bad Request',
        status: answer.status,
        detail: body.error_description ?? body.error,
        instance: url.pathname,
        ...body,
      };
      return new Response(JSON.stringify(problem), { status: answer.status, headers });
    },
  );
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe('OAuth errors as application/problem+json beside error and error_description', () => {
  it('form driver: every refusal passes its rule; only the label warns ENC-JSON-CONTENT-TYPE', async () => {
    const { report, stderr } = await runWithDriver(front, 'form', [
      'grants.token-error-body',
      'grants.token-response-headers',
      'grants.code-unknown',
      'grants.code-single-use',
      'grants.missing-parameter',
      'grants.unsupported-grant-type',
      'grants.client-authentication-failures',
      'device.authorize-refusals',
      'device.unknown-device-code',
      'tokens.revoke-client-auth',
      'tokens.info-invalid-token',
    ]);
    const why = explain(report, stderr);
    expect(checksWith(report, 'errored', 'skipped', 'failed'), why).toEqual([]);
    expect(rulesWith(report, 'failed'), why).toEqual([]);
    expect(rulesWith(report, 'warned'), why).toEqual(['ENC-JSON-CONTENT-TYPE']);
    expect(
      report.checks.filter((c) => c.status === 'warned').map((c) => c.id),
      why,
    ).toEqual(['grants.token-response-headers']);
    expect([...new Set(written)].sort(), why).toEqual(
      expect.arrayContaining(['invalid_client', 'invalid_grant', 'invalid_request', 'unsupported_grant_type']),
    );
  }, 120_000);
});
