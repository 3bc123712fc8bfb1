/**
 * An authorization endpoint that refuses every parameter it does not know, as Google's does ("Error
 * 400: invalid_request. Parameter not allowed for this message type: …", a page of its own, no
 * redirect), or by an error redirect with invalid_request. RFC 6749 §3.1 says the server MUST ignore
 * unrecognized request parameters: a deviation, and exactly one rule says so,
 * GRANT-AUTHORIZE-UNKNOWN-PARAMS (grants.authorize-unknown-parameter sends `conformance_probe=1`
 * beside the documented ones, once the same request without it got its code). The parameters the
 * harness sends on its own flows (RFC 6749's, PKCE's, OIDC's nonce and prompt) it knows: every other
 * check passes. The simulator ignores the probe, as the RFC says: that check passes there. Before,
 * no check sent a parameter nobody defines, and the deviation went unseen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explain, PAGE_DRIVERS, rulesWith, runWithDriver, startProvider, type Provider } from './provider.js';
import { page } from './sign-in-journey.js';

const CHECKS = [
  'grants.authorize-unknown-parameter',
  'grants.state-unchanged',
  'grants.consent-denied',
  'oidc.id-token',
];
/** What the endpoint knows: RFC 6749 §4.1.1, RFC 7636 §4.3, OIDC Core §3.1.2.1 (Google's list, shortened). */
const KNOWN = new Set([
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'nonce',
  'prompt',
  'login_hint',
  'max_age',
  'access_type',
  'include_granted_scopes',
]);

/**
 * Google's page says more: a "Send feedback" form whose button its script enables once something
 * is typed. That button decides nothing of the authorization (review hform22: the form driver
 * took it for the decision kept disabled by a script and advised the browser driver).
 */
const FEEDBACK = `<form method="post" action="/feedback"><textarea name="feedback"></textarea>
<button type="submit" id="send" disabled>Send feedback</button></form>
<script>document.querySelector('textarea').addEventListener('input', function (e) {
  document.getElementById('send').disabled = !e.target.value; });</script>`;

/** How it refuses: its own error page (Google's, with its feedback form or without), or an error redirect to the client. */
let refusal: 'page' | 'feedback' | 'redirect' | 'none' = 'page';
let provider: Provider;

beforeAll(async () => {
  provider = await startProvider((method, url) => {
    if (method !== 'GET' || url.pathname !== '/oauth/authorize' || refusal === 'none') return undefined;
    const unknown = [...url.searchParams.keys()].find((k) => !KNOWN.has(k));
    if (unknown === undefined) return undefined;
    if (refusal === 'page' || refusal === 'feedback')
      return () => ({
        status: 400,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: page(
          'Access blocked: Authorization Error',
          `<p>Error 400: invalid_request</p><p>Parameter not allowed for this message type: ${unknown}</p>${refusal === 'feedback' ? FEEDBACK : ''}`,
        ),
      });
    const back = new URL(url.searchParams.get('redirect_uri') ?? '');
    back.searchParams.set('error', 'invalid_request');
    back.searchParams.set('error_description', `Parameter not allowed for this message type: ${unknown}`);
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    return () => ({ status: 302, headers: { location: back.href } });
  });
}, 60_000);
afterAll(() => provider?.close());

describe('an authorization endpoint that refuses parameters it does not know', () => {
  it.each([
    ...PAGE_DRIVERS.map((kind) => ({ kind, how: 'page' as const })),
    { kind: 'form' as const, how: 'redirect' as const },
    { kind: 'form' as const, how: 'feedback' as const },
  ])('$kind driver, refused by an error $how: GRANT-AUTHORIZE-UNKNOWN-PARAMS alone fails', async ({ kind, how }) => {
    refusal = how;
    const { code, report, stderr } = await runWithDriver(provider, kind, CHECKS);
    const why = explain(report, stderr);
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['GRANT-AUTHORIZE-UNKNOWN-PARAMS']);
    expect(
      report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}`),
      why,
    ).toEqual(['grants.authorize-unknown-parameter failed']);
    expect(code, why).toBe(1);
  });

  it('ignored, as the simulator does: the check passes', async () => {
    refusal = 'none';
    const { code, report, stderr } = await runWithDriver(provider, 'form', ['grants.authorize-unknown-parameter']);
    const why = explain(report, stderr);
    expect(rulesWith(report, 'passed'), why).toEqual(['GRANT-AUTHORIZE-UNKNOWN-PARAMS']);
    expect(code, why).toBe(0);
  });
});
