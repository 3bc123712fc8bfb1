/**
 * The browser dies under the run: Chromium's process is killed (as the OOM killer of a CI runner
 * does) while the first of three browser checks plays the sign-in page, or only the renderer of
 * the provider's page is. A killed Chromium made every later check "crash (a defect of the
 * harness)", one by one, and the check in flight said only "could not open /oauth/authorize:
 * Error". Now the check in flight is errored with one line saying Chromium ended, the later ones
 * are skipped as that one premise, and the run ends with its verdict and reports (exit 2). A killed
 * renderer errors only the check whose page it was: the browser plays the next visit.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import {
  borrowBrowser,
  createBrowserDriver,
  DEFAULT_CHROMIUM,
  type BrowserDriver,
} from '../../suites/drivers/browser.js';
import { DriverError } from '../../suites/errors.js';
import { CheckSkipped, HarnessError } from '../../suites/runner/errors.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createOAuthFlows } from '../../suites/runner/oauth.js';
import { createRandom } from '../../suites/runner/random.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { createHttpTarget } from '../../suites/target/http.js';
import type { Report } from '../../suites/report/model.js';
import { allChecks } from '../../suites/index.js';
import { runCli, simulatorWith, type Loopback } from '../suites/loopback.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
const dir = mkdtempSync(join(tmpdir(), 'idp-browser-death-'));
let served: Loopback | undefined;
let driver: BrowserDriver | undefined;
/** Processes this file stopped: never left stopped, whatever the outcome. */
const stopped: number[] = [];
afterAll(async () => {
  for (const pid of stopped)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* ended already, as it should be */
    }
  await driver?.close();
  await served?.close();
});

/** The processes whose parent is `parent` and whose command line has `marker`. */
function children(parent: number, marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e)))
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  return pids;
}

/** The Chromium this process launched (playwright starts it as our child, talking over a pipe). */
const ourChromium = () => children(process.pid, '--remote-debugging-pipe');
/** Its renderers: children of its zygotes. */
const ourRenderers = () =>
  ourChromium()
    .flatMap((browser) => children(browser, '--type=zygote'))
    .flatMap((zygote) => children(zygote, '--type=renderer'));

