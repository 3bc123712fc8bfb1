/**
 * Every JSON answer of the OAuth endpoints labelled `application/json;charset=UTF-8`, no space and
 * the charset in capitals, as Spring's message converters wrote it (Spring Authorization Server on
 * Spring Framework 5, Keycloak's token endpoint): a media type's parameters are case-insensitive
 * and the whitespace around `;` optional (RFC 9110 §5.6.6, §8.3.1), so it is JSON, read as such.
 * The charset itself is the one thing a rule judges: `ENC-JSON-CONTENT-TYPE` (should, "no charset
 * parameter", as the real service sends) warns, and no other rule is blamed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { simulatorRewriting, type Loopback } from '../suites/loopback.js';
import { checksWith, explain, rulesWith, runChecks } from './provider.js';

/** JSON answers of the token, revocation, device authorization and discovery endpoints, and their errors. */
const CHECKS = [
  'grants.token-response-fields',
  'grants.token-response-headers',
  'grants.token-error-body',
  'tokens.json-content-type',
  'grants.refresh-rotation',
  'tokens.revoke-access-token',
  'device.authorization-response',
  'device.token-response',
  'oidc.discovery',
  'oidc.userinfo',
];

let front: Loopback & { sim: Sim };
/** Answers the provider relabelled. */
let relabelled = 0;

beforeAll(async () => {
  front = await simulatorRewriting(
    (_method, url) => url.pathname.startsWith('/oauth/') || url.pathname.startsWith('/.well-known/'),
    (answer) => {
      if (!/^application\/json\s*(;|$)/i.test(answer.headers.get('content-type') ?? '')) return answer;
      relabelled++;
      const headers = new Headers(answer.headers);
      headers.set('content-type', 'application/json;charset=UTF-8');
      return new Response(answer.body, { status: answer.status, headers });
    },
  );
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe("JSON labelled Spring's application/json;charset=UTF-8", () => {
  it('warns ENC-JSON-CONTENT-TYPE alone; every other rule passes', async () => {
    relabelled = 0;
    const { code, report, stderr } = await runChecks(front, CHECKS);
    const why = explain(report, stderr);
    expect(relabelled, why).toBeGreaterThan(10);
    expect(rulesWith(report, 'failed', 'errored'), why).toEqual([]);
    expect(rulesWith(report, 'warned'), why).toEqual(['ENC-JSON-CONTENT-TYPE']);
    expect(checksWith(report, 'failed', 'errored', 'skipped'), why).toEqual([]);
    // Said by the two checks that judge the label, each once.
    expect(checksWith(report, 'warned'), why).toEqual(['grants.token-response-headers', 'tokens.json-content-type']);
    expect(code, why).toBe(0);
  }, 120_000);
});
