/**
 * PingFederate's way with errors: the authorization endpoint answers a request it cannot trust (an
 * unknown client_id, 200; a redirect_uri not registered, 400) with an HTML page of its own, no
 * redirect and no JSON, which RFC 6749 §4.1.2.1 asks for; the token endpoint answers most refusals
 * as JSON with the standard codes, a refused password grant with a code of its own
 * (`account_locked`), and a malformed request (an unsupported grant type, a missing
 * parameter) with a 400 and an empty body. Each answer is
 * judged by the rule whose sentence it breaks, once per cause: the error pages pass the must, the
 * vendor code fails ERR-TOKEN-STANDARD-CODES alone, the empty body ERR-OAUTH-BODY and
 * TOK-ERROR-BODY alone; the rules that asked for the refusals pass, the refusals were made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { sendAnswer, simulatorAnswerTo, simulatorWith, type Loopback } from '../suites/loopback.js';
import { checksWith, explain, PAGE_DRIVERS, rulesWith, runWithDriver } from './provider.js';

/** Ping's error page: a template of its own, the error said in prose. */
const errorPage = (status: number, what: string) =>
  new Response(
    `<!DOCTYPE html><html><head><title>Error</title></head><body><div class="ping-error"><h1>Unable to process request</h1><p>${what}</p><p>Please contact your system administrator.</p></div></body></html>`,
    { status, headers: { 'content-type': 'text/html;charset=utf-8' } },
  );

/** What Ping answers in place of the simulator's token error `error` to a grant of `grant` (undefined: as it is). */
function tokenError(grant: string | null, error: string): Response | undefined {
  // Refusals of a malformed request: a 400 and nothing else (Content-Length: 0).
  if (error === 'unsupported_grant_type' || error === 'invalid_request') return new Response(null, { status: 400 });
  if (grant === 'password' && error === 'invalid_grant')
    return Response.json(
      { error: 'account_locked', error_description: 'The account is locked' },
      { status: 400, headers: { 'cache-control': 'no-store' } },
    );
  return undefined;
}

let provider: Loopback & { sim: Sim };
/** The statuses the other way round: a 200 page for a redirect_uri not registered, a 400 one for an unknown client. */
let swapped = false;

beforeAll(async () => {
  let base = '';
  provider = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (req.method === 'GET' && url.pathname === '/oauth/authorize') {
      sendAnswer(
        res,
        simulatorAnswerTo(provider.sim, req, url).then(async (answer) => {
          // The simulator's own error page (4xx HTML) is the client or redirect_uri it cannot trust.
          if (answer.status < 400 || !(answer.headers.get('content-type') ?? '').includes('html')) return answer;
          return /unknown client_id/.test(await answer.text())
            ? errorPage(swapped ? 400 : 200, 'The client is not recognized.')
            : errorPage(swapped ? 200 : 400, 'The redirect_uri is not registered for this client.');
        }),
      );
      return true;
    }
    if (req.method === 'POST' && url.pathname === '/oauth/token') {
      sendAnswer(
        res,
        (async () => {
          const chunks: Buffer[] = [];
          for await (const c of req) chunks.push(c as Buffer);
          const body = Buffer.concat(chunks);
          const headers = new Headers();
          for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
          const answer = await provider.sim.handle(
            new Request(url, { method: 'POST', headers, body: new Uint8Array(body) }),
          );
          if (answer.status < 400) return answer;
          const grant = new URLSearchParams(body.toString('utf8')).get('grant_type');
          const error = ((await answer.clone().json()) as { error?: string }).error ?? '';
          return tokenError(grant, error) ?? answer;
        })(),
      );
      return true;
    }
    return false;
  });
  base = provider.url;
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

/** The authorization endpoint's error pages: judged by the driver that plays the pages. */
const AUTHORIZE = ['grants.authorize-unregistered-redirect', 'grants.authorize-unknown-client'];
/** Token refusals: a vendor code, empty bodies, and refusals as JSON with the standard codes. */
const TOKEN = [
  'grants.password-bad-credentials',
  'grants.unsupported-grant-type',
  'grants.missing-parameter',
  'grants.code-unknown',
  'grants.token-error-body',
];

describe('a provider answering errors as PingFederate does', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: an HTML page for a redirect_uri not registered passes; a 200 one for an unknown client warns on its status alone',
    async (kind) => {
      const run = await runWithDriver(provider, kind, AUTHORIZE);
      const why = explain(run.report, run.stderr);
      expect(checksWith(run.report, 'failed', 'errored', 'skipped'), why).toEqual([]);
      expect(rulesWith(run.report, 'warned'), why).toEqual(['GRANT-AUTHORIZE-ERROR-PAGE-STATUS']);
      // The warned check's other rules stay untested (report.ts: a failure says nothing of them).
      expect(rulesWith(run.report, 'passed'), why).toEqual(['GRANT-REDIRECT-URI-REGISTERED']);
      expect(run.code, why).toBe(0);
    },
    120_000,
  );

  it.each(PAGE_DRIVERS)(
    '%s driver: a 200 HTML page for a redirect_uri not registered passes the must too',
    async (kind) => {
      swapped = true;
      try {
        const run = await runWithDriver(provider, kind, ['grants.authorize-unregistered-redirect']);
        const why = explain(run.report, run.stderr);
        expect(checksWith(run.report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual([]);
        expect(run.code, why).toBe(0);
      } finally {
        swapped = false;
      }
    },
    120_000,
  );

  it('token refusals: a vendor code fails the rule on codes, an empty body the error-body rules, the refusals pass', async () => {
    const run = await runWithDriver(provider, 'form', TOKEN);
    const why = explain(run.report, run.stderr);
    expect(checksWith(run.report, 'errored', 'skipped'), why).toEqual([]);
    // No content has no media type to judge: the empty body breaks the error body's rules alone, not
    // ENC-RESPONSE-JSON too (one cause, one blame; oauth-deviations' empty body, the same).
    expect(rulesWith(run.report, 'failed', 'warned'), why).toEqual([
      'ERR-OAUTH-BODY',
      'ERR-TOKEN-STANDARD-CODES',
      'TOK-ERROR-BODY',
    ]);
    // The JSON refusals prove their rules; the rules that asked for a refusal met with an empty body
    // or a vendor code are not failed (the refusal was made), and stay untested beside the failure.
    expect(rulesWith(run.report, 'passed'), why).toEqual(
      expect.arrayContaining(['ERR-INVALID-GRANT', 'ERR-NO-SERVER-ERROR', 'GRANT-CODE-UNKNOWN']),
    );
    // The empty bodies and the vendor code, on the checks that met them; the JSON refusals pass.
    expect(checksWith(run.report, 'failed'), why).toEqual([
      'grants.missing-parameter',
      'grants.password-bad-credentials',
      'grants.unsupported-grant-type',
    ]);
    expect(run.code, why).toBe(1);
  }, 120_000);
});
