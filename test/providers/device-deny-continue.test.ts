/**
 * A device confirmation whose only control is a step's button (Microsoft's "Are you trying to sign
 * in…? [Continue]"), after the user code went out (in the page's URL, or by its own entry form): that
 * button is the approval in effect. Asked to deny, neither driver presses it: nothing pressed, the
 * check errs saying the page offers no way to deny, the device never approved. The entry form
 * itself (a visible user-code field, the code not sent yet) is still a step on a deny visit. Asked
 * to approve, the same page approves. Before, both drivers pressed "Continue" on the deny visit
 * and the provider connected the device on the configured user's account (poll 200).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { bodyOf, sendAnswer, simulatorWith, type Loopback } from '../suites/loopback.js';
import { escaped, page } from './sign-in-journey.js';
import { poll, startDevice } from '../../suites/device/flow.js';
import type { Check } from '../../suites/types.js';
import { explain, PAGE_DRIVERS, runAgainst } from './provider.js';

/** Where the code is before the confirmation: a hidden field, the form's action, or typed into an entry form first. */
type Mode = 'hidden-code' | 'code-in-action' | 'entry-form';
let front: Loopback & { sim: Sim };
/** The user codes the provider connected (approved). */
const connected: string[] = [];
let base = '';
let mode: Mode = 'hidden-code';
/**
 * The confirmation also says 'turn JavaScript on' in <noscript> and submits by a click handler, and
 * the connection's page has a Done button: no page that submits itself (review 10, item 1).
 */
let notice = false;
const html = (body: string) => new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } });

/** The confirmation: one form, one step button, which approves. */
function confirmation(code: string): string {
  const form =
    mode === 'code-in-action'
      ? `<form method="post" action="/oauth/device/decide?user_code=${encodeURIComponent(code)}"><button type="submit">Continue</button></form>`
      : `<form method="post" action="/oauth/device/decide"><input type="hidden" name="user_code" value="${escaped(code)}"><button type="submit">Continue</button></form>`;
  const script = `<noscript><p>This page works best with JavaScript.</p></noscript><script>document.querySelector('button').addEventListener('click', (e) => { e.preventDefault(); e.target.form.submit(); });</script>`;
  return page('Connect a device?', `<p>Are you trying to sign in on your TV?</p>${form}${notice ? script : ''}`);
}

beforeAll(async () => {
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const code = url.searchParams.get('user_code') ?? '';
    if (url.pathname === '/oauth/device' && req.method === 'GET') {
      // The code from verification_uri_complete's query: straight to the sign-in.
      const next = `/oauth/device/${mode === 'entry-form' ? 'enter' : 'confirm'}?user_code=${encodeURIComponent(code)}`;
      res.writeHead(302, { location: `/users/sign_in?redirect_to=${encodeURIComponent(next)}` }).end();
      return true;
    }
    if (url.pathname === '/oauth/device/enter' && req.method === 'GET') {
      const entry = `<form method="get" action="/oauth/device/confirm"><label>Code <input type="text" name="user_code" value="${escaped(code)}"></label><button type="submit">Continue</button></form>`;
      sendAnswer(res, Promise.resolve(html(page('Enter the code', entry))));
      return true;
    }
    if (url.pathname === '/oauth/device/confirm' && req.method === 'GET') {
      sendAnswer(res, Promise.resolve(html(confirmation(code))));
      return true;
    }
    if (url.pathname === '/oauth/device/decide' && req.method === 'POST') {
      sendAnswer(
        res,
        bodyOf(req).then(async (body) => {
          const posted = new URLSearchParams(body.toString()).get('user_code') ?? code;
          const answer = await front.sim.handle(
            new Request(`${base}/-/simulator/device/approve`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ user_code: posted }),
            }),
          );
          if (answer.status < 400) connected.push(posted);
          const done = notice ? '<form method="get" action="/"><button type="submit">Done</button></form>' : '';
          return html(page('Device connected', `<p>Your device is now connected.</p>${done}`));
        }),
      );
      return true;
    }
    return false;
  });
  base = front.url;
}, 60_000);
afterAll(async () => front?.close());

/** A check that asks the driver for `decision` and says, as its skip, what the driver said and what the poll answered. */
const asking = (decision: 'approve' | 'deny'): Check => ({
  id: `device.${decision}-continue`,
  suite: 'device',
  title: `the driver asked to ${decision}`,
  rules: ['DEV-ACCESS-DENIED'],
  needs: ['device'],
  async run(t) {
    const start = await startDevice(t);
    const visit = (code: string, page?: string) =>
      decision === 'deny' ? t.driver.denyDevice(code, page) : t.driver.approveDevice(code, page);
    const said = await visit(start.userCode, start.verificationUri).then(
      () => 'done',
      (error: Error) => error.message,
    );
    const answer = await poll(t, start.deviceCode);
    t.skip(`${said} | poll ${answer.status} ${String(JSON.parse(answer.text).error)}`);
  },
});

const MODES: Mode[] = ['hidden-code', 'code-in-action', 'entry-form'];

describe('a device confirmation whose only button is "Continue"', () => {
  it.each([
    ...PAGE_DRIVERS.flatMap((kind) => MODES.map((m) => [kind, m, false] as const)),
    ...(['hidden-code', 'entry-form'] as const).map((m) => ['form', m, true] as const),
  ])(
    '%s driver, %s (noscript notice: %s), asked to deny: nothing pressed, the page said to offer no way to deny, the code still pending',
    async (kind, m, withNotice) => {
      [mode, connected.length, notice] = [m, 0, withNotice];
      const { report, stderr } = await runAgainst(front, { runs: '1' }, [asking('deny')], { driver: { kind } });
      const why = explain(report, stderr);
      expect(connected, why).toEqual([]);
      expect(report.checks[0]?.message, why).toMatch(
        /^asked to deny, the page at \/oauth\/device\/confirm offers no way to deny: its only control goes on \(Continue\), which may be the approval \(the user code went out\); nothing was pressed, so the denial is not tested \| poll 400 authorization_pending$/,
      );
    },
    120_000,
  );

  it.each(PAGE_DRIVERS.flatMap((kind) => MODES.map((m) => [kind, m] as const)))(
    '%s driver, %s, asked to approve: the device connected (what the driver says of the page after it is no part of this)',
    async (kind, m) => {
      [mode, connected.length, notice] = [m, 0, false];
      const { report, stderr } = await runAgainst(front, { runs: '1' }, [asking('approve')], { driver: { kind } });
      const why = explain(report, stderr);
      expect(connected, why).toHaveLength(1);
      expect(report.checks[0]?.message, why).toMatch(/\| poll 200 /);
    },
    120_000,
  );
});
