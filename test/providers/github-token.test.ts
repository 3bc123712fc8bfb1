/**
 * A token endpoint as GitHub's answers: every refusal 200 with a JSON body and a code of its own
 * (`bad_verification_code` for a code, `bad_refresh_token`, `incorrect_client_credentials`, with
 * `error_uri`), and success form-encoded (`access_token=…&scope=…&token_type=bearer`) unless the
 * request says `Accept: application/json`, as the harness does on every request but one. Each
 * deviation fails exactly the rule whose sentence it breaks: the 200 `ERR-TOKEN-STATUS` (a should:
 * RFC 6749 §5.2 says 400 with no MUST), the codes `ERR-TOKEN-STANDARD-CODES` (L262), the unasked
 * form encoding `TOK-RESPONSE-JSON` and `ENC-RESPONSE-JSON` (L102, RFC 6749 §5.1) once, by the
 * check that asks without Accept. The grants themselves, refused or answered with tokens, pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { bodyOf, sendAnswer, simulatorWith, type Loopback } from '../suites/loopback.js';
import { checksWith, explain, rulesWith, runWithDriver } from './provider.js';

/** GitHub's codes for the refusals it names its own way; the others keep the standard code. */
const OWN_CODES: Record<string, (grant: string | null) => string | undefined> = {
  invalid_grant: (grant) =>
    grant === 'authorization_code'
      ? 'bad_verification_code'
      : grant === 'refresh_token'
        ? 'bad_refresh_token'
        : undefined,
  invalid_client: () => 'incorrect_client_credentials',
};

let front: Loopback & { sim: Sim };
/** The token answers the provider rewrote: `error <code>`, `form` (success form-encoded). */
const rewritten: string[] = [];

beforeAll(async () => {
  let base = '';
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname !== '/oauth/token' || req.method !== 'POST') return false;
    const asksJson = /\bapplication\/json\b/i.test(req.headers.accept ?? '');
    sendAnswer(
      res,
      bodyOf(req).then(async (raw) => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
        headers.delete('content-length');
        const answer = await front.sim.handle(new Request(url, { method: 'POST', headers, body: new Uint8Array(raw) }));
        const body = (await answer.json().catch(() => undefined)) as Record<string, unknown> | undefined;
        if (!body) return answer;
        const grant = new URLSearchParams(raw.toString('utf8')).get('grant_type');
        if (typeof body.error === 'string') {
          const error = OWN_CODES[body.error]?.(grant) ?? body.error;
          rewritten.push(`error ${error}`);
          return new Response(
            JSON.stringify({
              error,
              error_description: 'The code passed is incorrect or expired.',
              error_uri: 'https://docs.github.com/apps/troubleshooting',
            }),
            {
              status: 200,
              headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
            },
          );
        }
        if (asksJson) return new Response(JSON.stringify(body), { status: answer.status, headers: answer.headers });
        rewritten.push('form');
        const form = new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)]));
        return new Response(form.toString(), {
          status: answer.status,
          headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', 'cache-control': 'no-store' },
        });
      }),
    );
    return true;
  });
  base = front.url;
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe("GitHub's token endpoint: refusals 200 with codes of its own, success form-encoded unless asked for JSON", () => {
  it('form driver: the status, the codes and the unasked encoding each fail their own rule; the grants pass', async () => {
    const { report, stderr } = await runWithDriver(front, 'form', [
      'grants.token-response-fields',
      'grants.code-single-use',
      'grants.code-unknown',
      'grants.refresh-rotation',
      'grants.token-error-body',
    ]);
    const why = explain(report, stderr);
    expect(checksWith(report, 'errored', 'skipped'), why).toEqual([]);
    expect(rulesWith(report, 'failed'), why).toEqual([
      'ENC-RESPONSE-JSON',
      'ERR-TOKEN-STANDARD-CODES',
      'TOK-RESPONSE-JSON',
    ]);
    expect(rulesWith(report, 'warned'), why).toEqual(['ERR-TOKEN-STATUS']);
    // The form encoding blamed once, by the check that asked without Accept.
    const unasked = report.checks.filter((c) => c.rules.includes('TOK-RESPONSE-JSON') && c.status === 'failed');
    expect(
      unasked.map((c) => c.id),
      why,
    ).toEqual(['grants.token-response-fields']);
    expect(unasked[0].message, why).toMatch(/without an Accept header.*JSON came only when asked for/);
    // The refusals and the tokens the harness got (it asks for JSON) blame no grant rule: the rule
    // sets above are the whole of what failed or warned, and no check lost its premise.
    for (const id of ['GRANT-CODE-SINGLE-USE', 'GRANT-CODE-UNKNOWN', 'TOK-REFRESH-OLD-REFUSED', 'TOK-ERROR-BODY'])
      expect(['passed', 'untested'], `${id}\n${why}`).toContain(report.rules.find((r) => r.id === id)?.status);
    expect([...new Set(rewritten)], why).toEqual(
      expect.arrayContaining(['form', 'error bad_verification_code', 'error bad_refresh_token']),
    );
  }, 120_000);
});
