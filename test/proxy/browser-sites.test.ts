/**
 * The proxy's cross-site guard as a real browser meets it (Chromium; test/proxy/safety.test.ts
 * sends the headers by hand). The team's application served locally on another port sends the
 * browser to the proxy's authorization endpoint, by a link and by its server's redirect: that
 * navigation carries no Origin (a GET navigation never does) and is `same-site` from 127.0.0.1,
 * `cross-site` from localhost, and reaches the provider. A page of another site (http://evil.test,
 * served through the browser context's own proxy; a loopback origin would be the team's) sends
 * what a page can without being seen (an image, a no-cors fetch, a frame, a form posted into a
 * frame, a prefetch and a prerender by speculation rules, which Chromium sends as `Sec-Fetch-Site:
 * none`, as if typed): none of it reaches the provider. Its top-level link to the proxy does, as a link to the
 * provider itself would: the developer sees the page change, and the page that made it reads nothing.
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
      provider = await startCollector((_req, res) => page('<p>the provider</p>')(res));
      proxy = await startProxy({ target: provider.url, onExchange: (exchange) => judged.push(exchange.target) });
      const authorize = `${proxy.url}/oauth/authorize?client_id=app`;
      app = await startCollector((req, res) => {
        if (req.url === '/login') {
          res.writeHead(302, { location: `${authorize}&via=redirect` });
          return void res.end();
        }
        page(`<a id="link" href="${authorize}&via=link">Sign in</a><a id="login" href="/login">Sign in</a>`)(res);
      });
      other = await startCollector((_req, res) =>
        page(`<img src="${proxy.url}/hidden/image">
<iframe src="${proxy.url}/hidden/frame"></iframe>
<iframe name="sink"></iframe>
<form id="f" method="POST" action="${proxy.url}/hidden/form" target="sink"><input name="a" value="b"></form>
<a id="link" href="${proxy.url}/visible/link">a link</a>
<script type="speculationrules">{"prefetch": [{"source": "list", "urls": ["${proxy.url}/hidden/prefetch"]}],
"prerender": [{"source": "list", "urls": ["${proxy.url}/hidden/prerender"]}]}</script>
<script>fetch('${proxy.url}/hidden/fetch', { mode: 'no-cors' }).catch(() => {});
document.getElementById('f').submit();</script>`)(res),
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

    it("another site's page reaches the provider only by a link the developer follows, never unseen", async () => {
      const tab = await context.newPage();
      await tab.goto('http://evil.test/');
      // The frame posted into has answered (or been refused): everything the page sent on load is in.
      await tab.waitForLoadState('load');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const [answer] = await Promise.all([tab.waitForNavigation(), tab.click('#link')]);
      expect(answer?.status()).toBe(200);
      expect(reached().filter((r) => /\/(hidden|visible)\//.test(r))).toEqual(['GET /visible/link']);
      expect(judged.filter((t) => t.includes('/hidden/'))).toEqual([]);
      await tab.close();
    });
  },
);
