/**
 * Ory Hydra's ways of answering: a revocation answered 200 with an empty body and no Content-Type
 * (its handler writes the status alone, RFC 7009 §2.2 asks no body); an authorization request
 * whose redirect_uri is not registered sent 303 to its own error page,
 * `/oauth2/fallbacks/error?error=…&error_description=…&error_hint=…&error_debug=…`, a 200 HTML
 * page; an error sent back to the client's redirect_uri with `error_hint` and `error_debug` beside
 * `error_description`, by a 303; a token endpoint 401 without `WWW-Authenticate`. The empty revocation breaks L171 ("200
 * with an empty JSON object"): `REV-EMPTY-OBJECT`, and `ENC-RESPONSE-JSON` for the missing JSON;
 * a run of that one check lists both rules it broke. The error page is no redirect to the client
 * (`GRANT-REDIRECT-URI-REGISTERED` holds), its 200 warns `GRANT-AUTHORIZE-ERROR-PAGE-STATUS`; the
 * extra parameters of an error redirect are ignored (RFC 6749 §4.1.2.1);
 * the 401 to a client that used HTTP Basic fails `AUTH-INVALID-CLIENT-BASIC` (RFC 6749 §5.2 MUST).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { sendAnswer, simulatorAnswerTo, simulatorWith, type Loopback } from '../suites/loopback.js';
import { checksWith, explain, rulesWith, runAgainst, runChecks } from './provider.js';

const FALLBACK = '/oauth2/fallbacks/error';

let front: Loopback & { sim: Sim };
/** What the provider answered its own way: `revoke`, `fallback` (a redirect to its error page), `no-challenge`. */
const seen: string[] = [];
/** How the revocation is answered: Hydra's empty 200, or `{}` as text/plain (a framework's default type). */
let revocation: 'empty' | 'text' = 'empty';

/** Hydra's answer in place of the simulator's `answer` to `url`, or the simulator's own. */
async function hydra(url: URL, answer: Response): Promise<Response> {
  if (url.pathname === '/oauth/revoke' && answer.status === 200) {
    seen.push('revoke');
    if (revocation === 'text') return new Response('{}', { status: 200, headers: { 'content-type': 'text/plain' } });
    return new Response(null, { status: 200 });
  }
  const page = (answer.headers.get('content-type') ?? '').startsWith('text/html');
  if (url.pathname === '/oauth/authorize' && answer.status >= 400 && page) {
    seen.push('fallback');
    const to = new URL(FALLBACK, url);
    to.searchParams.set('error', 'invalid_request');
    to.searchParams.set('error_description', 'The request is missing a required parameter or is otherwise malformed.');
    to.searchParams.set(
      'error_hint',
      "The 'redirect_uri' parameter does not match any of the OAuth 2.0 Client's pre-registered redirect urls.",
    );
    to.searchParams.set('error_debug', `client_id=${url.searchParams.get('client_id') ?? ''}`);
    return new Response(null, { status: 303, headers: { location: to.href } });
  }
  // An error sent back to the client carries Hydra's hint and debug text beside error_description.
  const location = answer.headers.get('location');
  if (location && /[?&]error=/.test(location)) {
    seen.push('hint');
    const to = new URL(location);
    to.searchParams.set('error_hint', 'The requested OAuth 2.0 Client does not allow this request.');
    to.searchParams.set('error_debug', `client_id=${url.searchParams.get('client_id') ?? ''}`);
    return new Response(null, { status: 303, headers: { location: to.href } });
  }
  if (url.pathname === '/oauth/token' && answer.headers.has('www-authenticate')) {
    seen.push('no-challenge');
    const headers = new Headers(answer.headers);
    headers.delete('www-authenticate');
    return new Response(await answer.text(), { status: answer.status, headers });
  }
  return answer;
}

beforeAll(async () => {
  let base = '';
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === FALLBACK) {
      const error = (url.searchParams.get('error') ?? '').replace(/[^\w]/g, '');
      req.resume();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>An error occurred</title><h1>An error occurred</h1><p>${error}</p>`);
      return true;
    }
    if (!['/oauth/revoke', '/oauth/token'].includes(url.pathname) && !url.pathname.startsWith('/oauth/authorize'))
      return false;
    sendAnswer(
      res,
      simulatorAnswerTo(front.sim, req, url).then((answer) => hydra(url, answer)),
    );
    return true;
  });
  base = front.url;
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe("Ory Hydra's answers: an empty revocation, its own error page, a 401 without a challenge", () => {
  it('a run of the revocation check alone blames the empty answer once: REV-EMPTY-OBJECT', async () => {
    seen.length = 0;
    const { code, report, stderr } = await runAgainst(front, { check: 'tokens.revoke-access-token', runs: '1' });
    const why = explain(report, stderr);
    expect(seen, why).toContain('revoke');
    expect(checksWith(report, 'failed'), why).toEqual(['tokens.revoke-access-token']);
    // The media type of no content is the same deviation as the missing {}, not ENC-RESPONSE-JSON's too.
    expect(report.checks[0].broken, why).toEqual(['REV-EMPTY-OBJECT']);
    expect(rulesWith(report, 'failed'), why).toEqual(['REV-EMPTY-OBJECT']);
    expect(code, why).toBe(1);
  }, 120_000);

  it('a run of the revocation check alone lists every rule its answer broke, its own or not', async () => {
    seen.length = 0;
    revocation = 'text';
    try {
      const { code, report, stderr } = await runAgainst(front, { check: 'tokens.revoke-access-token', runs: '1' });
      const why = explain(report, stderr);
      expect(seen, why).toContain('revoke');
      // {} as text/plain breaks ENC-RESPONSE-JSON, no rule of this check's: the table still shows it.
      expect(report.checks[0].broken, why).toEqual(expect.arrayContaining(['ENC-RESPONSE-JSON']));
      expect(rulesWith(report, 'failed'), why).toContain('ENC-RESPONSE-JSON');
      expect(code, why).toBe(1);
    } finally {
      revocation = 'empty';
    }
  }, 120_000);

  it('its error page and its bare 401 each fail or warn their own rule alone', async () => {
    seen.length = 0;
    const { report, stderr } = await runChecks(front, [
      'grants.authorize-unregistered-redirect',
      'grants.authorize-missing-parameters',
      'grants.client-authentication-failures',
      'grants.response-type-code-only',
      'grants.consent-denied',
    ]);
    const why = explain(report, stderr);
    expect(seen, why).toEqual(expect.arrayContaining(['fallback', 'hint', 'no-challenge']));
    expect(rulesWith(report, 'failed'), why).toEqual(['AUTH-INVALID-CLIENT-BASIC']);
    expect(rulesWith(report, 'warned'), why).toEqual(['GRANT-AUTHORIZE-ERROR-PAGE-STATUS']);
    expect(report.rules.find((r) => r.id === 'GRANT-REDIRECT-URI-REGISTERED')?.status, why).toBe('passed');
    expect(checksWith(report, 'errored', 'skipped'), why).toEqual([]);
  }, 120_000);
});
