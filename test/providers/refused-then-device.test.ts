/**
 * The configured password is wrong, and the provider's device page connects a device on the user
 * code alone, with no sign-in (a deviation: L84 has the user enter the code and authenticate). The
 * refused sign-in is said once; no later journey may count as signed in because the password once
 * went out. Before, the drivers kept "the password went out" as the session for the run, so the
 * device page read as an approval by a signed-in user: DEV-APPROVE, DEV-SUCCESS and TOK-VERIFY-USER
 * (musts) passed in the very run that said nobody could sign in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allChecks } from '../../suites/index.js';
import { explain, PAGE_DRIVERS, runAgainst, startProvider, type Provider } from './provider.js';

const page = (body: string) => ({
  status: 200,
  headers: { 'content-type': 'text/html' },
  body: `<html><title>Device</title><body>${body}</body></html>`,
});

/**
 * How the provider refuses the password: its sign-in form again (the simulator's), or a page of
 * links only that a driver could misread as a consent or an interstitial ("OK" to the home page,
 * plain or drawn by a script; a cookie banner's "Accept all"). Before, each counted the visit as
 * signed in.
 */
const REFUSAL = {
  'its sign-in form again': undefined,
  '"OK" to the home page': '<a href="/">OK</a>',
  '"OK" to a home page a script draws': '<a href="/home">OK</a>',
  'a cookie banner\'s "Accept all"': '<a href="/-/cmp?all=1">Accept all</a>',
} as const;
let refusal: keyof typeof REFUSAL = 'its sign-in form again';

let provider: Provider;

beforeAll(async () => {
  provider = await startProvider((method, url, sim) => {
    const links = REFUSAL[refusal];
    if (links !== undefined && method === 'POST' && url.pathname === '/users/sign_in')
      return () => page(`<p>Invalid login or password.</p>${links}`);
    if (method === 'GET' && url.pathname === '/-/cmp') return () => page('<p>Preferences saved.</p>');
    if (method === 'GET' && url.pathname === '/home')
      return () => page('<div id="app"></div><script>/* draws */</script>');
    if (method === 'GET' && url.pathname === '/oauth/device') {
      const code = (url.searchParams.get('user_code') ?? '').replace(/[^A-Z0-9-]/gi, '');
      return () =>
        page(
          `<form method="post" action="/oauth/device/code"><input name="user_code" value="${code}"><button type="submit">Submit</button></form>`,
        );
    }
    if (method === 'POST' && url.pathname === '/oauth/device/code')
      return async (body) => {
        const userCode = new URLSearchParams(body).get('user_code') ?? '';
        await sim.handle(
          new Request(`${url.origin}/-/simulator/device/approve`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ user_code: userCode }),
          }),
        );
        return { status: 302, headers: { location: '/oauth/device/connected' } };
      };
    if (method === 'GET' && url.pathname === '/oauth/device/connected')
      return () => page('<p>Your device is now connected.</p>');
    return undefined;
  });
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

const CHECKS = ['grants.consent-denied', 'device.token-response', 'device.verification-page'];

describe('a refused sign-in, then a device page that connects on the code alone', () => {
  for (const how of Object.keys(REFUSAL) as (keyof typeof REFUSAL)[])
    it.each(PAGE_DRIVERS)(
      `%s driver, refused with ${how}: no device check counts the refused password as a sign-in`,
      async (kind) => {
        refusal = how;
        const run = await runAgainst(
          provider,
          { runs: '2' },
          allChecks().filter((c) => CHECKS.includes(c.id)),
          { driver: { kind }, user: { username: 'root', password: 'wrong-password' } },
        );
        const why = explain(run.report, run.stderr);
        const passed = run.report.rules.filter((r) => r.status === 'passed').map((r) => r.id);
        expect(
          passed.filter((id) => ['DEV-APPROVE', 'DEV-SUCCESS', 'TOK-VERIFY-USER'].includes(id)),
          why,
        ).toEqual([]);
        expect(run.report.checks.find((c) => c.id === 'device.token-response')?.status, why).not.toBe('passed');
      },
      120_000,
    );
});
