/**
 * A sign-in page that first checks that the browser keeps cookies, as WordPress's wp-login.php
 * (`testcookie`) and Keycloak's login page ("Cookie not found. Please make sure cookies are enabled
 * in your browser.") do: a GET of the sign-in without the test cookie answers 302 to the same page
 * with `?cookie_test=1` and sets the cookie; that second GET without it says cookies are blocked
 * (200, no form), with it shows the form. The sign-in's POST without the cookie is refused the same
 * way. Both page drivers keep the cookie across the bounce as a browser does, and every check
 * passes, the anonymous authorization's way to the sign-in form (grants.sign-in-required) too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, simulatorWith, type Loopback } from '../suites/loopback.js';
import type { Sim } from '../../simulator/types.js';
import { expectAllPassed, PAGE_DRIVERS, runWithDriver } from './provider.js';

/** An approval, a denial, and the anonymous way to the sign-in form through the bounce. */
const CHECKS = ['grants.state-unchanged', 'grants.consent-denied', 'grants.sign-in-required'];
const TEST_COOKIE = 'wordpress_test_cookie';

let front: Loopback & { sim: Sim };
/** What the provider answered at its sign-in: `bounce`, `blocked` (no cookie after it) or `form`. */
const seen: string[] = [];

const blocked = (res: import('node:http').ServerResponse) => {
  seen.push('blocked');
  const body =
    '<!DOCTYPE html><html><head><title>Sign in</title></head><body><div id="login_error"><strong>Error:</strong> Cookies are blocked or not supported by your browser. You must enable cookies to sign in.</div></body></html>';
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

beforeAll(async () => {
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', front.url);
    if (url.pathname !== '/users/sign_in') return false;
    const kept = (req.headers.cookie ?? '').split(/;\s*/).includes(`${TEST_COOKIE}=WP%20Cookie%20check`);
    if (req.method === 'POST') {
      if (kept) return false;
      void bodyOf(req).then(() => blocked(res));
      return true;
    }
    if (kept) return (seen.push('form'), false);
    if (url.searchParams.get('cookie_test') === '1') return (blocked(res), true);
    seen.push('bounce');
    url.searchParams.set('cookie_test', '1');
    res.writeHead(302, {
      location: `${url.pathname}${url.search}`,
      'set-cookie': `${TEST_COOKIE}=WP%20Cookie%20check; Path=/; HttpOnly; SameSite=Lax`,
      'content-length': 0,
    });
    res.end();
    return true;
  });
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe('a sign-in page behind a cookie check (a 302 to ?cookie_test=1 setting the test cookie)', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: the cookie is kept across the bounce; every check passes',
    async (kind) => {
      seen.length = 0;
      const why = expectAllPassed(await runWithDriver(front, kind, CHECKS));
      expect(seen, why).toContain('bounce');
      expect(seen, why).toContain('form');
      expect(seen, why).not.toContain('blocked');
    },
    60_000,
  );
});
