/**
 * The browser's fence (suites/drivers/fence.ts) on its own. Its bypass list is the trusted origins,
 * each with its port, and a host that would make a rule of its own (`*`, a comma) is a config
 * error. In Chromium, with PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK set as a user's
 * environment may have it (Playwright then adds no `<-loopback>`, and Chromium lets loopback past
 * every proxy): a page on the trusted origin sends fetches, images and WebSockets to another port,
 * and to its own port under other loopback names ([::1], localhost, a.localhost, 127.0.0.2):
 * nothing reaches them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { bypassRule, openFence } from '../../suites/drivers/fence.js';
import { ConfigError } from '../../suites/errors.js';
import { borrowBrowser, DEFAULT_CHROMIUM } from '../../suites/drivers/browser.js';
import { startCollector, type Collector } from './collector.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
const hasChromium = existsSync(CHROMIUM);

describe('the bypass rule of a trusted origin', () => {
  it('writes the port, and takes a plain host name or an IP literal only', () => {
    expect(
      ['http://127.0.0.2', 'https://idp.example', 'http://[::1]:8080', 'http://A.Example:3000'].map(bypassRule),
    ).toEqual(['http://127.0.0.2:80', 'https://idp.example:443', 'http://[::1]:8080', 'http://a.example:3000']);
    for (const origin of [
      'http://*:3000',
      'http://a,*:3000',
      'http://*.example',
      'http://a;b:3000',
      'http://<-loopback>',
    ])
      expect(() => bypassRule(origin), origin).toThrow(ConfigError);
  });

  it('refused, opens no fence: nothing is left listening', async () => {
    const servers = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
    const before = servers();
    await expect(openFence(['http://127.0.0.1:3000', 'http://*:3000'])).rejects.toThrow(ConfigError);
    expect(servers()).toBe(before);
  });
});

describe.skipIf(!hasChromium)(
  hasChromium
    ? 'the fence in Chromium, with Playwright adding no <-loopback>'
    : `the fence in Chromium: skipped, no Chromium at ${CHROMIUM}`,
  () => {
    /** The trusted origin, serving the page, and another port: both listen on IPv4 and IPv6. */
    let trusted: Collector;
    let other: Collector;
    let release: (() => Promise<void>) | undefined;
    const env = process.env.PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK;

    beforeAll(async () => {
      other = await startCollector(undefined, '::');
      trusted = await startCollector((req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(req.url === '/' ? page() : 'x');
      }, '::');
    });
    afterAll(async () => {
      if (env === undefined) delete process.env.PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK;
      else process.env.PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK = env;
      await release?.();
      await Promise.all([trusted?.close(), other?.close()]);
    });

    const port = (c: Collector) => /:(\d+)$/.exec(c.url)![1];
    function page(): string {
      const T = port(trusted);
      const O = port(other);
      const urls = [
        `http://127.0.0.1:${O}/other-port`,
        `http://[::1]:${O}/other-port-v6`,
        `http://localhost:${O}/other-port-localhost`,
        `http://[::1]:${T}/v6`,
        `http://localhost:${T}/localhost`,
        `http://a.localhost:${T}/a-localhost`,
        `http://127.0.0.2:${T}/ip2`,
      ];
      const sockets = [
        `ws://127.0.0.1:${O}/ws-other-port`,
        `ws://[::1]:${T}/ws-v6`,
        `ws://localhost:${T}/ws-localhost`,
      ];
      return `<!doctype html><title>t</title><script>
${JSON.stringify(urls)}.forEach((u) => { fetch(u, { mode: 'no-cors' }).catch(() => {}); new Image().src = u + '-image'; });
${JSON.stringify(sockets)}.forEach((u) => { try { new WebSocket(u); } catch {} });
</script>`;
    }

    it('a page on the trusted origin reaches no other loopback port or name', async () => {
      const fence = await openFence([`http://127.0.0.1:${port(trusted)}`]);
      const borrowed = await borrowBrowser();
      release = borrowed.release;
      process.env.PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK = '1';
      const context = await borrowed.browser.newContext({ proxy: fence.proxy });
      try {
        const tab = await context.newPage();
        await tab.goto(`http://127.0.0.1:${port(trusted)}/`);
        await new Promise((resolve) => setTimeout(resolve, 1500));
        expect(trusted.received.map((r) => `${r.method} ${r.path}`).filter((r) => r !== 'GET /favicon.ico')).toEqual([
          'GET /',
        ]);
        expect(other.received).toEqual([]);
      } finally {
        await context.close();
        await fence.close();
      }
    });
  },
);
