/**
 * Refusals whose body is no JSON at all: a reverse proxy or a framework answering the OAuth
 * endpoints' errors (token, revocation, device authorization, token info) with an HTML page of
 * its own, the status kept; and the same refusals with no body (Content-Length: 0, as many
 * providers answer a 401). The HTML page breaks ENC-RESPONSE-JSON's sentence (L102: responses are
 * JSON) and that one alone: the error body's members cannot be read from a page, so the error-body
 * rules are not judged on it (before, each page failed ERR-OAUTH-BODY and TOK-ERROR-BODY too). No
 * content has no media type: the empty body is the error-body rules' alone, as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { simulatorRewriting, type Loopback } from '../suites/loopback.js';
import { checksWith, explain, rulesWith, runChecks } from './provider.js';

/** The OAuth endpoints whose refusals are rewritten. */
const REFUSING = new Set([
  'POST /oauth/token',
  'POST /oauth/revoke',
  'POST /oauth/authorize_device',
  'GET /oauth/token/info',
]);

/** How a refusal goes out: the simulator's JSON, a front proxy's HTML page, or no body. */
let mode: 'html' | 'empty' = 'html';

/** A front proxy's own error page, nginx's shape, for the refusal's status. */
const page = (status: number) =>
  new Response(
    `<html><head><title>${status} Error</title></head><body><center><h1>${status} Error</h1></center><hr><center>nginx</center></body></html>`,
    { status, headers: { 'content-type': 'text/html', 'cache-control': 'no-store' } },
  );

let provider: Loopback & { sim: Sim };

beforeAll(async () => {
  provider = await simulatorRewriting(
    (method, url) => REFUSING.has(`${method} ${url.pathname}`),
    (answer) => {
      if (answer.status < 400) return answer;
      if (mode === 'html') return page(answer.status);
      return new Response(null, { status: answer.status, headers: { 'cache-control': 'no-store' } });
    },
  );
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

/** Checks that meet refusals at those endpoints (their successes pass through as they are), the device polls' too. */
const REFUSALS = [
  'grants.token-error-body',
  'grants.code-unknown',
  'grants.unsupported-grant-type',
  'grants.code-single-use',
  'device.authorize-refusals',
  'device.unknown-device-code',
  'device.expired-token',
  'device.state-machine',
  'tokens.info-invalid-token',
  'tokens.revoke-client-auth',
];

describe('OAuth refusals answered with no JSON body', () => {
  it('an HTML error page fails ENC-RESPONSE-JSON alone, on every check that met one', async () => {
    mode = 'html';
    const run = await runChecks(provider, REFUSALS);
    const why = explain(run.report, run.stderr);
    expect(checksWith(run.report, 'errored', 'skipped'), why).toEqual([]);
    expect(rulesWith(run.report, 'failed', 'warned'), why).toEqual(['ENC-RESPONSE-JSON']);
    expect(checksWith(run.report, 'failed'), why).toEqual([...REFUSALS].sort());
    // What the page hides (the error code, the body's members) is not judged: never failed.
    for (const id of ['ERR-OAUTH-BODY', 'TOK-ERROR-BODY', 'ERR-TOKEN-STANDARD-CODES'])
      expect(run.report.rules.find((r) => r.id === id)?.status, why).not.toBe('failed');
    expect(run.code, why).toBe(1);
  }, 180_000);

  it('an empty error body fails the error-body rules alone, not ENC-RESPONSE-JSON', async () => {
    mode = 'empty';
    const run = await runChecks(provider, REFUSALS);
    const why = explain(run.report, run.stderr);
    expect(checksWith(run.report, 'errored', 'skipped'), why).toEqual([]);
    expect(rulesWith(run.report, 'failed', 'warned'), why).toEqual(['ERR-OAUTH-BODY', 'TOK-ERROR-BODY']);
    expect(run.code, why).toBe(1);
  }, 180_000);
});
