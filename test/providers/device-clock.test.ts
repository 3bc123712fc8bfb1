/**
 * The device checks that need time, against the simulator over HTTP (its clock offered) with each
 * page driver: whether time can pass is what THIS run can do, the clock moved by the driver in use
 * or real waits allowed by --slow, not what the target offers. The form driver cannot move the
 * simulator's clock, so without --slow those checks are skipped before they ask anything (before,
 * they started a device code, approved and polled it, and then skipped on the first wait, saying
 * "the target offers no clock control", which the target did offer). The browser driver moves it,
 * and the same checks pass. The session's gate reads the same fact (clockMoves) for the checks of
 * other suites that need the clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatorWith, type Loopback } from '../suites/loopback.js';
import type { Sim } from '../../simulator/types.js';
import { checksWith, explain, PAGE_DRIVERS, runWithDriver } from './provider.js';

let front: Loopback & { sim: Sim };

beforeAll(async () => {
  front = await simulatorWith(() => false);
}, 60_000);

afterAll(async () => {
  await front?.close();
});

/** The checks that wait for a device code's interval or lifetime (needTime). */
const TIMED = ['device.expired-token', 'device.single-use'];

/**
 * Polled by another client at once after approval, then by its own: before, it skipped after the
 * first poll with the form driver ("the target offers no clock control") to wait an interval no
 * poll of its own client had asked for, and on a live target without --slow passed on half its rule.
 */
const CLIENT_BOUND = 'device.client-bound';

/** A check of another suite that moves the clock (the session's gate decides it: needs clock). */
const CODE_EXPIRY = 'grants.code-expiry';

/** A check that moves the clock only for its second half, where this run can. */
const REVOKE = 'tokens.info-dead-token';

/** The device codes the run left polled or decided (the start-up's probe leaves its own untouched). */
const touched = (sim: Sim) => [...sim.store.deviceCodes.values()].filter((c) => c.lastPollAt !== null || c.userId);

describe('device checks that need time, on the simulator', () => {
  it('form driver, no --slow: skipped before any request, the driver named as the missing premise', async () => {
    const { report, stderr } = await runWithDriver(front, 'form', TIMED);
    const why = explain(report, stderr);
    expect(checksWith(report, 'skipped'), why).toEqual(TIMED);
    for (const c of report.checks)
      expect(c.message, why).toBe(
        "needs clock control (the simulator) or --slow to wait in real time (the form driver cannot move the target's clock)",
      );
    // Decided up front: no code was approved or polled, so nothing waited for a wait that could not come.
    expect(touched(front.sim), why).toEqual([]);
  }, 60_000);

  it('form driver, no --slow: device.client-bound needs no wait, and passes (both of its polls judged)', async () => {
    const { report, stderr } = await runWithDriver(front, 'form', [CLIENT_BOUND]);
    const why = explain(report, stderr);
    expect(checksWith(report, 'passed'), why).toEqual([CLIENT_BOUND]);
    // The code's own client was given the tokens: the second half of the rule was judged, not left out.
    expect(
      touched(front.sim).map((c) => c.state),
      why,
    ).toEqual(['consumed']);
  }, 60_000);

  it("form driver: a check that needs the clock (needs: ['clock']) is skipped before it runs, naming the driver", async () => {
    // Before, the gate asked the target alone: grants.code-expiry minted two codes, then skipped on
    // the driver's refusal to move the clock ('the target offers no clock control').
    const { report, stderr } = await runWithDriver(front, 'form', [CODE_EXPIRY]);
    const why = explain(report, stderr);
    expect([report.checks[0].status, report.checks[0].message], why).toEqual([
      'skipped',
      "needs clock: the form driver cannot move the target's clock",
    ]);
  }, 60_000);

  it('form driver: tokens.info-dead-token judges the revoked token and leaves the expiry half unasked: passed', async () => {
    // Before, it judged the revoked token, then asked the driver to move the clock and was skipped.
    const { report, stderr } = await runWithDriver(front, 'form', [REVOKE]);
    expect(checksWith(report, 'passed'), explain(report, stderr)).toEqual([REVOKE]);
  }, 60_000);

  it.skipIf(!PAGE_DRIVERS.includes('browser'))(
    'browser driver: it moves the simulator clock, and the four checks pass',
    async () => {
      const { report, stderr } = await runWithDriver(front, 'browser', [...TIMED, CLIENT_BOUND, CODE_EXPIRY]);
      const why = explain(report, stderr);
      expect(checksWith(report, 'passed'), why).toEqual([CLIENT_BOUND, ...TIMED, CODE_EXPIRY].sort());
    },
    120_000,
  );
});
