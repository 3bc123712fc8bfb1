/**
 * continuation() (suites/drivers/sign-in.ts): which link of a page of links only, after the
 * password and before any decision, is an interstitial's one step on. Pure: nothing is sent.
 */
import { describe, expect, it } from 'vitest';
import { continuation, decidedByLinks } from '../../suites/drivers/sign-in.js';
import { SIGN_IN_DEFAULTS } from '../../suites/drivers/defaults.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { createHttpTarget } from '../../suites/target/http.js';

const BASE = 'http://127.0.0.1:9';
const PAGE = `${BASE}/oauth/authorize?client_id=a&state=s`;
const http = createHttp(createHttpTarget({ baseUrl: BASE }), createRecorder(5), createRedactor());

const html = (links: Array<[string, string]>) =>
  `<html><title>Page</title>${links.map(([label, href]) => `<a href="${href}">${label}</a>`).join(' ')}</html>`;

/** The page's links, `[label, href]`, its one step on (its href) or undefined. */
const onward = (...links: Array<[string, string]>) =>
  continuation(http, html(links), PAGE, SIGN_IN_DEFAULTS.signInPath)?.href;

/** The link a visit deciding `decision` follows on the page of `links`, if any. */
const answered = (decision: 'approve' | 'deny', ...links: Array<[string, string]>) =>
  continuation(http, html(links), PAGE, SIGN_IN_DEFAULTS.signInPath, decision)?.href;

/** Does the page of `links`, answering the password, read as a consent of links? */
const consent = (...links: Array<[string, string]>) =>
  decidedByLinks(http, html(links), PAGE, SIGN_IN_DEFAULTS.signInPath);

describe('continuation: the one link of an interstitial that goes on', () => {
  it('"Welcome back": its continue link, never another account or help', () => {
    expect(
      onward(['Continue to app', '/oauth/authorize?seen=1'], ['Use another account', '/switch'], ['Help', '/help']),
    ).toBe('/oauth/authorize?seen=1');
  });

  it("a refusal's link back to the sign-in, or to the page itself, goes nowhere on", () => {
    expect(onward(['OK', '/users/sign_in'])).toBeUndefined();
    expect(onward(['Continue', `${BASE}/users/sign_in/?retry=1`])).toBeUndefined();
    expect(onward(['Try again', '/oauth/authorize?client_id=a&state=s'])).toBeUndefined();
  });

  it('a page with a link that decides, puts off or answers is no interstitial, whatever the decision', () => {
    expect(onward(['Accept and continue', '/consent?ok=1'])).toBeUndefined();
    expect(onward(['Continue setup', '/mfa/setup'], ['Remind me later', '/mfa/later'])).toBeUndefined();
    expect(onward(['Continue', '/next'], ['No', '/no'])).toBeUndefined();
    expect(onward(['Continue', '/next'], ['Cancel', '/cancel'])).toBeUndefined();
  });

  it("a link that is no http(s) link (a script's) is left out, never the sign-in going on elsewhere", () => {
    expect(onward(['Continue', 'javascript:void(0)'])).toBeUndefined();
    expect(onward(['Continue', 'javascript:void(0)'], ['Continue to app', '/app'])).toBe('/app');
  });
});

describe("continuation with the visit's decision: a question answered as it leans, or put off", () => {
  it('"Stay signed in?" answered yes to approve, no to deny; a set-up that can wait put off, whatever the decision', () => {
    const stay: Array<[string, string]> = [
      ['Yes', '/stay?yes=1'],
      ['No', '/stay?no=1'],
    ];
    const later: Array<[string, string]> = [
      ['Set up two-factor authentication', '/profile/two_factor'],
      ['Skip for now', '/mfa/skip'],
    ];
    expect([answered('approve', ...stay), answered('deny', ...stay)]).toEqual(['/stay?yes=1', '/stay?no=1']);
    expect([answered('approve', ...later), answered('deny', ...later)]).toEqual(['/mfa/skip', '/mfa/skip']);
  });

  it('never a link that approves or denies, an answer that asks, or one leading nowhere on', () => {
    expect(answered('deny', ['Authorize', '#'], ['Deny', '/deny'])).toBeUndefined();
    expect(answered('approve', ['Yes', '/yes'], ['Cancel', '/cancel'])).toBeUndefined();
    expect(answered('deny', ['No account? Sign up', '/users/sign_up'], ['OK', '/users/sign_in'])).toBeUndefined();
    expect(answered('approve', ['Yes', '#'], ['Not now', '/users/sign_in'])).toBeUndefined();
    expect(answered('deny', ['No', '/oauth/authorize?client_id=a&state=s'])).toBeUndefined();
  });
});

describe('decidedByLinks: a page answering the password whose links approve and lead on', () => {
  it('a consent of links, its approving link elsewhere on the target or at the same path with another query', () => {
    expect(consent(['Accept and continue', '/consent?ok=1'], ['Cancel', '/'])).toBe(true);
    expect(consent(['Accept', '/oauth/authorize?client_id=a&state=s&ok=1'])).toBe(true);
  });

  it("a cookie banner's accept-all, in each language, approves nothing", () => {
    for (const label of ['Accept all', 'Alle akzeptieren', 'Tout accepter', 'Aceptar todo', 'Allow all cookies'])
      expect(consent([label, '/-/cmp?all=1']), label).toBe(false);
  });

  it('back to the sign-in, in any case, encoding or origin, or to the page itself, leads nowhere on', () => {
    for (const href of [
      '/Users/Sign_In',
      '/users/sign%5Fin',
      '//127.0.0.1:9/users//sign_in/',
      'https://login.example.com/users/sign_in',
      '#',
      '?client_id=a&state=s',
    ])
      expect(consent(['Accept', href]), href).toBe(false);
  });

  it("off the target's origins, away from the session, another way to sign in, or no link at all: no consent", () => {
    expect(consent(['Confirm your identity', 'https://help.example.com/'])).toBe(false);
    expect(consent(['Authorize another device', '/devices/new'])).toBe(false);
    expect(consent(['Continue with Google and accept', '/auth/google'])).toBe(false);
    expect(decidedByLinks(http, '<a>Accept</a>', PAGE, SIGN_IN_DEFAULTS.signInPath)).toBe(false);
  });
});
