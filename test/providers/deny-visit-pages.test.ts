/**
 * Consent pages on which a deny visit used to approve (review 10): each row asks one driver to deny
 * (grants.consent-denied alone) on one redrawn consent and counts what its controls posted. Nothing
 * may approve: Deny is pressed where there is one, else nothing is, and the check errs (the denial
 * untested, never a grant made on the configured user's account).
 *
 * - A visible Continue beside a 'turn JavaScript on' notice and a click handler that submits, or a
 *   `<noscript>` and `.submit()` only in a comment: no page that submits itself (form driver).
 * - A required 'I agree' box beside Authorize and Deny, the page naming neither the client nor a
 *   scope: Authorize grants, so the boxes are ticked and Deny pressed.
 * - 'Permissions: openid profile email api' and Continue: scopes of letters alone name the grant.
 * - The consent in `<noscript>`, which is what the form driver reads (it runs no script).
 * - A script's Continue link, no href or `href="#"`: where it goes is the script's (browser driver).
 * - A Deny or an Allow only inside an HTML comment: no control, never pressed, and no sign the page
 *   can deny (form driver).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import type { TargetConfig } from '../../suites/types.js';
import { explain, HAS_CHROMIUM, PAGE_DRIVERS, runWithDriver } from './provider.js';
import { journeyProvider, type Journey, type JourneyProvider } from './sign-in-journey.js';

const CONTINUE = '<button type="submit" name="choice" value="1">Continue</button>';
const form = (hidden: string, inner: string) =>
  `<form method="post" action="/oauth/authorize">${hidden}${inner}</form>`;
const AGREE = '<label><input type="checkbox" name="agree" required> I agree to the terms of service</label>';
const AUTHORIZE_DENY = `${AGREE}<button type="submit" name="choice" value="1">Authorize</button><button type="submit" name="choice" value="0">Deny</button>`;
/** A script that posts the consent's hidden fields with the approving choice. */
const POSTS = `<script>function go(){var f=document.createElement('form');f.method='post';f.action='/oauth/authorize';
f.append(...document.querySelectorAll('#h input'));var c=document.createElement('input');c.type='hidden';c.name='choice';c.value='1';f.append(c);
document.body.append(f);f.submit();}</script>`;

/** `denies`: a live Deny is on the page (else read from the consent page's words). */
type Row = { kind: 'form' | 'browser'; page: string; journey: Journey; scopes?: string[]; denies?: boolean };
const rows: Row[] = [
  {
    kind: 'form',
    page: 'a visible Continue, a noscript notice, a click handler that submits',
    journey: {
      decisions: `<noscript><p>Please enable JavaScript.</p></noscript>${CONTINUE}<script>document.querySelector('button').onclick = function (e) { e.preventDefault(); this.form.submit(); };</script>`,
    },
  },
  {
    kind: 'form',
    page: '<noscript> and .submit() only in a comment',
    journey: { decisions: `<!-- <noscript> form.submit() -->${CONTINUE}` },
  },
  ...PAGE_DRIVERS.flatMap((kind) => [
    {
      kind,
      page: 'an agree box, Authorize, Deny; the app named by its name',
      journey: {
        consentPage: (h: string) => `<p>Sample App will be able to use the API.</p>${form(h, AUTHORIZE_DENY)}`,
      },
    },
    {
      kind,
      page: 'an agree box, Authorize, Deny; "Allow access?"',
      journey: { consentPage: (h: string) => `<p>Allow access?</p>${form(h, AUTHORIZE_DENY)}` },
    },
    {
      kind,
      page: 'Permissions: openid profile email api, Continue',
      journey: {
        consentPage: (h: string) =>
          `<p>Permissions:</p><ul><li>openid</li><li>profile</li><li>email</li><li>api</li></ul>${form(h, CONTINUE)}`,
      },
      scopes: ['api', 'openid', 'profile', 'email'],
    },
  ]),
  {
    kind: 'form',
    page: 'the consent in <noscript>',
    journey: {
      consentPage: (h) =>
        `<div id="app"></div><script>/* draws the consent */</script><noscript><p>Sample App would like to access your account and read_user.</p>${form(h, CONTINUE)}</noscript>`,
    },
  },
  // A commented-out control is none (review): never pressed, nor does it make the page look deniable.
  {
    kind: 'form',
    page: 'Authorize, a Deny form in a comment',
    journey: {
      consentPage: (h) =>
        `<p>Allow access?</p><!-- ${form(h, '<button type="submit" name="choice" value="0">Deny</button>')} -->${form(h, '<button type="submit" name="choice" value="1">Authorize</button>')}`,
    },
    denies: false,
  },
  {
    kind: 'form',
    page: 'Deny, an Allow form in a comment',
    journey: {
      consentPage: (h) =>
        `<p>Allow access?</p><!-- ${form(h, '<input type="submit" value="Allow"><input type="hidden" name="choice" value="1">')} -->${form(h, '<button type="submit" name="choice" value="0">Deny</button>')}`,
    },
  },
  ...(HAS_CHROMIUM
    ? (['<a onclick="go()">', '<a href="#" onclick="go();return false">'] as const).map((a) => ({
        kind: 'browser' as const,
        page: `a script's link ${a}Continue</a>`,
        journey: { consentPage: (h: string) => `<div id="h">${h}</div><p>${a}Continue</a></p>${POSTS}` },
      }))
    : []),
];

/** One provider for the file, its consent redrawn per row. */
const journey: Journey = {};
let provider: JourneyProvider;
beforeAll(async () => {
  provider = await journeyProvider(journey);
}, 60_000);
afterAll(async () => provider?.close());

describe('asked to deny, a consent on which a step approves', () => {
  it.each(rows)('$kind driver, $page: nothing approves', async (row) => {
    delete journey.decisions;
    delete journey.consentPage;
    Object.assign(journey, row.journey);
    provider.decided.approve = provider.decided.deny = 0;
    const apps = targetConfig(provider.sim, provider.url).applications!;
    const extra: Partial<TargetConfig> = row.scopes
      ? { applications: { ...apps, confidential: { ...apps.confidential!, scopes: row.scopes } } }
      : {};
    const denial = await runWithDriver(provider, row.kind, ['grants.consent-denied'], extra);
    const why = explain(denial.report, denial.stderr);
    const pressesDeny =
      row.denies ?? (row.journey.consentPage !== undefined && /Deny/.test(row.journey.consentPage('')));
    expect(provider.decided, why).toEqual({ approve: 0, deny: pressesDeny ? 1 : 0 });
    expect(denial.report.checks[0]?.status, why).toBe(pressesDeny ? 'passed' : 'errored');
  });
});
