/**
 * Issue 20, item 1, through real Chromium: a page on another origin (127.0.0.2, cross-site; and
 * another port of 127.0.0.1, same-site) drives the simulator served on 127.0.0.1 the ways a web
 * page can without a preflight: a blind no-cors fetch with a form body, a plain auto-submitted
 * <form method=POST>, and fetches of the config. Nothing changes and the config is not answered,
 * as the control API itself says when the test asks it afterwards. Nor does a prefetch or prerender
 * its speculation rules ask for, which Chromium sends as `Sec-Fetch-Site: none`, as if typed.
 * Review 20, item 2: nor can such a page lock the harness's account with wrong passwords sent
 * blind to /oauth/token (its failures count apart, and still lock it out).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { limits } from '../../spec/index.js';
import { createSimulator } from '../../simulator/core.js';
import { serve, type Served } from '../../simulator/adapters/node.js';
import { borrowBrowser, DEFAULT_CHROMIUM } from '../../suites/drivers/browser.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
const hasChromium = existsSync(CHROMIUM);

/** The attacker's page: every request it can make without a preflight, then a report in its title. */
function attackPage(sim: string, username: string): string {
  const users = `${sim}/-/simulator/users`;
  return `<!doctype html><title>running</title>
<iframe name="sink"></iframe>
<form id="f" method="POST" action="${users}" target="sink">
  <input name="username" value="${username}-form"><input name="password" value="Pw-Zz9-form-x">
  <input name="admin" value="true">
</form>
<form id="g" method="POST" action="${sim}/-/simulator/clock" target="sink" enctype="text/plain">
  <input name='{"advanceSeconds":86400,"x":"' value='"}'>
</form>
<script>
(async () => {
  const report = {};
  const blind = (url, body) => fetch(url, { method: 'POST', mode: 'no-cors', body }).then(() => 'sent', (e) => 'error');
  report.user = await blind('${users}', new URLSearchParams({ username: '${username}-fetch', password: 'Pw-Zz9-fetch-x', admin: 'true' }));
  report.settings = await blind('${sim}/-/simulator/settings', new URLSearchParams({ signupEnabled: 'false' }));
  report.reset = await blind('${sim}/-/simulator/reset', '');
  try {
    const res = await fetch('${sim}/-/simulator/config');
    report.config = 'read ' + (await res.text()).length;
  } catch (e) {
    report.config = 'unreadable';
  }
  report.opaque = await fetch('${sim}/-/simulator/config', { mode: 'no-cors' }).then((r) => r.type, () => 'error');
  const loaded = (form) => new Promise((resolve) => {
    document.querySelector('iframe').addEventListener('load', resolve, { once: true });
    form.submit();
  });
  await loaded(document.getElementById('f'));
  await loaded(document.getElementById('g'));
  document.title = 'done ' + JSON.stringify(report);
})();
</script>`;
}

function servePage(host: string, html: () => string): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () =>
      resolve({ server, origin: `http://${host}:${(server.address() as AddressInfo).port}` }),
    );
  });
}

