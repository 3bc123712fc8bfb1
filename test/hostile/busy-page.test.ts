/**
 * A provider page whose script never yields (or a control that never becomes usable) makes
 * Playwright's action time out. That is the provider's page not responding, said as such (the
 * check errored with the reason), never "the check crashed (a defect of the harness)".
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import { createBrowserDriver, DEFAULT_CHROMIUM, type BrowserDriver } from '../../suites/drivers/browser.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { createOAuthFlows } from '../../suites/runner/oauth.js';
import { createRandom } from '../../suites/runner/random.js';
import { CheckSkipped, HarnessError } from '../../suites/runner/errors.js';
import { createHttpTarget } from '../../suites/target/http.js';
import { simulatorWith, type Loopback } from '../suites/loopback.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
let server: Loopback | undefined;
let driver: BrowserDriver | undefined;
afterAll(async () => {
  await driver?.close();
  await server?.close();
});

describe.skipIf(!existsSync(CHROMIUM))('a sign-in page whose script never yields', () => {
  it("is the provider's page not responding, not a crash of the harness", async () => {
    const sim = await simulatorWith((req, res) => {
      if (req.method !== 'GET' || !req.url?.startsWith('/users/sign_in')) return false;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<!DOCTYPE html><html><body><form method="post"><input name="username"><input type="password" name="password">' +
          '<button>Sign in</button></form><script>setTimeout(() => { for (;;) {} }, 100)</script></body></html>',
      );
      return true;
    });
    server = sim;
    const config = { ...targetConfig(sim.sim, sim.url), driver: { kind: 'browser' as const } };
    const http = createHttp(createHttpTarget(config), createRecorder(20), createRedactor());
    driver = await createBrowserDriver(http, config, { pageTimeoutMs: 1000 });
    const flows = createOAuthFlows(http, driver, config, createRedactor(), createRandom(3));
    const outcome = driver.authorize(flows.authorizeUrl('confidential', { state: 'busy' }), 'approve');
    await expect(outcome).rejects.toBeInstanceOf(HarnessError);
    await expect(outcome).rejects.toThrow(
      /^the provider.s page did not respond within (1000|2000) ms of the driver.s last step \(at \/users\/sign_in/,
    );
    // The hung page is gone, and said once for the run: the next visit meets the same sign-in page
    // and is skipped at once, it does not hang (browser-page-problems.test.ts has the time).
    const again = driver.authorize(flows.authorizeUrl('confidential', { state: 'again' }), 'approve');
    await expect(again).rejects.toBeInstanceOf(CheckSkipped);
    await expect(again).rejects.toThrow(
      /could not be played earlier in this run \(the provider.s page did not respond/,
    );
  }, 120_000);
});
