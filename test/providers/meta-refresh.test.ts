/**
 * Redirects made by a page instead of a 302, as IdentityServer's quickstart UI makes them (its
 * Redirect page: "You are being returned to the application", a `<meta http-equiv="refresh"
 * content="0;url=…">` whose `data-url` a script of its own follows too) and as a sign-in does that
 * sets its session cookie on a page before going on (a "cookie bounce": the next request is a
 * same-site navigation, so a SameSite=Strict cookie travels with it). Here the provider answers the
 * password and the consent's decision so: a 200 page that refreshes to where the simulator's 302
 * pointed, after a second for the sign-in (the authorization), at once for the decision (the
 * application's redirect_uri with the code, or the denial). RFC 6749 §1.7 makes the way the
 * user-agent is sent to the redirection URI the server's choice ("any other method available via
 * the user-agent"): both page drivers follow the refresh as a browser does (the browser driver
 * waits the second out, as a person does), and every check passes. A wrong password answered so
 * too (a 200 page, "Invalid login or password", that refreshes back to the sign-in form after a
 * second) is still a refused sign-in, said once, the password sent once.
 *
 * The anonymous authorization's redirect to the sign-in is such a page too: grants.sign-in-required,
 * which follows it itself, finds the sign-in form past it (before, it warned GRANT-SIGN-IN-REQUIRED:
 * "must redirect to sign in").
 *
 * Before, the form driver followed no refresh, and the browser driver read the sign-in's page at
 * once: both took it for a refused sign-in (the config blamed), and the form driver failed
 * oidc.id-token, a must ("ended on a page (status 200)").
 *
 * The same redirect made by a `Refresh` header (a page with no tag) is followed too: before, neither
 * driver read the header (review 14), and the browser driver took the page for a refused sign-in.
 * Pages that refresh round and round (A→B→A) end the flow said so: before, the browser driver waited
 * each out to the check's time limit ("the target did not answer"). The bound is a count of the
 * refreshes one visit follows (html.ts MAX_STEPS), not a pattern: a loop to a new URL each time
 * (/wait?n=1, ?n=2, …) is said the same way (before: the browser driver read a page still refreshing,
 * "no approve control", the form driver "did not settle"), and a "please wait" page alternating
 * between two URLs a few times before going on is followed to its end (before: the browser driver
 * stopped it at its first repeat).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { simulatorRewriting, type Loopback } from '../suites/loopback.js';
import { escaped, page } from './sign-in-journey.js';
import { targetConfig } from '../../simulator/control/config.js';
import { explain, expectAllPassed, expectOneRefusal, PAGE_DRIVERS, runWithDriver } from './provider.js';

/** The password, an approval and a denial, each an authorization of its own; the anonymous one's way to the sign-in. */
const CHECKS = ['grants.state-unchanged', 'grants.consent-denied', 'oidc.id-token', 'grants.sign-in-required'];
/** The answers to the password, the decision and the authorization (its redirect to the sign-in). */
const REFRESHED = new Set(['/users/sign_in', '/oauth/authorize']);

let front: Loopback & { sim: Sim };

/** Passwords the provider received. */
let passwords = 0;

/** How the provider sends the browser on: the tag, the header, or into a loop of refreshes after the password. */
let way: 'meta' | 'header' | 'loop' | 'counting' | 'polling' | 'scripted' = 'meta';

/** The polling page's visits so far, and where the password's answer sends the browser once they are done. */
const polling = { visits: 0, then: '' };
/** The polling pages alternate /poll-a, /poll-b this many times each before going on. */
const ALTERNATIONS = 3;

