/**
 * A device verification page in two steps, as RFC 8628 §5.4 advises against remote phishing:
 * the user code entered and "Continue", then a page that names the client and the code and asks
 * to confirm ("Confirm" / "Cancel", posted as confirm=yes / no; Okta's, Entra ID's and
 * oidc-provider's pages ask so). Both drivers enter the code, go on and decide on the second page:
 * the device checks pass whether the check approves or denies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { bodyOf, sendAnswer, simulatorAnswerTo, simulatorWith, type Loopback } from '../suites/loopback.js';
import { escaped, page } from './sign-in-journey.js';
import { checksWith, explain, PAGE_DRIVERS, runWithDriver } from './provider.js';

const ON_THE_PAGE = ['device.token-response', 'device.verification-page'];
const DECISION_BUTTONS = /<button type="submit" name="decision" value="approve">[\s\S]*?value="deny">[^<]*<\/button>/;

let front: Loopback & { sim: Sim };
/** The confirmation pages shown, and the answers posted from them. */
const confirmations: string[] = [];

const headersOf = (raw: Record<string, string | string[] | undefined>) => {
  const headers = new Headers();
  for (const [k, v] of Object.entries(raw)) if (typeof v === 'string') headers.set(k, v);
  return headers;
};

beforeAll(async () => {
  let base = '';
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/oauth/device' && req.method === 'GET') {
      // Step one: the code, and "Continue" to the confirmation.
      sendAnswer(
        res,
        simulatorAnswerTo(front.sim, req, url).then(async (answer) => {
          const html = (await answer.text())
            .replace('action="/oauth/device"', 'action="/oauth/device/confirm"')
            .replace(DECISION_BUTTONS, '<button type="submit">Continue</button>');
          return new Response(html, { status: answer.status, headers: answer.headers });
        }),
      );
      return true;
    }
    if (url.pathname === '/oauth/device/confirm' && req.method === 'POST') {
      sendAnswer(
        res,
        bodyOf(req).then((body) => {
          const form = new URLSearchParams(body.toString('utf8'));
          confirmations.push('shown');
          const hidden = [...form]
            .map(([k, v]) => `<input type="hidden" name="${escaped(k)}" value="${escaped(v)}">`)
            .join('');
          return new Response(
            page(
              'Confirm device',
              `<p><strong>Conformance device app</strong> is asking to connect to your account.</p>
<p>Make sure this code matches the one shown on your device: <code>${escaped(form.get('user_code') ?? '')}</code></p>
<form method="post" action="/oauth/device">${hidden}
<button type="submit" name="confirm" value="yes">Confirm</button>
<button type="submit" name="confirm" value="no">Cancel</button></form>`,
            ),
            { headers: { 'content-type': 'text/html; charset=utf-8' } },
          );
        }),
      );
      return true;
    }
    if (url.pathname === '/oauth/device' && req.method === 'POST') {
      sendAnswer(
        res,
        bodyOf(req).then((body) => {
          const form = new URLSearchParams(body.toString('utf8'));
          const confirm = form.get('confirm');
          if (confirm) {
            confirmations.push(confirm);
            form.delete('confirm');
            form.set('decision', confirm === 'yes' ? 'approve' : 'deny');
          }
          const headers = headersOf(req.headers);
          headers.delete('content-length');
          return front.sim.handle(new Request(url, { method: 'POST', headers, body: form.toString() }));
        }),
      );
      return true;
    }
    return false;
  });
  base = front.url;
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe('a device page that names the client and asks to confirm (RFC 8628 §5.4)', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: the code entered, the confirmation answered, the device checks pass',
    async (kind) => {
      confirmations.length = 0;
      // The drivers' own defaults: the simulator's consent selectors name buttons this page has not.
      const { code, report, stderr } = await runWithDriver(front, kind, ON_THE_PAGE);
      const why = explain(report, stderr);
      expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual([]);
      expect(code, why).toBe(0);
      // Confirmed for the token, cancelled for the page's denial.
      expect([...new Set(confirmations)].sort(), why).toEqual(['no', 'shown', 'yes']);
    },
    120_000,
  );
});