describe.skipIf(!existsSync(CHROMIUM) || !existsSync('/proc/self/stat'))('the browser dies under the run', () => {
  it('Chromium killed in the first check: that check errored saying so, the later ones skipped, exit 2', async () => {
    let kills = 0;
    const sim = await simulatorWith((req) => {
      if (req.method === 'GET' && req.url?.startsWith('/users/sign_in') && kills++ === 0)
        for (const pid of ourChromium()) process.kill(pid, 'SIGKILL');
      return false;
    });
    served = sim;
    const configFile = join(dir, 'target.json');
    const config = { ...targetConfig(sim.sim, sim.url), driver: { kind: 'browser' } };
    writeFileSync(configFile, JSON.stringify(config), { mode: 0o600 });
    const ids = ['grants.state-unchanged', 'grants.consent-denied', 'grants.code-single-use'];
    const reportFile = join(dir, 'report.json');
    const { code } = await runCli(
      { config: configFile, runs: '1', seed: '1', report: `json=${reportFile}` },
      { checks: allChecks().filter((c) => ids.includes(c.id)) },
    );
    expect(kills).toBe(1);
    expect(code).toBe(2);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
    const [first, ...later] = report.checks;
    expect(first.status).toBe('errored');
    expect(first.message).toMatch(/^the harness could not complete this check: Chromium ended under the run/);
    expect(later.map((c) => c.status)).toEqual(['skipped', 'skipped']);
    for (const c of later) expect(c.message).toMatch(/^Chromium ended under the run .*an earlier check says so/);
    expect(report.checks.map((c) => c.message).join('\n')).not.toMatch(/defect of the harness/);
    await served.close();
    served = undefined;
  }, 120_000);

  it('a killed renderer errors that visit only: the next one is played', async () => {
    let kills = 0;
    const sim = await simulatorWith((req) => {
      if (req.method === 'GET' && req.url?.startsWith('/users/sign_in') && kills++ === 0)
        for (const pid of ourRenderers()) process.kill(pid, 'SIGKILL');
      return false;
    });
    served = sim;
    const config = { ...targetConfig(sim.sim, sim.url), driver: { kind: 'browser' as const } };
    const http = createHttp(createHttpTarget(config), createRecorder(20), createRedactor());
    driver = await createBrowserDriver(http, config);
    const flows = createOAuthFlows(http, driver, config, createRedactor(), createRandom(3));
    const outcome = driver.authorize(flows.authorizeUrl('confidential', { state: 'crash' }), 'approve');
    await expect(outcome).rejects.toBeInstanceOf(HarnessError);
    await expect(outcome).rejects.toThrow(/^the browser's renderer of the provider's page crashed/);
    const again = await driver.authorize(flows.authorizeUrl('confidential', { state: 'again' }), 'approve');
    expect(again.redirect?.searchParams.get('state')).toBe('again');
  }, 120_000);

  it('a stopped Chromium is ended after a ping goes unanswered: the visit errored saying so, the next skipped, close returns', async () => {
    let stops = 0;
    const sim = await simulatorWith((req) => {
      if (req.method === 'GET' && req.url?.startsWith('/users/sign_in') && stops++ === 0)
        for (const pid of ourChromium()) {
          stopped.push(pid);
          process.kill(pid, 'SIGSTOP');
        }
      return false;
    });
    await served?.close();
    served = sim;
    const config = { ...targetConfig(sim.sim, sim.url), driver: { kind: 'browser' as const } };
    const http = createHttp(createHttpTarget(config), createRecorder(20), createRedactor());
    await driver?.close();
    driver = await createBrowserDriver(http, config, { frozenAfterMs: 1000 });
    const flows = createOAuthFlows(http, driver, config, createRedactor(), createRandom(3));
    const outcome = driver.authorize(flows.authorizeUrl('confidential', { state: 'stop' }), 'approve');
    await expect(outcome).rejects.toBeInstanceOf(HarnessError);
    await expect(outcome).rejects.toThrow(/^Chromium stopped answering for 1 s under the run .* and was ended/);
    const later = driver.authorize(flows.authorizeUrl('confidential', { state: 'later' }), 'approve');
    await expect(later).rejects.toBeInstanceOf(CheckSkipped);
    await driver.close();
    driver = undefined;
    // Ended, not left stopped: nothing of it outlives the run.
    expect(stopped.length).toBeGreaterThan(0);
    expect(ourChromium().filter((pid) => stopped.includes(pid))).toEqual([]);
  }, 120_000);

  it('a Chromium stopped before a driver opens: the driver refuses in one line, and Chromium is ended', async () => {
    const sim = await simulatorWith(() => false);
    await served?.close();
    served = sim;
    const config = { ...targetConfig(sim.sim, sim.url), driver: { kind: 'browser' as const } };
    const http = createHttp(createHttpTarget(config), createRecorder(20), createRedactor());
    // Launched (and held) first, then stopped: as a library caller's Chromium between two runs.
    const held = await borrowBrowser({ executablePath: CHROMIUM });
    try {
      for (const pid of ourChromium()) {
        stopped.push(pid);
        process.kill(pid, 'SIGSTOP');
      }
      const opening = createBrowserDriver(http, config, { frozenAfterMs: 1000 });
      await expect(opening).rejects.toBeInstanceOf(DriverError);
      await expect(opening).rejects.toThrow(/^driver "browser": Chromium did not answer within 1 s .* and was ended$/);
    } finally {
      await held.release();
    }
    expect(ourChromium().filter((pid) => stopped.includes(pid))).toEqual([]);
  }, 120_000);
});
