/**
 * A device page that asks the user code before the sign-in and has no decision of its own, as
 * FusionAuth's does: the code, then the sign-in, then "your device is now connected". The source's
 * row (L84) is exactly that: the user enters the user code and authenticates, and the device is
 * authorized. Both drivers take the page's approval so, the polls judge it, and the denial (the
 * page offers no way to refuse) is untested, never blamed on DEV-VERIFICATION-PAGE. Before, every
 * check that approves errored "no approve button" and the page check failed that rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { bodyOf, sendAnswer, simulatorWith, type Loopback } from '../suites/loopback.js';
import { escaped, page } from './sign-in-journey.js';
import { allChecks } from '../../suites/index.js';
import { poll, startDevice } from '../../suites/device/flow.js';
import type { Check } from '../../suites/types.js';
import { checksWith, expectAllPassed, explain, PAGE_DRIVERS, runAgainst, runWithDriver } from './provider.js';

let front: Loopback & { sim: Sim };
/** The user codes the page saw approved, one per sign-in it was handed over from. */
const connected: string[] = [];

const html = (body: string) => new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } });

/** Whether the code's form also offers a Cancel, before its Submit, that denies the device. */
let withCancel = false;
const CANCEL = '<button type="submit" name="action" value="cancel">Cancel</button>';
let base = '';
/**
 * The page as FusionAuth draws it, or a page that must not be taken for it: the code alone
 * connecting the device with no sign-in, a confirmation whose Allow and Deny are links (the driver
 * cannot act), a device page that redirects to a plain page (it never took the code), a confirmation
 * whose only link ("Continue") approves.
 */
let mode: 'fusion' | 'no-sign-in' | 'links' | 'one-link' | 'url-one-link' | 'broken' | 'allow-form' = 'fusion';

