/**
 * The proxy's cross-site guard as a real browser meets it (Chromium; test/proxy/safety.test.ts
 * sends the headers by hand). The team's application served locally on another port sends the
 * browser to the proxy's authorization endpoint, by a link and by its server's redirect: that
 * navigation carries no Origin (a GET navigation never does), is `same-site` from 127.0.0.1,
 * `cross-site` from localhost, carries the app's loopback Referer, and reaches the provider (a link
 * that withholds its Referer too, `same-site` from 127.0.0.1). A page
 * of another site (http://evil.test, served through the browser context's own proxy; a loopback
 * origin would be the team's) sends what a page can without being seen (an image, a no-cors fetch,
 * a frame, a form posted into a frame, a GET form into a new window, a window it opened and sends
 * to the proxy again and again, a prefetch and a prerender by speculation rules, which Chromium
 * sends as `Sec-Fetch-Site: none`), and a link the developer follows: none of it
 * reaches the provider. The proxy-served page's own prefetch and prerender (also `none`) do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { startProxy, type RunningProxy } from '../../suites/proxy/server.js';
import { borrowBrowser, DEFAULT_CHROMIUM } from '../../suites/drivers/browser.js';
import { startCollector, type Collector } from '../hostile/collector.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
const hasChromium = existsSync(CHROMIUM);

const page = (body: string) => (res: import('node:http').ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end(`<!doctype html><title>page</title>${body}`);
};

describe.skipIf(!hasChromium)(
  hasChromium ? 'the proxy and pages in Chromium' : `the proxy in Chromium: skipped, no Chromium at ${CHROMIUM}`,
  () => {
    /** The provider: what reaches it through the proxy. */
    let provider: Collector;
    let proxy: RunningProxy;
    let app: Collector;
    let other: Collector;
    let browser: Browser;
    let context: BrowserContext;
    let release: (() => Promise<void>) | undefined;
    /** The exchanges the proxy judged (a refused request is none). */
    const judged: string[] = [];
    const reached = () => provider.received.map((r) => `${r.method} ${r.path}`);

    beforeAll(async () => {
      provider = await startCollector((req, res) =>
        page(
          req.url === '/own/page'
            ? `<p>the provider</p><script type="speculationrules">{"prefetch": [{"source": "list", "urls": ["/own/prefetch"]}],
"prerender": [{"source": "list", "urls": ["/own/prerender"]}]}</script>`
            : '<p>the provider</p>',
        )(res),
      );
      proxy = await startProxy({ target: provider.url, onExchange: (exchange) => judged.push(exchange.target) });
      const authorize = `${proxy.url}/oauth/authorize?client_id=app`;
      app = await startCollector((req, res) => {
        if (req.url === '/login') {
          res.writeHead(302, { location: `${authorize}&via=redirect` });
          return void res.end();
        }
        // `quiet` withholds its Referer, as a page with helmet's Referrer-Policy: no-referrer does.
        page(`<a id="link" href="${authorize}&via=link">Sign in</a><a id="login" href="/login">Sign in</a>
<a id="quiet" referrerpolicy="no-referrer" href="${authorize}&via=no-referrer">Sign in</a>`)(res);
      });
      other = await startCollector((_req, res) =>
        page(`<img src="${proxy.url}/hidden/image">
<iframe src="${proxy.url}/hidden/frame"></iframe>
<iframe name="sink"></iframe>
<form id="f" method="POST" action="${proxy.url}/hidden/form" target="sink"><input name="a" value="b"></form>
<a id="link" href="${proxy.url}/hidden/link">a link</a>
<button id="opener" onclick="const w = window.open('about:blank', 'sent');
  for (const n of [1, 2, 3]) setTimeout(() => { w.location = '${proxy.url}/hidden/opened?n=' + n; }, 300 * n);">go</button>
<form id="g" method="GET" action="${proxy.url}/hidden/get-form" target="_blank"><input name="a" value="b"></form>
<script type="speculationrules">{"prefetch": [{"source": "list", "urls": ["${proxy.url}/hidden/prefetch"]}],
"prerender": [{"source": "list", "urls": ["${proxy.url}/hidden/prerender"]}]}</script>
<script>fetch('${proxy.url}/hidden/fetch', { mode: 'no-cors' }).catch(() => {});
document.getElementById('f').submit();
document.getElementById('g').submit();</script>`)(res),
      );
      const borrowed = await borrowBrowser();
      browser = borrowed.browser;
      release = borrowed.release;
      // Every name but loopback's goes to `other`, a forward proxy here: http://evil.test is its page.
      context = await browser.newContext({ proxy: { server: other.url, bypass: '127.0.0.1,localhost' } });
    });

    afterAll(async () => {
      await context?.close();
      await release?.();
      await Promise.all([other?.close(), app?.close(), proxy?.close(), provider?.close()]);
    });

    it.each([
      // same-site (another port) by its server's redirect; cross-site (another name) by a link.
      ['127.0.0.1', 'login', 'redirect'],
      ['localhost', 'link', 'link'],
      // same-site with no Referer: the proxy's Host is a loopback literal, so the page is loopback.
      ['127.0.0.1', 'quiet', 'no-referrer'],
    ])(
      "the team's application on %s sends the browser to the authorization endpoint (%s): it is forwarded",
      async (host, id, via) => {
        const tab = await context.newPage();
        await tab.goto(app.url.replace('127.0.0.1', host));
        const [answer] = await Promise.all([tab.waitForNavigation(), tab.click(`#${id}`)]);
        expect({ status: answer?.status(), text: await tab.textContent('body') }).toEqual({
          status: 200,
          text: 'the provider',
        });
        expect(reached()).toContain(`GET /oauth/authorize?client_id=app&via=${via}`);
        await tab.close();
      },
    );

    it("another site's page reaches the provider in no way, not even by a link the developer follows", async () => {
      const tab = await context.newPage();
      await tab.goto('http://evil.test/');
      // The frame posted into has answered (or been refused): everything the page sent on load is in.
      await tab.waitForLoadState('load');
      // A window it opened and sends to the proxy three times (Sec-Fetch-User only on the first).
      // Its GET form's window is in front: Chromium holds a page's frames behind it, and a click waits for one.
      await tab.bringToFront();
      await tab.click('#opener');
      // Both windows have had their (last) answer: the GET form's and the opened one's third.
      const answered = () =>
        ['/hidden/get-form', '/hidden/opened?n=3'].every((path) => context.pages().some((p) => p.url().includes(path)));
      for (let waited = 0; !answered() && waited < 5000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(answered()).toBe(true);
      await tab.bringToFront();
      const [answer] = await Promise.all([tab.waitForNavigation(), tab.click('#link')]);
      expect(answer?.status()).toBe(403);
      expect(reached().filter((r) => /\/hidden\//.test(r))).toEqual([]);
      expect(judged.filter((t) => t.includes('/hidden/'))).toEqual([]);
      for (const other of context.pages()) if (other !== tab) await other.close();
      await tab.close();
    });

    it('a page the proxy served prefetches and prerenders its own pages (Chromium says Sec-Fetch-Site: none): they pass', async () => {
      const tab = await context.newPage();
      await tab.goto(`${proxy.url}/own/page`);
      const own = () => reached().filter((r) => /\/own\/pre/.test(r));
      for (let waited = 0; own().length < 2 && waited < 5000; waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(own().sort()).toEqual(['GET /own/prefetch', 'GET /own/prerender']);
      await tab.close();
    });
  },
);
