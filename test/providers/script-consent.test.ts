/**
 * Authelia's consent: after the sign-in (a plain form here), the authorization endpoint answers
 * with an application shell whose script draws the consent (the client, the scopes, "Accept" and
 * "Deny" buttons and a "Remember consent" box) and posts the decision to an API of its own with
 * `fetch`; a remembered consent for the same client and scopes is given again without asking.
 *
 * - The form driver cannot draw the page: said once for the run, on the first check that needed the
 *   decision, never as a refused sign-in; what needs the decision is untested, the rest passes.
 * - The browser driver accepts and denies on the page, and every check passes.
 * - A consent remembered (the box ticked by default, as a deployment may set it) leaves a later deny
 *   visit nothing to deny: a missing premise of that check alone, skipped saying so (and that the code
 *   handed over is a grant to revoke), never GRANT-CONSENT-DENIED failed nor the run errored (exit 0);
 *   a provider that asks again for `prompt=consent` (the deny check sends it) shows the page, denied.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { bodyOf, sendAnswer, simulatorAnswerTo, simulatorWith, type Loopback } from '../suites/loopback.js';
import { checksWith, explain, PAGE_DRIVERS, rulesWith, runWithDriver } from './provider.js';
import { consentKey, decideAt, hiddenFields, unescaped } from './consent-form.js';

/** Each an authorization of its own: the first signs in; consent-denied denies; state-unchanged needs nobody's decision after a remembered one. */
const CHECKS = ['grants.state-unchanged', 'grants.consent-denied', 'oidc.id-token', 'grants.unsupported-grant-type'];

let provider: Loopback & { sim: Sim };
/** The consent form's fields the simulator drew, by the id the shell posts back. */
const pending = new Map<string, URLSearchParams>();
/** Consents remembered: `client_id scope`. */
const remembered = new Set<string>();
/** Is the "Remember consent" box ticked when the page is drawn? */
let rememberByDefault = false;
/** Does `prompt=consent` ask again for a remembered consent (else it is ignored, as OAuth 2.0 lets it be)? */
let honoursPrompt = false;
/** Decisions posted through the consent API: to show the script did the work. */
const decisions: string[] = [];

