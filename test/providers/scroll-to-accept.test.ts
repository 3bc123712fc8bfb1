/**
 * A consent whose terms must be scrolled to the end before Authorize can be pressed, as consent
 * pages with a terms box do (a scrollable box of terms, "Please read to the end", the Authorize
 * button `disabled` until a script sees the box scrolled to its bottom; Deny always live). The
 * provider takes an approval only with the value that script sets (`choice=1`; the unread terms'
 * `choice=unread` is a denial), as a server that checks the scroll does. The browser driver reads the terms to the end as a person does and
 * approves; both drivers deny with Deny. The form driver, which runs no script, never presses a
 * disabled control: the approval is the page's script's, said as such (use driver: browser), never
 * a refused sign-in nor a failure of the provider.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journeyProvider, type JourneyProvider } from './sign-in-journey.js';
import { explain, PAGE_DRIVERS, runWithDriver } from './provider.js';

/** The consent: the terms in a box of their own, Authorize disabled until they are read. */
const scrollPage = (hidden: string) =>
  `<p>Sample App would like to access your account.</p>
<p>Please read the terms to the end before you authorize.</p>
<div id="terms" style="height:120px;overflow-y:scroll;border:1px solid #888">${Array.from(
    { length: 40 },
    (_, i) => `<p>Term ${i + 1}. The application may use your account as the scopes say.</p>`,
  ).join('')}</div>
<form method="post" action="/oauth/authorize">${hidden}
<button type="submit" name="choice" value="0">Deny</button>
<button type="submit" name="choice" value="unread" id="authorize" disabled>Authorize</button></form>
<script>var t = document.getElementById('terms');
t.addEventListener('scroll', function () {
  if (t.scrollTop + t.clientHeight >= t.scrollHeight - 2) {
    var authorize = document.getElementById('authorize');
    authorize.disabled = false;
    authorize.value = '1';
  }
});</script>`;

/**
 * Authorize the only submit button and disabled: a browser's Enter submits nothing (the form's
 * default button is disabled). The hidden `choice=0` after it is what a form sent with no button
 * carries, a denial to a provider reading a missing decision as one.
 */
const onlyDisabled = (hidden: string) =>
  `<p>Sample App would like to access your account.</p>
<form method="post" action="/oauth/authorize">${hidden}
<button type="submit" name="choice" value="1" id="authorize" disabled>Authorize</button><input type="hidden" name="choice" value="0"></form>
<script>setTimeout(function () { document.getElementById('authorize').disabled = false; }, 300);</script>`;

/** Terms to tick before Authorize is enabled; Deny, the form's default button, always live. */
const tickToEnable = (hidden: string) =>
  `<p>Sample App would like to access your account.</p>
<form method="post" action="/oauth/authorize">${hidden}
<label><input type="checkbox" id="agree" name="agree"> I have read the terms</label>
<button type="submit" name="choice" value="0">Deny</button>
<button type="submit" name="choice" value="unread" id="authorize" disabled>Authorize</button></form>
<script>document.getElementById('agree').addEventListener('change', function (e) {
  var a = document.getElementById('authorize'); a.disabled = !e.target.checked; a.value = '1'; });</script>`;

/** As scrollPage, its querySelectorAll('*') spinning 90 s: the reading (readToEnable) waits 2 s of it, not the visit's 60 s. */
const spinning = (hidden: string) =>
  scrollPage(hidden) +
  `<script>var q = Document.prototype.querySelectorAll;
Document.prototype.querySelectorAll = function (s) {
  if (s === '*') { var t = Date.now(); while (Date.now() - t < 90000) {} }
  return q.call(this, s);
};</script>`;

let consentPage = scrollPage;
let provider: JourneyProvider;
beforeAll(async () => {
  provider = await journeyProvider({ consentPage: (hidden) => consentPage(hidden) });
}, 60_000);
afterAll(() => provider?.close());

describe('a consent whose Authorize is enabled once the terms are scrolled to the end', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: approves only as the page allows, denies with Deny',
    async (kind) => {
      consentPage = scrollPage;
      provider.decided.approve = provider.decided.deny = 0;
      const { report, stderr } = await runWithDriver(provider, kind, [
        'grants.state-unchanged',
        'grants.consent-denied',
      ]);
      const why = explain(report, stderr);
      const status = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
      expect(status['grants.consent-denied'], why).toBe('passed');
      expect(provider.decided.deny, why).toBe(1);
      if (kind === 'browser') {
        expect(status['grants.state-unchanged'], why).toBe('passed');
      } else {
        expect(status['grants.state-unchanged'], why).toBe('errored');
        expect(report.checks.find((c) => c.id === 'grants.state-unchanged')?.message, why).toMatch(/driver: browser/);
        expect(provider.decided.approve, why).toBe(0);
      }
    },
    60_000,
  );
});

describe('the form driver on a consent whose Authorize a script enables', () => {
  it.each([
    ['the only submit button', onlyDisabled],
    ['beside Deny and terms to tick', tickToEnable],
  ])(
    '%s: never submitted without it, said as the page needing a browser',
    async (_, page) => {
      consentPage = page;
      provider.decided.approve = provider.decided.deny = 0;
      const { report, stderr } = await runWithDriver(provider, 'form', ['grants.state-unchanged']);
      const why = explain(report, stderr);
      const check = report.checks.find((c) => c.id === 'grants.state-unchanged');
      expect(check?.status, why).toBe('errored');
      expect(check?.message, why).toMatch(/driver: browser/);
      expect(provider.decided, why).toMatchObject({ approve: 0, deny: 0 });
    },
    60_000,
  );
});

describe('the browser driver on a consent whose page spins when read', () => {
  it('gives the reading its 2 s and goes on as still disabled: errs within the check, nothing pressed (review 18)', async () => {
    consentPage = spinning;
    provider.decided.approve = provider.decided.deny = 0;
    const { report, stderr } = await runWithDriver(provider, 'browser', ['grants.state-unchanged']);
    const why = explain(report, stderr);
    const check = report.checks.find((c) => c.id === 'grants.state-unchanged');
    expect(check?.status, why).toBe('errored');
    // The reading's own end, nothing else: before, the evaluate waited out the visit, and the
    // watchdog's "did not respond" (or the check's limit) said it instead.
    expect(check?.message, why).toBe(
      "the harness could not complete this check: the provider's page at /oauth/authorize keeps the control to press disabled, its terms read to the end; nothing was pressed",
    );
    expect(provider.decided.approve, why).toBe(0);
  }, 120_000);
});
