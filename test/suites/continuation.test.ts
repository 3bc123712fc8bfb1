/**
 * continuation() (suites/drivers/sign-in.ts): which link of a page of links only, after the
 * password and before any decision, is an interstitial's one step on; and namesTheGrant, which one a
 * denial must not follow. Pure: nothing is sent.
 */
import { describe, expect, it } from 'vitest';
import { continuation, decidedByLinks, denyMayGrant, namesTheGrant } from '../../suites/drivers/sign-in.js';
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
const consent = (...links: Array<[string, string]>) => decidedByLinks(html(links), PAGE, SIGN_IN_DEFAULTS.signInPath);

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

describe('namesTheGrant: asked to deny, a page of links only that reads as the consent itself', () => {
  const AUTHORIZE = `${BASE}/oauth/authorize?client_id=app-7f3e&scope=read_user+api&redirect_uri=https%3A%2F%2Fapp.test%2Fcb&state=s`;
  const named = (body: string, redirectUris: string[] = [], authorize = AUTHORIZE, terms = false) =>
    namesTheGrant(`<html><title>Page</title>${body}</html>`, PAGE, authorize, redirectUris, { terms });

  it('its text names a scope the authorization asks for, or the client id, as a word', () => {
    expect(named('<p>Allow access to: read_user, api.</p><a href="/go">Continue</a>')).toBe(
      'names the scope read_user it asks for',
    );
    expect(named('<p>Application app-7f3e wants your account.</p><a href="/go">Continue</a>')).toBe(
      'names the client app-7f3e',
    );
  });

  it("a scope of letters alone names the grant before a step; to tell terms of use from a consent, one is a word of prose ('read', 'api'), two are named", () => {
    const terms = '<p>Please read the terms of our api, then accept them.</p><a href="/go">Continue</a>';
    expect(named(terms)).toBe('names the scope api it asks for');
    expect(named(terms, [], AUTHORIZE, true)).toBeUndefined();
    const oidc = `${BASE}/oauth/authorize?client_id=app-7f3e&scope=api+openid+profile+email&state=s`;
    const permissions = '<p>Permissions:</p><ul><li>openid</li><li>profile</li><li>email</li></ul>';
    expect(named(permissions, [], oidc, true)).toBe('names the scope openid it asks for');
    expect(named('<p>Read our api terms.</p>', [], oidc, true)).toBeUndefined();
  });

  it('reads the text in <noscript>, which a client running no script is shown', () => {
    expect(named('<noscript><p>Sample App would like to access your account.</p></noscript>')).toBe(
      'asks for consent (“would like to access your”)',
    );
  });

  it("a link to the request's or the config's redirect URI is the decision's", () => {
    expect(named('<a href="https://app.test/cb?code=x">Continue</a>')).toBe(
      "has a link to the application's redirect URI",
    );
    expect(named('<a href="https://other.test/back">Continue</a>', ['https://other.test/back'])).toBe(
      "has a link to the application's redirect URI",
    );
  });

  it('an interstitial names none: its link resuming the authorization says nothing alone, nor a word within a word', () => {
    expect(
      named(
        '<p>Welcome back, root. Our API apis.</p><a href="/oauth/authorize?client_id=app-7f3e&seen=1">Continue</a>',
      ),
    ).toBeUndefined();
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

  it('away from the session, another way to sign in, or no link at all: no consent', () => {
    expect(consent(['Authorize another device', '/devices/new'])).toBe(false);
    expect(consent(['Continue with Google and accept', '/auth/google'])).toBe(false);
    expect(decidedByLinks('<a>Accept</a>', PAGE, SIGN_IN_DEFAULTS.signInPath)).toBe(false);
  });

  it("an approving link off the target's origins (a consent of the provider's the config does not name) is one: said without blame, nothing followed", () => {
    // Before, only links within the target's origins counted: such a consent was a refused sign-in, the config blamed.
    expect(
      consent(['Allow', 'https://consent.example.com/allow?t=1'], ['Deny', 'https://consent.example.com/deny']),
    ).toBe(true);
    expect(consent(['Confirm your identity', 'https://help.example.com/'])).toBe(true);
  });
});

describe('denyMayGrant: asked to deny, a step on a page of links only that may be the approval', () => {
  const AUTHORIZE = `${BASE}/oauth/authorize?client_id=app-7f3e&scope=api&redirect_uri=https%3A%2F%2Fapp.test%2Fcb&state=s`;
  const may = (body: string, href: string, label: string) =>
    denyMayGrant(`<html><title>Page</title>${body}</html>`, PAGE, AUTHORIZE, [], { href, label });

  it('an interstitial whose step resumes the authorization may be followed; a question answered no too', () => {
    expect(may('<p>Welcome back, root.</p>', '/oauth/authorize?client_id=app-7f3e&seen=1', 'Continue to app')).toBe(
      undefined,
    );
    expect(may('<a href="/stay?yes=1">Yes</a><a href="/stay?no=1">No</a>', '/stay?no=1', 'No')).toBeUndefined();
  });

  it("a consent in a person's words, a step saying an approval's word, or one leading elsewhere: never", () => {
    expect(may('<h1>Sample App would like to access your account</h1>', '/oauth/authorize?go=1', 'Continue')).toBe(
      'asks for consent (“would like to access your”)',
    );
    expect(may('<h1>Sample App</h1>', '/oauth/authorize?go=1', 'Accept and continue')).toBe(
      'says “Accept and continue”, which approves',
    );
    expect(may('<h1>Sample App</h1>', '/consent/accept', 'Continue')).toBe(
      'has one link, “Continue”, to /consent/accept, not back to the authorization',
    );
  });

  it("a Deny link inside an HTML comment is none: it does not make the page's step look like a mere step", () => {
    const commented = '<h1>Sample App</h1><!-- <a href="/consent/deny">Deny</a> -->';
    expect(may(`${commented}<a href="/consent/accept">Continue</a>`, '/consent/accept', 'Continue')).toBe(
      'has one link, “Continue”, to /consent/accept, not back to the authorization',
    );
  });

  it("a script's link (no href, a fragment alone, javascript:) is never followed: it resolves to the page itself, not the script's destination", () => {
    for (const href of ['', '#', '#go', ' javascript:go()'])
      expect(may('<h1>Sample App</h1>', href, 'Continue')).toBe(
        'has one link, “Continue”, whose destination a script decides (no address of its own)',
      );
  });
});
