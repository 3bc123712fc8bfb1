/**
 * The simulator's device page in two steps (review 25, finding 1): the user code entered, then a
 * confirmation naming the application and its scopes, whose Authorize or Deny decides. The page
 * drivers, with their defaults and with the config the simulator writes, play it: every device
 * check they can run passes, and each decision they made was made on the confirmation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allChecks } from '../../suites/index.js';
import { targetConfig } from '../../simulator/control/config.js';
import type { Sim } from '../../simulator/types.js';
import { simulatorRewriting, type Loopback } from './loopback.js';
import { checksWith, explain, PAGE_DRIVERS, runChecks } from '../providers/provider.js';

const DEVICE_CHECKS = allChecks()
  .filter((c) => c.suite === 'device')
  .map((c) => c.id);
/** Chromium is dear: the checks that approve, deny and enter a wrong code on the page (the whole suite: 40 s). */
const ON_THE_PAGE = ['device.token-response', 'device.verification-page', 'device.unknown-user-code'];

let front: Loopback & { sim: Sim };
/** The page each POST /oauth/device answered with (its data-page, or the entry form's `entry`). */
const answered: string[] = [];

beforeAll(async () => {
  front = await simulatorRewriting(
    (method, url) => method === 'POST' && url.pathname === '/oauth/device',
    async (answer) => {
      answered.push(/data-page="([^"]+)"/.exec(await answer.clone().text())?.[1] ?? 'entry');
      return answer;
    },
  );
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe("the simulator's device page: the code, then the confirmation", () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: the device checks pass, every decision taken on the confirmation',
    async (kind) => {
      answered.length = 0;
      // The driver settings the simulator writes (its consent selectors), only the kind changed.
      const driver = { ...targetConfig(front.sim, front.url).driver, kind };
      const checks = kind === 'form' ? DEVICE_CHECKS : ON_THE_PAGE;
      const { code, report, stderr } = await runChecks(front, checks, {}, { driver });
      const why = explain(report, stderr);
      expect(checksWith(report, 'failed', 'warned', 'errored'), why).toEqual([]);
      expect(code, why).toBe(0);
      for (const id of ON_THE_PAGE) expect(report.checks.find((c) => c.id === id)?.status, why).toBe('passed');
      // Each decision (a result page: approved, denied, a code used or expired) answered the
      // confirmation's form, which the code's entry had answered just before.
      const decisions = answered.flatMap((p, i) => (p === 'device_confirm' || p === 'entry' ? [] : [i]));
      expect(decisions.length, why).toBeGreaterThan(1);
      expect(
        decisions
          .map((i) => `${answered[i - 1]} -> ${answered[i]}`)
          .filter((pair) => !pair.startsWith('device_confirm ')),
        why,
      ).toEqual([]);
    },
    180_000,
  );
});