describe.skipIf(!hasChromium)(
  hasChromium ? 'cross-site pages in Chromium' : `cross-site pages: skipped, no Chromium at ${CHROMIUM}`,
  () => {
    let browser: Browser;
    let served: Served;
    const pages: Server[] = [];
    /** Status of each control API answer the simulator sent, by path. */
    const answered: string[] = [];

    let release: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      // The worker's Chromium (test/setup/one-chromium.ts); each tab below is a context of its own.
      ({ browser, release } = await borrowBrowser({ executablePath: CHROMIUM }));
      served = await serve(createSimulator({ clock: { frozen: true } }));
      served.server.on('request', (req, res) => {
        res.once('finish', () => answered.push(`${req.method} ${req.url} ${res.statusCode}`));
      });
    });
    afterAll(async () => {
      await release?.();
      await served?.close();
      await Promise.all(pages.map((s) => new Promise((r) => s.close(r))));
    });

    /** What the control API says, asked by this test (same-origin, JSON): users, clock, config. */
    const state = async () => {
      const get = (path: string) => fetch(`${served.url}/-/simulator/${path}`).then((r) => r.json());
      const [stats, settings, config] = await Promise.all([get('stats'), get('settings'), get('config')]);
      const clock = await fetch(`${served.url}/-/simulator/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advanceSeconds: 0 }),
      }).then((r) => r.json());
      return { users: stats.users, settings, now: clock.now, user: config.user.username };
    };

    it.each([
      ['another site (127.0.0.2)', '127.0.0.2', 'xsite'],
      ['another port of 127.0.0.1 (same site)', '127.0.0.1', 'xport'],
    ])('a page on %s changes nothing and reads no config', async (_label, host, username) => {
      const before = await state();
      const page = await servePage(host, () => attackPage(served.url, username));
      pages.push(page.server);
      answered.length = 0;
      const tab = await browser.newPage();
      let fromPage: string[];
      try {
        await tab.goto(`${page.origin}/`);
        await tab.waitForFunction(() => document.title.startsWith('done '), undefined, { timeout: 20_000 });
        fromPage = [...answered];
        const report = JSON.parse((await tab.title()).slice('done '.length));
        expect(report.config).toBe('unreadable');
      } finally {
        await tab.close();
      }
      expect(await state()).toEqual(before);
      // The simulator itself refused all seven requests (not only the browser's CORS): 403 or 415.
      expect(fromPage).toHaveLength(7);
      for (const line of fromPage) expect(line).toMatch(/ (403|415)$/);
    });

    it('a page on another site has Chromium prefetch and prerender the config (speculation rules, sent as none): refused', async () => {
      const config = `${served.url}/-/simulator/config`;
      const page = await servePage(
        '127.0.0.2',
        () => `<!doctype html><title>t</title><script type="speculationrules">{"prefetch": [{"source": "list", "urls": ["${config}?prefetch"]}],
"prerender": [{"source": "list", "urls": ["${config}?prerender"]}]}</script>`,
      );
      pages.push(page.server);
      answered.length = 0;
      const tab = await browser.newPage();
      try {
        await tab.goto(`${page.origin}/`);
        for (let waited = 0; answered.length < 2 && waited < 5000; waited += 100)
          await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        await tab.close();
      }
      expect([...answered].sort()).toEqual([
        'GET /-/simulator/config?prefetch 403',
        'GET /-/simulator/config?prerender 403',
      ]);
    });

    it('a page on another site that sends wrong passwords for the account locks only itself out', async () => {
      const get = (path: string) => fetch(`${served.url}/-/simulator/${path}`).then((r) => r.json());
      const { user } = (await get('config')) as { user: { username: string; password: string } };
      const guesses = limits().authFailuresMax + 5;
      const grant = (password: string) =>
        `fetch('${served.url}/oauth/token', { method: 'POST', mode: 'no-cors', body: new URLSearchParams({ grant_type: 'password', username: ${JSON.stringify(user.username)}, password: ${JSON.stringify(password)} }) })`;
      // Every guess wrong, then the right password: still refused, the page's own guesses locked it.
      const page = await servePage(
        '127.0.0.2',
        () => `<!doctype html><title>running</title><script>
(async () => {
  for (let i = 0; i < ${guesses}; i++) await ${grant('wrong-guess')}.catch(() => {});
  await ${grant(user.password)}.catch(() => {});
  document.title = 'done';
})();
</script>`,
      );
      pages.push(page.server);
      const tokensBefore = ((await get('stats')) as { accessTokens: number }).accessTokens;
      answered.length = 0;
      const tab = await browser.newPage();
      try {
        await tab.goto(`${page.origin}/`);
        await tab.waitForFunction(() => document.title === 'done', undefined, { timeout: 20_000 });
      } finally {
        await tab.close();
      }
      expect(answered.filter((line) => line.startsWith('POST /oauth/token '))).toHaveLength(guesses + 1);
      expect(((await get('stats')) as { accessTokens: number }).accessTokens).toBe(tokensBefore);
      // A client outside the browser (the harness) still signs in with the right password.
      const res = await fetch(`${served.url}/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'password', username: user.username, password: user.password }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toHaveProperty('access_token');
    });

    /**
     * Review 25, finding 5: cookies ignore ports, so a page on another port of 127.0.0.1 can set
     * `_idp_session` or `_idp_presession` for the simulator's host with a narrower path, which the
     * browser then sends first. A sign-in by plain requests (no browser header) gives the second
     * account's cookies, as any client of a shared simulator can get them.
     */
    describe('a page on another port of 127.0.0.1 and the session cookies', () => {
      const other = { username: 'mallory', password: 'mallory-Pw-9-shadow' };
      /** A pre-session cookie's value and its form's token: derived, nothing stored, valid after that sign-in too. */
      let pre: { nonce: string; token: string };
      let sid: string;
      beforeAll(async () => {
        const created = await fetch(`${served.url}/-/simulator/users`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(other),
        });
        expect(created.status).toBe(201);
        const page = await fetch(`${served.url}/users/sign_in`);
        const cookie = page.headers.getSetCookie()[0].split(';')[0];
        const token = /name="authenticity_token" value="([^"]*)"/.exec(await page.text())![1];
        pre = { nonce: cookie.slice(cookie.indexOf('=') + 1), token };
        const signedIn = await fetch(`${served.url}/users/sign_in`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie },
          body: new URLSearchParams({
            authenticity_token: token,
            'user[login]': other.username,
            'user[password]': other.password,
          }),
        });
        expect(signedIn.status).toBe(302);
        sid = signedIn.headers.getSetCookie()[0].split(';')[0].split('=')[1];
      });

      it('a session cookie it sets for /oauth makes the developer signed out there, never the other account', async () => {
        const { user, applications } = (await fetch(`${served.url}/-/simulator/config`).then((r) => r.json())) as {
          user: { username: string; password: string };
          applications: { confidential: { clientId: string; redirectUri: string } };
        };
        const authorize = `${served.url}/oauth/authorize?${new URLSearchParams({
          client_id: applications.confidential.clientId,
          redirect_uri: applications.confidential.redirectUri,
          response_type: 'code',
          scope: 'api',
          state: 'shadow',
        })}`;
        const page = await servePage(
          '127.0.0.1',
          () => `<!doctype html><title>t</title><script>
document.cookie = '_idp_session=${sid}; path=/oauth';
location = ${JSON.stringify(authorize)};
</script>`,
        );
        pages.push(page.server);
        const context = await browser.newContext();
        try {
          const tab = await context.newPage();
          // The developer signs in with the simulator's own page: a same-origin form post.
          await tab.goto(`${served.url}/users/sign_in`);
          await tab.fill('input[name="user[login]"]', user.username);
          await tab.fill('input[name="user[password]"]', user.password);
          await tab.click('button[type=submit]');
          await tab.waitForURL(/\/user_settings\/applications$/);
          await tab.goto(authorize);
          expect(await tab.textContent('#username')).toBe(user.username);
          await tab.goto(`${page.origin}/`);
          await tab.waitForURL((url) => url.origin === served.url);
          expect(
            await tab
              .locator('#username')
              .textContent({ timeout: 1000 })
              .catch(() => null),
          ).toBeNull();
          expect(new URL(tab.url()).pathname).toBe('/users/sign_in');
        } finally {
          await context.close();
        }
      });

      it('its sign-in form post with a pre-session cookie it set (login CSRF) is refused: 403, nobody signed in', async () => {
        const page = await servePage(
          '127.0.0.1',
          () => `<!doctype html><title>t</title>
<form id="f" method="POST" action="${served.url}/users/sign_in">
<input name="authenticity_token" value="${pre.token}">
<input name="user[login]" value="${other.username}"><input name="user[password]" value="${other.password}">
</form><script>
document.cookie = '_idp_presession=${pre.nonce}; path=/users';
document.getElementById('f').submit();
</script>`,
        );
        pages.push(page.server);
        answered.length = 0;
        const context = await browser.newContext();
        try {
          const tab = await context.newPage();
          await tab.goto(`${page.origin}/`);
          for (
            let waited = 0;
            !answered.some((l) => l.startsWith('POST /users/sign_in')) && waited < 5000;
            waited += 100
          )
            await new Promise((resolve) => setTimeout(resolve, 100));
          expect(answered.filter((l) => l.startsWith('POST /users/sign_in'))).toEqual(['POST /users/sign_in 403']);
          // Signed in as nobody: the applications page sends the browser to sign in.
          await tab.goto(`${served.url}/user_settings/applications`);
          expect(new URL(tab.url()).pathname).toBe('/users/sign_in');
        } finally {
          await context.close();
        }
      });
    });
  },
);
