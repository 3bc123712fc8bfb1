/**
 * A sign-in page offering a social sign-in ("Continue with Google", as Auth0's, Okta's, Keycloak's
 * and GitLab's pages do) that leaves the provider for an origin trustedOrigins does not list (here
 * another port of 127.0.0.1): beside the password form, the drivers sign in with the form; with
 * only such ways (a link straight there, a form posting there, or the provider's own broker path
 * that redirects there), the sign-in going on there is said once, naming the origin, and what
 * needs a signed-in user is skipped. Nothing is ever sent to that origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { listen, sendAnswer, simulatorAnswerTo, simulatorWith, type Loopback } from '../suites/loopback.js';
import { expectAllPassed, expectSaidOnce, PAGE_DRIVERS, runWithDriver } from './provider.js';
import { page } from './sign-in-journey.js';

/**
 * Two checks that need a signed-in user, an approval and a denial. Where the form is there, the
 * first signs in and both pass (the driver keeps its session: a third would replay the simulator's
 * own consent page, which browser-driver.test.ts plays); where no sign-in can happen, one says it
 * once and the other is skipped.
 */
const CHECKS = ['grants.consent-denied', 'grants.state-unchanged'];

/** Where the provider's broker sends a social sign-in (GitLab's /users/auth/google_oauth2). */
const BROKER = '/users/auth/google_oauth2';

let front: Loopback & { sim: Sim };
let google: Loopback;
/** Requests the other origin received. */
const received: string[] = [];

/** The ways to Google a sign-in page may offer, given Google's origin. */
const WAYS = {
  /** A link straight to Google. */
  link: (g: string) => `<a class="social" href="${g}/o/oauth2/v2/auth?client_id=gitlab">Continue with Google</a>`,
  /** A form posting straight to Google. */
  form: (g: string) =>
    `<form method="post" action="${g}/o/oauth2/v2/auth"><input type="hidden" name="client_id" value="gitlab"><button type="submit">Continue with Google</button></form>`,
  /** A form posting straight to Google, its button saying "Sign in with" (what a sign-in button says too). */
  signInForm: (g: string) =>
    `<form method="post" action="${g}/o/oauth2/v2/auth"><input type="hidden" name="client_id" value="gitlab"><button type="submit">Sign in with Google</button></form>`,
  /** The provider's own broker, which redirects to Google. */
  broker: () =>
    `<form method="post" action="${BROKER}"><button type="submit" name="provider" value="google">Continue with Google</button></form>`,
};
type Way = keyof typeof WAYS;

/** How the running test's sign-in page is drawn: its ways, and whether the password form stays. */
let layout: { ways: Way[]; form: boolean; late?: boolean; formless?: boolean } = { ways: [], form: true };

/**
 * The sign-in form as a sign-in application draws it: its fields in a plain element, no form, and a
 * script that posts them when its own "Sign in" button is pressed (Enter does nothing).
 */
function formless(form: string): string {
  const fields = form
    .replace(/^<form[^>]*>/, '')
    .replace(/<\/form>$/, '')
    .replace('type="submit"', 'type="button" id="go"');
  const post = `document.getElementById('go').onclick = () => { const f = document.createElement('form'); f.method = 'post'; f.action = '/users/sign_in'; for (const i of document.querySelectorAll('#fields input')) { const c = document.createElement('input'); c.type = 'hidden'; c.name = i.name; c.value = i.value; f.append(c); } document.body.append(f); f.submit(); };`;
  return `<div id="fields">${fields}</div><script>${post}</script>`;
}

/** The simulator's sign-in page, the social ways before its form (or instead of it). */
function drawn(html: string): string {
  const ways = layout.ways.map((w) => WAYS[w](google.url)).join('\n');
  const form = /<form id="sign-in"[\s\S]*?<\/form>/.exec(html)?.[0] ?? '';
  // A form a script draws a moment after the page (a sign-in application's), the ways shown at once.
  const body = !layout.form
    ? ''
    : layout.formless
      ? formless(form)
      : layout.late
        ? `<template id="later">${form}</template><div id="here"></div><script>setTimeout(() => document.getElementById('here').append(document.getElementById('later').content.cloneNode(true)), 600)</script>`
        : form;
  return page('Sign in', `${ways}<p>or</p>${body}`);
}

beforeAll(async () => {
  google = await listen((req, res) => {
    received.push(`${req.method} ${(req.url ?? '/').split('?')[0]}`);
    req.resume();
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        page(
          'Sign in with Google',
          '<form method="post"><input type="password" name="Passwd"><button>Next</button></form>',
        ),
      );
  });
  let base = '';
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (req.method === 'GET' && url.pathname === '/users/sign_in') {
      sendAnswer(
        res,
        simulatorAnswerTo(front.sim, req, url).then(async (answer) => {
          if (answer.status !== 200) return answer;
          const headers = new Headers(answer.headers);
          headers.delete('content-security-policy');
          headers.delete('content-length');
          return new Response(drawn(await answer.text()), { status: 200, headers });
        }),
      );
      return true;
    }
    if (url.pathname === BROKER) {
      req.resume();
      res.writeHead(302, { location: `${google.url}/o/oauth2/v2/auth?client_id=gitlab` }).end();
      return true;
    }
    return false;
  });
  base = front.url;
}, 60_000);

afterAll(async () => {
  await front?.close();
  await google?.close();
});

describe('a "Continue with Google" beside the password form', () => {
  // The form driver runs no script: the late form is the browser driver's alone.
  const cases: Array<readonly ['form' | 'browser', boolean]> = [
    ...PAGE_DRIVERS.map((kind) => [kind, false] as const),
    ...(PAGE_DRIVERS.includes('browser') ? [['browser', true] as const] : []),
  ];
  it.each(cases)(
    '%s driver (form drawn late by a script: %s): signed in with the form, every check passes, nothing sent to Google',
    async (kind, late) => {
      layout = { ways: ['link', 'form', 'broker'], form: true, late };
      received.length = 0;
      const why = expectAllPassed(await runWithDriver(front, kind, CHECKS));
      expect(received, why).toEqual([]);
    },
    120_000,
  );
});

describe('a "Sign in with Google" button above sign-in fields a script posts (no form of their own)', () => {
  it.skipIf(!PAGE_DRIVERS.includes('browser'))(
    "browser driver: the sign-in button pressed is the fields' own, never the way to Google",
    async () => {
      layout = { ways: ['signInForm'], form: true, formless: true };
      received.length = 0;
      const why = expectAllPassed(await runWithDriver(front, 'browser', CHECKS));
      expect(received, why).toEqual([]);
    },
    120_000,
  );
});

describe('only ways to sign in that leave for Google', () => {
  it.each(PAGE_DRIVERS.flatMap((kind) => (['link', 'form', 'broker'] as const).map((way) => [kind, way] as const)))(
    "%s driver, a %s: said once naming Google's origin, the rest skipped, nothing sent there",
    async (kind, way) => {
      layout = { ways: [way], form: false };
      received.length = 0;
      const said = new RegExp(`${google.url}.*trustedOrigins`);
      const why = expectSaidOnce(await runWithDriver(front, kind, CHECKS), said, CHECKS.length);
      expect(received, why).toEqual([]);
    },
    120_000,
  );
});