/** The device's user code approved or denied (the simulator's control API), and the page that says so. */
async function decided(userCode: string, decision: 'approve' | 'deny'): Promise<Response> {
  const request = new Request(`${base}/-/simulator/device/${decision}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user_code: userCode }),
  });
  const answer = await front.sim.handle(request);
  if (answer.status >= 400) return html(page('Connect your device', '<p>That code is not valid.</p>'));
  if (decision === 'deny') return html(page('Connect your device', '<p>Cancelled.</p>'));
  connected.push(userCode);
  return html(page('Device connected', '<p>Your device is now connected. You may close this window.</p>'));
}

beforeAll(async () => {
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/oauth/device' && req.method === 'GET' && mode === 'broken') {
      res.writeHead(302, { location: '/maintenance' }).end();
      return true;
    }
    if (url.pathname === '/maintenance') {
      sendAnswer(
        res,
        Promise.resolve(html(page('Unavailable', '<p>Device sign-in is unavailable.</p><a href="/">Home</a>'))),
      );
      return true;
    }
    if (url.pathname === '/oauth/device' && req.method === 'GET' && mode === 'url-one-link') {
      // The code taken from the page's URL (verification_uri_complete): straight to the sign-in.
      const finish = `/oauth/device/confirm?user_code=${encodeURIComponent(url.searchParams.get('user_code') ?? '')}`;
      res.writeHead(302, { location: `/users/sign_in?redirect_to=${encodeURIComponent(finish)}` }).end();
      return true;
    }
    if (url.pathname === '/oauth/device' && req.method === 'GET' && mode === 'allow-form') {
      // One form: the code and Allow; Cancel is a link (a common layout). Allow approves at once.
      const code = escaped(url.searchParams.get('user_code') ?? '');
      const form = `<form method="post" action="/oauth/device/code"><input type="text" name="user_code" value="${code}"><button type="submit">Allow</button></form><a href="/">Cancel</a>`;
      sendAnswer(res, Promise.resolve(html(page('Connect a device', form))));
      return true;
    }
    if (url.pathname === '/oauth/device' && req.method === 'GET') {
      const code = escaped(url.searchParams.get('user_code') ?? '');
      const form = `<form method="post" action="/oauth/device/code"><label>Enter the code shown on your device <input type="text" name="user_code" value="${code}"></label>${withCancel ? CANCEL : ''}<button type="submit">Submit</button></form>`;
      sendAnswer(res, Promise.resolve(html(page('Connect your device', form))));
      return true;
    }
    if (url.pathname === '/oauth/device/code' && req.method === 'POST') {
      // The simulator's sign-in, handed back to the page that connects the device.
      const back = bodyOf(req).then((body) => {
        const form = new URLSearchParams(body.toString());
        if (form.get('action') === 'cancel') return decided(form.get('user_code') ?? '', 'deny');
        if (mode === 'no-sign-in' || mode === 'allow-form') return decided(form.get('user_code') ?? '', 'approve');
        const finish = `/oauth/device/${mode === 'links' || mode === 'one-link' ? 'confirm' : 'connected'}?user_code=${encodeURIComponent(form.get('user_code') ?? '')}`;
        return new Response(null, {
          status: 302,
          headers: { location: `/users/sign_in?redirect_to=${encodeURIComponent(finish)}` },
        });
      });
      sendAnswer(res, back);
      return true;
    }
    if (url.pathname === '/oauth/device/connected' && req.method === 'GET') {
      sendAnswer(res, decided(url.searchParams.get('user_code') ?? '', 'approve'));
      return true;
    }
    if (url.pathname === '/oauth/device/confirm' && req.method === 'GET') {
      const code = encodeURIComponent(url.searchParams.get('user_code') ?? '');
      const oneLink = mode === 'one-link' || mode === 'url-one-link';
      const links = (oneLink ? ['approve'] : ['approve', 'deny']).map(
        (d) =>
          `<a class="btn" href="/oauth/device/decide?d=${d}&amp;user_code=${code}">${oneLink ? 'Continue' : d === 'approve' ? 'Allow' : 'Deny'}</a>`,
      );
      sendAnswer(res, Promise.resolve(html(page('Authorize device?', `<p>Connect the device?</p>${links.join(' ')}`))));
      return true;
    }
    if (url.pathname === '/oauth/device/decide' && req.method === 'GET') {
      const d = url.searchParams.get('d') === 'deny' ? 'deny' : 'approve';
      sendAnswer(res, decided(url.searchParams.get('user_code') ?? '', d));
      return true;
    }
    return false;
  });
  base = front.url;
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe('a device page that asks the code before the sign-in and connects the device on it (FusionAuth)', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: the approving checks pass by the polls, the denial is untested, nothing is blamed',
    async (kind) => {
      connected.length = 0;
      const { code, report, stderr } = await runWithDriver(front, kind, [
        'device.token-response',
        'device.verification-page',
      ]);
      const why = explain(report, stderr);
      expect(checksWith(report, 'failed', 'warned', 'errored'), why).toEqual([]);
      expect(checksWith(report, 'passed'), why).toEqual(['device.token-response']);
      const page = report.checks.find((c) => c.id === 'device.verification-page');
      expect(page?.message, why).toMatch(/offers no way to refuse.*the denial on it is not tested/);
      expect(code, why).toBe(0);
      expect(connected.length, why).toBeGreaterThan(0);
    },
    120_000,
  );

  // Three cases draw a denial while the code is pending (the review's eight too): the model drops it
  // and judges the rest. Before, the check errored "offers no way to refuse" and all its rules went
  // untested. The clock moves under the browser driver only.
  it.skipIf(!PAGE_DRIVERS.includes('browser'))(
    'browser driver: the state model drops the denial it cannot make, said by the page check alone',
    async () => {
      const { code, report, stderr } = await runAgainst(
        front,
        { runs: '3' },
        allChecks().filter((c) => c.id === 'device.state-machine'),
        { driver: { kind: 'browser' } },
      );
      const why = explain(report, stderr);
      expect(checksWith(report, 'passed'), why).toEqual(['device.state-machine']);
      expect(code, why).toBe(0);
    },
    180_000,
  );

  it.each(PAGE_DRIVERS)(
    '%s driver: with a Cancel before its Submit, the approval sends the code by Submit and the denial cancels',
    async (kind) => {
      withCancel = true;
      try {
        const run = await runWithDriver(front, kind, ['device.token-response', 'device.verification-page']);
        expectAllPassed(run);
      } finally {
        withCancel = false;
      }
    },
    120_000,
  );
});

describe('pages that only look like it are not taken for the approval', () => {
  afterAll(() => {
    mode = 'fusion';
  });
  // Only the form driver: what the journey did is judged in one module for both (device-outcome.ts).
  it.each([
    // The code alone connects the device: nobody signed in, so the page broke L84 (a must).
    ['no-sign-in', ['DEV-VERIFICATION-PAGE']],
    // Allow and Deny as links: a decision the driver could not press, never the approval, nor any
    // poll's rule blamed for it.
    ['links', ['DEV-VERIFICATION-PAGE']],
    // No code form at all: the page's rule alone, not every rule the approval leads to.
    ['broken', ['DEV-VERIFICATION-PAGE']],
  ] as const)(
    '%s: the approving check errors, %j alone fails',
    async (shape, blamed) => {
      mode = shape;
      connected.length = 0;
      const { code, report, stderr } = await runWithDriver(front, 'form', [
        'device.token-response',
        'device.verification-page',
      ]);
      const why = explain(report, stderr);
      expect(checksWith(report, 'errored'), why).toEqual(['device.token-response']);
      expect(report.checks.find((c) => c.id === 'device.token-response')?.message, why).toMatch(
        /no approve button on the device verification page/,
      );
      expect(
        report.rules.filter((r) => r.status === 'failed').map((r) => r.id),
        why,
      ).toEqual(blamed);
      expect(code, why).toBe(1);
    },
    120_000,
  );
});

/** Asks the driver to deny, then polls: what the denial did. */
const denial: Check = {
  id: 'device.deny-on-allow-form',
  suite: 'device',
  title: 'the driver asked to deny',
  rules: ['DEV-ACCESS-DENIED'],
  needs: ['device'],
  async run(t) {
    const start = await startDevice(t);
    const denied = await t.driver.denyDevice(start.userCode, start.verificationUri).then(
      () => 'denied',
      (error: Error) => error.message,
    );
    const answer = await poll(t, start.deviceCode);
    // Said as the check's skip: the test reads it.
    t.skip(`${denied} | poll ${answer.status} ${String(JSON.parse(answer.text).error)}`);
  },
};

describe('a device page whose one form holds the code and Allow, its Cancel a link', () => {
  afterAll(() => {
    mode = 'fusion';
  });
  // Before, the browser driver pressed Allow as the code form's step and approved the device (on a
  // live target, a device authorized on the real user's account).
  it.each(PAGE_DRIVERS)(
    '%s driver asked to deny presses nothing: no deny control, the code still pending',
    async (kind) => {
      mode = 'allow-form';
      connected.length = 0;
      const { report, stderr } = await runAgainst(front, { runs: '1' }, [denial], { driver: { kind } });
      const why = explain(report, stderr);
      expect(report.checks[0]?.message, why).toMatch(
        /no deny button on the device verification page \(status 200\) \| poll 400 authorization_pending$/,
      );
      expect(connected, why).toEqual([]);
    },
    120_000,
  );
});

describe('a device confirmation whose only link, in effect the approval, reads as a continuation', () => {
  afterAll(() => {
    mode = 'fusion';
  });
  // Before, a deny visit followed that one link as an interstitial's and approved the device.
  it.each(PAGE_DRIVERS.flatMap((kind) => (['one-link', 'url-one-link'] as const).map((m) => [kind, m] as const)))(
    '%s driver asked to deny follows no link once the code went out (%s): the code still pending',
    async (kind, m) => {
      // url-one-link: the code went out in the page's URL, no form (review: the device was approved).
      mode = m;
      connected.length = 0;
      const { report, stderr } = await runAgainst(front, { runs: '1' }, [denial], { driver: { kind } });
      const why = explain(report, stderr);
      expect(report.checks[0]?.message, why).toMatch(/\| poll 400 authorization_pending$/);
      expect(connected, why).toEqual([]);
    },
    120_000,
  );
});