/** A 200 page that refreshes to `location` after `seconds`, the answer's cookies kept. */
function refreshing(answer: Response, location: string, seconds: number, title: string, text: string): Response {
  const to = escaped(location);
  const headers = new Headers({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  for (const cookie of answer.headers.getSetCookie()) headers.append('set-cookie', cookie);
  if (way === 'header') {
    headers.set('refresh', `${seconds};url=${location}`);
    return new Response(page(title, `<p>${text}</p>`), { status: 200, headers });
  }
  const body = page(title, `<p>${text}</p>`).replace(
    '</head>',
    `<meta http-equiv="refresh" content="${seconds};url=${to}" data-url="${to}"></head>`,
  );
  return new Response(body, { status: 200, headers });
}

/**
 * The Redirect page in place of the simulator's 302, refreshing after `seconds`; its refused sign-in
 * (401) a page that returns to the form after a second.
 */
async function refreshPage(answer: Response, seconds: number): Promise<Response> {
  const location = answer.headers.get('location');
  if (answer.status === 302 && location)
    return refreshing(answer, location, seconds, 'Redirecting', 'You are now being returned to the application.');
  if (answer.status === 401)
    return refreshing(
      answer,
      '/users/sign_in',
      1,
      'Sign in',
      'Invalid login or password. Returning you to the sign-in.',
    );
  return answer;
}

beforeAll(async () => {
  front = await simulatorRewriting(
    // The authorization's own redirects too (to the sign-in), and every answer to a POST.
    (method, url) =>
      (REFRESHED.has(url.pathname) && (method === 'POST' || url.pathname === '/oauth/authorize')) ||
      url.pathname.startsWith('/loop-') ||
      url.pathname === '/wait' ||
      url.pathname.startsWith('/poll-') ||
      (way === 'scripted' && method === 'GET' && ['/users/sign_in', '/nojs'].includes(url.pathname)),
    (answer, url) => {
      // A sign-in page a script draws, sending a client running no script to a page saying so.
      if (way === 'scripted' && url.pathname === '/nojs')
        return new Response(page('JavaScript required', '<p>Please enable JavaScript to sign in.</p>'), {
          headers: { 'content-type': 'text/html; charset=utf-8' },
        });
      if (way === 'scripted' && url.pathname === '/users/sign_in')
        return new Response(
          page('Sign in', '<div id="app"></div><script>/* draws the form */</script>').replace(
            '</head>',
            '<noscript><meta http-equiv="refresh" content="0;url=/nojs"></noscript></head>',
          ),
          { headers: { 'content-type': 'text/html; charset=utf-8' } },
        );
      if (url.pathname === '/users/sign_in') passwords++;
      // The loop: the password's answer refreshes to /loop-a, which refreshes to /loop-b, and back.
      if (way === 'loop' && (url.pathname === '/users/sign_in' || url.pathname.startsWith('/loop-'))) {
        const next = url.pathname === '/loop-a' ? '/loop-b' : '/loop-a';
        return refreshing(answer, next, 1, 'Please wait', 'Signing you in.');
      }
      // A count that never ends: the password's answer refreshes to /wait?n=1, which refreshes to ?n=2, at once.
      if (way === 'counting' && (url.pathname === '/users/sign_in' || url.pathname === '/wait')) {
        const n = Number(url.searchParams.get('n') ?? 0) + 1;
        return refreshing(answer, `/wait?n=${n}`, 0, 'Please wait', 'Signing you in.');
      }
      // A "please wait" page polling: the password's answer refreshes to /poll-a, which alternates
      // with /poll-b (the same two URLs, a second each) until the sign-in is ready, then goes on to where the 302 pointed.
      if (way === 'polling' && url.pathname === '/users/sign_in') {
        polling.visits = 0;
        polling.then = answer.headers.get('location') ?? '';
        return refreshing(answer, '/poll-a', 1, 'Please wait', 'Signing you in.');
      }
      if (way === 'polling' && url.pathname.startsWith('/poll-')) {
        const done = ++polling.visits >= 2 * ALTERNATIONS;
        const next = done ? polling.then : url.pathname === '/poll-a' ? '/poll-b' : '/poll-a';
        return refreshing(answer, next, 1, 'Please wait', 'Signing you in.');
      }
      // The sign-in's cookie bounce waits a second; the Redirect page goes at once.
      return refreshPage(answer, url.pathname === '/users/sign_in' ? 1 : 0);
    },
  );
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe('a Refresh header in place of the tag, and pages refreshing round and round', () => {
  afterAll(() => void (way = 'meta'));

  it.each(PAGE_DRIVERS)(
    '%s driver: follows a Refresh header as it does the tag; the check passes',
    async (kind) => {
      way = 'header';
      expectAllPassed(await runWithDriver(front, kind, ['oidc.id-token']));
    },
    120_000,
  );

  /** Pages refreshing round and round (A→B→A), and on and on to a new URL each time: the last refresh said. */
  const ENDLESS = [
    ['loop', 'pages refreshing A→B→A', /\/loop-[ab] refreshes to \/loop-[ab]/],
    ['counting', 'pages refreshing to a new URL each time (/wait?n=1, ?n=2, …)', /\/wait refreshes to \/wait/],
  ] as const;
  it.each(PAGE_DRIVERS.flatMap((kind) => ENDLESS.map((row) => [kind, ...row] as const)))(
    '%s driver (%s): %s end the flow after a bounded count of refreshes, said so (not at the time limit)',
    async (kind, endless, _pages, last) => {
      way = endless;
      const { report, stderr } = await runWithDriver(front, kind, ['oidc.id-token']);
      const why = explain(report, stderr);
      expect(why).toMatch(/refresh round and round: more than 12 refreshes in one visit, the last /);
      // Stopped by the count, not by the check's time limit (its message would be "did not finish
      // within 60000 ms"): the message says so; how long it took depends on the machine's load.
      expect(why).toMatch(last);
    },
    120_000,
  );

  it.each(PAGE_DRIVERS)(
    '%s driver: a "please wait" page alternating /poll-a, /poll-b a few times, then going on, is followed to the end; the check passes',
    async (kind) => {
      way = 'polling';
      expectAllPassed(await runWithDriver(front, kind, ['oidc.id-token']));
      expect(polling.visits).toBe(2 * ALTERNATIONS);
    },
    120_000,
  );

  it('form driver: a sign-in page a script draws, its <noscript> refreshing to a "JavaScript required" page, is said as the script\'s', async () => {
    way = 'scripted';
    const { report, stderr } = await runWithDriver(front, 'form', ['oidc.id-token']);
    expect(explain(report, stderr)).toMatch(
      /page at \/users\/sign_in has no form \(a script draws it\)[^]*use driver: browser/,
    );
  });
});

describe('the password and the decision answered by a page that refreshes to the next step', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: follows the refresh as a browser does; every check passes',
    async (kind) => {
      expectAllPassed(await runWithDriver(front, kind, CHECKS));
    },
    120_000,
  );

  it.each(PAGE_DRIVERS)(
    '%s driver: a wrong password answered by a page that refreshes back to the form is refused once',
    async (kind) => {
      const user = targetConfig(front.sim, front.url).user!;
      passwords = 0;
      const { report, stderr } = await runWithDriver(front, kind, CHECKS, {
        user: { ...user, password: 'not-the-password' },
      });
      expectOneRefusal(report, explain(report, stderr));
      expect(passwords, explain(report, stderr)).toBe(1);
    },
    120_000,
  );
});