/** The shell: the data the script needs, no form; the script draws the page after it loads. */
function shell(id: string, client: string, scopes: string[]): string {
  const data = JSON.stringify({ id, client, scopes, remember: rememberByDefault }).replace(/</g, '\\u003c');
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Authelia</title></head>
<body><div id="root"></div><script>
const data = ${data};
const h = (tag, props = {}, ...children) => { const n = Object.assign(document.createElement(tag), props); n.append(...children); return n; };
async function decide(decision) {
  const answer = await fetch('/api/oidc/consent', { method: 'POST', headers: { 'content-type': 'application/json' }, credentials: 'same-origin',
    body: JSON.stringify({ id: data.id, decision, remember: document.getElementById('remember').checked }) });
  const { redirect_uri } = await answer.json();
  window.location.assign(redirect_uri);
}
setTimeout(() => {
  const remember = h('input', { type: 'checkbox', id: 'remember', checked: data.remember });
  const accept = h('button', { type: 'button', id: 'accept-button', textContent: 'Accept' });
  const deny = h('button', { type: 'button', id: 'deny-button', textContent: 'Deny' });
  accept.addEventListener('click', () => decide('accept'));
  deny.addEventListener('click', () => decide('reject'));
  document.getElementById('root').replaceChildren(
    h('h2', { textContent: 'Hi root' }),
    h('p', { textContent: 'Consent Request: ' + data.client }),
    h('p', { textContent: 'The above application is requesting the following permissions:' }),
    h('ul', {}, ...data.scopes.map((s) => h('li', { textContent: s }))),
    h('label', {}, remember, ' Remember consent'),
    accept, deny);
}, 50);
</script></body></html>`;
}

/** The consent form's decision posted to the simulator as the user `cookie` (its answer: the redirect). */
const decide = (fields: URLSearchParams, decision: 'approve' | 'deny', cookie: string) =>
  decideAt(provider.sim, provider.url, fields, decision, cookie);

beforeAll(async () => {
  provider = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', provider.url);
    const cookie = req.headers.cookie ?? '';
    if (req.method === 'GET' && url.pathname === '/oauth/authorize') {
      sendAnswer(
        res,
        simulatorAnswerTo(provider.sim, req, url).then(async (answer) => {
          const html = answer.status === 200 ? await answer.clone().text() : '';
          if (!html.includes('id="consent"')) return answer;
          const fields = hiddenFields(html);
          const key = consentKey(fields);
          const asked = honoursPrompt && url.searchParams.get('prompt') === 'consent';
          if (remembered.has(key) && !asked) return decide(fields, 'approve', cookie);
          const id = randomUUID();
          pending.set(id, fields);
          const client = unescaped(/id="application-name">([^<]*)</.exec(html)?.[1] ?? '');
          return new Response(shell(id, client, (fields.get('scope') ?? '').split(' ')), {
            status: 200,
            headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
          });
        }),
      );
      return true;
    }
    if (req.method === 'POST' && url.pathname === '/api/oidc/consent') {
      sendAnswer(
        res,
        bodyOf(req).then(async (raw) => {
          const { id, decision, remember } = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
          const fields = pending.get(String(id));
          if (!fields) return Response.json({ status: 'KO' }, { status: 400 });
          pending.delete(String(id));
          decisions.push(String(decision));
          const approve = decision === 'accept';
          if (approve && remember === true) remembered.add(consentKey(fields));
          const answer = await decide(fields, approve ? 'approve' : 'deny', cookie);
          return Response.json({ redirect_uri: answer.headers.get('location') });
        }),
      );
      return true;
    }
    return false;
  });
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

/** A fresh provider state: nothing remembered, the box as `ticked`, the simulator's sessions gone. */
function reset(ticked: boolean, prompt = false) {
  honoursPrompt = prompt;
  remembered.clear();
  decisions.length = 0;
  rememberByDefault = ticked;
}

describe('a consent page a script draws, as Authelia does', () => {
  it('form driver: said once for the run, no sign-in refused; what needs no decision passes', async () => {
    reset(false);
    const run = await runWithDriver(provider, 'form', CHECKS);
    const why = explain(run.report, run.stderr);
    expect(checksWith(run.report, 'failed', 'warned'), why).toEqual([]);
    const errored = run.report.checks.filter((c) => c.status === 'errored');
    expect(
      errored.map((c) => c.message),
      why,
    ).toHaveLength(1);
    expect(errored[0].message, why).toMatch(/a script draws it/);
    for (const check of run.report.checks) expect(check.message ?? '', why).not.toMatch(/refused the sign-in/);
    const skipped = run.report.checks.filter((c) => c.status === 'skipped');
    expect(skipped.length, why).toBe(2);
    for (const check of skipped) expect(check.message, why).toMatch(/seen earlier in this run/);
    expect(checksWith(run.report, 'passed'), why).toEqual(['grants.unsupported-grant-type']);
  }, 120_000);

  it.skipIf(!PAGE_DRIVERS.includes('browser'))(
    'browser driver: accepts and denies on the page, every check passes',
    async () => {
      reset(false);
      const run = await runWithDriver(provider, 'browser', CHECKS);
      const why = explain(run.report, run.stderr);
      expect(checksWith(run.report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual([]);
      expect(run.code, why).toBe(0);
      expect(decisions, why).toContain('reject');
    },
    120_000,
  );

  it.skipIf(!PAGE_DRIVERS.includes('browser'))(
    'browser driver, consent remembered: the deny visit meets no consent, its check alone skipped (the grant it got said), nothing failed, exit 0',
    async () => {
      reset(true);
      const run = await runWithDriver(provider, 'browser', CHECKS);
      const why = explain(run.report, run.stderr);
      expect(checksWith(run.report, 'failed', 'warned', 'errored'), why).toEqual([]);
      expect(rulesWith(run.report, 'failed', 'warned'), why).toEqual([]);
      expect(checksWith(run.report, 'skipped'), why).toEqual(['grants.consent-denied']);
      expect(run.code, why).toBe(0);
      const denied = run.report.checks.find((c) => c.id === 'grants.consent-denied');
      expect(denied?.message, why).toMatch(
        /^the provider granted the authorization without showing a consent to deny \(one it remembered; prompt=consent, which this check sends, was not honoured\): nothing was denied; the code it handed over is a grant .*: revoke it in the provider$/,
      );
      expect(decisions, why).not.toContain('reject');
    },
    120_000,
  );

  it.skipIf(!PAGE_DRIVERS.includes('browser'))(
    'browser driver, consent remembered and prompt=consent asking again: the deny visit denies, every check passes',
    async () => {
      reset(true, true);
      const run = await runWithDriver(provider, 'browser', CHECKS);
      const why = explain(run.report, run.stderr);
      expect(checksWith(run.report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual([]);
      expect(decisions, why).toContain('reject');
    },
    120_000,
  );
});
