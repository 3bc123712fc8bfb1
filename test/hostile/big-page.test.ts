/**
 * The browser driver reads the page a visit ends on (the device page after approval, a consent
 * page that offers nothing to press) to hand it to the check. It read it whole, past --max-body:
 * Chromium evicts a large body from its buffer, and the DOM serialised in its place came over as
 * one string (157 MB into the harness for a device page padded with 150 MB). Now a page past
 * PAGE_TEXT_LIMIT is not read: the check that needed it fails with that reason, as an answer past
 * --max-body fails over HTTP. A proxy in front of the simulator pads every HTML page.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../../simulator/core.js';
import { serve, type Served } from '../../simulator/adapters/node.js';
import { targetConfig } from '../../simulator/control/config.js';
import { createHttpTarget } from '../../suites/target/http.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { createBrowserDriver, DEFAULT_CHROMIUM, PAGE_TEXT_LIMIT } from '../../suites/drivers/browser.js';
import { CheckFailure } from '../../suites/runner/errors.js';
import type { Driver, TargetConfig } from '../../suites/types.js';
import { startProxy } from './collector.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
let served: Served;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let config: TargetConfig;
/** Bytes added to every HTML page, hidden. */
let pad = 0;

beforeAll(async () => {
  const sim = createSimulator({});
  served = await serve(sim);
  proxy = await startProxy(served.url, (_req, answer) => {
    const html = answer.headers.some(([n, v]) => /^content-type$/i.test(n) && /html/i.test(v));
    if (!html || !pad) return answer;
    return { ...answer, body: Buffer.concat([answer.body, Buffer.from(`<div hidden>${'x'.repeat(pad)}</div>`)]) };
  });
  sim.options.controlHosts = [served.url, proxy.url].map((u) => new URL(u).host);
  config = { ...targetConfig(sim, proxy.url), driver: { kind: 'browser' } };
});

afterAll(async () => {
  await proxy?.close();
  await served?.close();
});

describe.skipIf(!existsSync(CHROMIUM))('browser driver: the page a visit ends on', () => {
  let driver: Driver | undefined;
  afterAll(async () => driver?.close?.());

  async function approveDevice(): Promise<void> {
    const http = createHttp(createHttpTarget(config), createRecorder(20), createRedactor());
    await driver?.close?.();
    driver = await createBrowserDriver(http, config);
    const start = await http.post('/oauth/authorize_device', {
      form: { client_id: config.applications!.public!.clientId, scope: 'api' },
    });
    return driver.approveDevice(start.json<{ user_code: string }>().user_code);
  }

  it('is read when it is within the limit', async () => {
    pad = 1024 * 1024;
    await expect(approveDevice()).resolves.toBeUndefined();
  }, 120_000);

  it('past the limit is not read: the check fails, saying so', async () => {
    pad = 9 * 1024 * 1024;
    const outcome = approveDevice();
    await expect(outcome).rejects.toBeInstanceOf(CheckFailure);
    await expect(outcome).rejects.toThrow(/^the page at \/oauth\/device\S* is larger than the 8 MiB the harness reads/);
    expect(PAGE_TEXT_LIMIT).toBeLessThan(pad);
  }, 120_000);
});
