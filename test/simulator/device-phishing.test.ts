/**
 * Review 25, finding 1, through real Chromium: a page on another site (127.0.0.2) starts a device
 * authorization with a seeded application's client_id (the endpoint answers any origin) and opens
 * verification_uri_complete for the developer, who is signed in. The one click the page counts on,
 * the entry form's button, must only look the code up: the device stays pending, and the next page
 * names the application, its scopes and the user code, and asks to Authorize or Deny (RFC 8628
 * §3.3, §5.4). Before, that click approved the device and the page's poll read an `api` token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { createSimulator } from '../../simulator/core.js';
import { serve, type Served } from '../../simulator/adapters/node.js';
import { seeded } from '../../simulator/oauth/accounts.js';
import { FIELDS, SELECTORS } from '../../simulator/pages/layout.js';
import type { Sim } from '../../simulator/types.js';
import { borrowBrowser, DEFAULT_CHROMIUM } from '../../suites/drivers/browser.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
const hasChromium = existsSync(CHROMIUM);

/**
 * The other site's page: starts a device authorization as `clientId`, opens the verification page
 * in a new window and offers `poll()`, one token request with the device code it kept.
 */
const phishingPage = (sim: string, clientId: string) => `<!doctype html><title>starting</title><script>
const grant = 'urn:ietf:params:oauth:grant-type:device_code';
let deviceCode;
window.poll = async () => {
  const body = new URLSearchParams({ grant_type: grant, device_code: deviceCode, client_id: ${JSON.stringify(clientId)} });
  return (await fetch(${JSON.stringify(`${sim}/oauth/token`)}, { method: 'POST', body })).json();
};
(async () => {
  const body = new URLSearchParams({ client_id: ${JSON.stringify(clientId)}, scope: 'api' });
  const started = await (await fetch(${JSON.stringify(`${sim}/oauth/authorize_device`)}, { method: 'POST', body })).json();
  deviceCode = started.device_code;
  window.open(started.verification_uri_complete, '_blank');
  document.title = 'opened';
})();
</script>`;

describe.skipIf(!hasChromium)(
  hasChromium ? 'device phishing in Chromium' : `device phishing: skipped, no Chromium at ${CHROMIUM}`,
  () => {
    let browser: Browser;
    let release: (() => Promise<void>) | undefined;
    let sim: Sim;
    let served: Served;
    let other: Server;
    let otherOrigin: string;

    beforeAll(async () => {
      ({ browser, release } = await borrowBrowser({ executablePath: CHROMIUM }));
      sim = createSimulator({ clock: { frozen: true } });
      served = await serve(sim);
      // The application the page names by ?role= (the confidential one's id needs no secret there).
      other = createServer((req, res) => {
        const role = new URL(req.url ?? '/', 'http://x').searchParams.get('role') === 'confidential';
        const app = seeded(sim).applications[role ? 'confidential' : 'public'];
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(phishingPage(served.url, app.uid));
      });
      await new Promise<void>((resolve, reject) => {
        other.once('error', reject);
        other.listen(0, '127.0.0.2', resolve);
      });
      otherOrigin = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await release?.();
      await served?.close();
      await new Promise((resolve) => other?.close(resolve));
    });

    const signIn = async (tab: Page) => {
      const { admin } = seeded(sim);
      await tab.goto(`${served.url}/users/sign_in`);
      await tab.fill(`input[name="${FIELDS.login}"]`, admin.username);
      await tab.fill(`input[name="${FIELDS.password}"]`, admin.password);
      await tab.click('button[type="submit"]');
      await tab.waitForLoadState();
    };

    it.each(['public', 'confidential'] as const)(
      '%s application: the click on the entry form decides nothing; the confirmation names the application and scopes; its Authorize approves',
      async (role) => {
        const context = await browser.newContext();
        try {
          const tab = await context.newPage();
          await signIn(tab);
          const opened = context.waitForEvent('page');
          await tab.goto(`${otherOrigin}/?role=${role}`);
          const device = await opened;
          await device.waitForLoadState();
          await tab.waitForFunction(() => document.title === 'opened');
          const shown = new URL(device.url()).searchParams.get('user_code');
          // The one click: the first button of the form the developer lands on.
          await device.locator('form button[type="submit"]').first().click();
          await device.waitForFunction(() => !document.querySelector('form#device'));
          const poll = () =>
            tab.evaluate(() => (window as unknown as { poll(): Promise<Record<string, unknown>> }).poll());
          const first = await poll();
          expect('access_token' in first).toBe(false);
          expect(first.error).toBe('authorization_pending');
          // The page after it names who asks and for what, beside the code the device shows.
          const app = seeded(sim).applications[role];
          expect(await device.locator('#application-name').textContent()).toBe(app.name);
          expect(await device.locator('#scopes').innerText()).toBe('api');
          expect(shown).toMatch(/^[B-Z]{4}-[B-Z]{4}$/);
          expect(await device.locator('#user-code').textContent()).toBe(shown);
          expect(await device.locator(`input[name="${FIELDS.csrf}"]`).count()).toBe(1);
          // Only its Authorize approves: the next poll, an interval later, gets the token.
          await device.locator(SELECTORS.approve).click();
          await device.locator('main[data-page="device_approved"]').waitFor();
          sim.clock.advance([...sim.store.deviceCodes.values()].at(-1)!.interval);
          const second = await poll();
          expect(typeof second.access_token).toBe('string');
        } finally {
          await context.close();
        }
      },
    );
  },
);
