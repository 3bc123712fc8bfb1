/**
 * Microsoft Entra ID's answers: every OAuth error body carries `error_codes`, `timestamp`,
 * `trace_id`, `correlation_id` and `error_uri` beside `error`, and an `error_description` led by
 * its AADSTS code and followed, after CR LF, by its trace and correlation ids and timestamp; the
 * v1 endpoints' `expires_in` (and `ext_expires_in`) a string, `"7200"`; the device authorization
 * response's `expires_in` and `interval` strings too, with a `message` for the user. Extra members
 * are ignored (RFC 6749 §5.1, §5.2); each deviation fails its own rule alone: the CR LF
 * `ERR-DESCRIPTION-CHARSET` (RFC 6749 §5.2 MUST NOT), the string lifetimes `TOK-EXPIRES-IN` and
 * `DEV-AUTHORIZE-RESPONSE` (integers in the source's tables). Held, never seen failing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import type { Loopback } from '../suites/loopback.js';
import { answeringPosts, checksWith, explain, rulesWith, runChecks } from './provider.js';

const CHECKS = [
  'grants.token-response-fields',
  'grants.token-error-body',
  'grants.code-unknown',
  'device.authorization-response',
  'device.slow-down',
];

let front: Loopback & { sim: Sim };
/** CR LF between the description's lines, as Entra sends them; else a space. */
let lineBreak = '\r\n';
const seen = new Set<string>();

const json = (body: Record<string, unknown>, answer: Response) =>
  new Response(JSON.stringify(body), { status: answer.status, headers: answer.headers });

beforeAll(async () => {
  front = await answeringPosts(
    ['/oauth/token', '/oauth/revoke', '/oauth/authorize_device'],
    async ({ url }, simulator) => {
      const answer = await simulator();
      const body = (await answer
        .clone()
        .json()
        .catch(() => undefined)) as Record<string, unknown> | undefined;
      if (!body) return answer;
      const ids = {
        trace_id: '0b3e1a7c-1d7e-4b7e-9c1a-2f0a5d3c4e00',
        correlation_id: '5d2c9f4e-8a1b-4c3d-b2e1-7f6a5b4c3d2e',
      };
      const timestamp = '2026-11-27 13:40:00Z';
      if (typeof body.error === 'string') {
        seen.add('error');
        const said = (typeof body.error_description === 'string' ? body.error_description : '').replace(/["\\]/g, '');
        return json(
          {
            ...body,
            error_description: [
              `AADSTS70008: ${said}`,
              `Trace ID: ${ids.trace_id}`,
              `Correlation ID: ${ids.correlation_id}`,
              `Timestamp: ${timestamp}`,
            ].join(lineBreak),
            error_codes: [70008],
            timestamp,
            ...ids,
            error_uri: 'https://login.microsoftonline.com/error?code=70008',
          },
          answer,
        );
      }
      if (url.pathname === '/oauth/authorize_device') {
        seen.add('device');
        return json(
          {
            ...body,
            expires_in: String(body.expires_in),
            interval: String(body.interval),
            message: `To sign in, use a web browser to open the page ${String(body.verification_uri)} and enter the code to authenticate.`,
          },
          answer,
        );
      }
      if (url.pathname !== '/oauth/token' || typeof body.expires_in !== 'number') return answer;
      seen.add('tokens');
      return json({ ...body, expires_in: String(body.expires_in), ext_expires_in: String(body.expires_in) }, answer);
    },
  );
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe("Entra ID's answers: error bodies of its own, lifetimes as strings", () => {
  it.each([
    [
      'with CR LF in error_description',
      '\r\n',
      ['DEV-AUTHORIZE-RESPONSE', 'ERR-DESCRIPTION-CHARSET', 'TOK-EXPIRES-IN'],
    ],
    ['on one line', ' ', ['DEV-AUTHORIZE-RESPONSE', 'TOK-EXPIRES-IN']],
  ])(
    '%s: each deviation fails its own rule alone',
    async (_name, breaks, failed) => {
      lineBreak = breaks;
      seen.clear();
      const { code, report, stderr } = await runChecks(front, CHECKS);
      const why = explain(report, stderr);
      expect([...seen].sort(), why).toEqual(['device', 'error', 'tokens']);
      expect(rulesWith(report, 'failed'), why).toEqual(failed);
      expect(rulesWith(report, 'warned'), why).toEqual([]);
      expect(checksWith(report, 'errored', 'skipped'), why).toEqual([]);
      expect(code, why).toBe(1);
    },
    120_000,
  );
});
