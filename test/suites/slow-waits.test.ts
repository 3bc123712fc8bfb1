/**
 * With --slow on a target whose clock cannot be moved, the device checks wait in real time for
 * what the target names (its interval, its code's expires_in). Those waits move the check's time
 * limit on (a 300 s code under a 60 s limit could never be waited out), but never past the run's
 * --deadline: a wait longer than the time left ends there, the check skipped as past it. Real
 * timers and a real clock here: runner-session.test.ts freezes Date, which a deadline reads.
 */
import { describe, expect, it } from 'vitest';
import { wait } from '../../suites/device/flow.js';
import { CONTROL_PREFIX } from '../../suites/drivers/simulator.js';
import { DEADLINE_REACHED, openSession } from '../../suites/runner/session.js';
import type { CheckContext } from '../../suites/types.js';
import { RULES, check, fakeTarget } from './fakes.js';

/** A check that asks the target once, then waits `seconds` as the target would have asked. */
const waits = (seconds: number) => async (t: CheckContext) => {
  const response = await t.http.get('/');
  await wait(t, seconds);
  t.expect(response.status === 404, 'the target answered');
};

async function runOne(seconds: number, deadlineInMs?: number) {
  const session = await openSession({
    target: fakeTarget(),
    seed: 7,
    numRuns: 1,
    rules: RULES,
    slow: true,
    checkTimeoutMs: 50,
    ...(deadlineInMs === undefined ? {} : { deadline: Date.now() + deadlineInMs }),
  });
  const started = Date.now();
  const result = await session.runCheck(check('waits', ['T-MUST'], waits(seconds)));
  const took = Date.now() - started;
  await session.close();
  return { result, took };
}

describe('--slow: the waits a target asks for', () => {
  it('move the time limit on by as much: a 0.4 s wait under a 50 ms limit passes', async () => {
    const { result } = await runOne(0.4);
    expect([result.status, result.message]).toEqual(['passed', undefined]);
  });

  it('never past --deadline: a 30 s wait with 300 ms left ends there, the check skipped as past it', async () => {
    const { result, took } = await runOne(30, 300);
    expect([result.status, result.message]).toEqual(['skipped', DEADLINE_REACHED]);
    // Cut at the deadline, not after the wait (a loaded machine may add seconds, not thirty).
    expect(took).toBeLessThan(20_000);
  });
});

/** A session over a target offering the simulator's clock control, played by `driver` (the form driver cannot move it). */
async function runOnClock(seconds: number, driver: 'form') {
  const json = (body: unknown) =>
    new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  const target = fakeTarget(
    (r) => {
      const path = new URL(r.url).pathname;
      if (path === `${CONTROL_PREFIX}/config`) return json({});
      if (path === `${CONTROL_PREFIX}/clock`) return json({ now: 0 });
      return new Response('{}', { status: 404 });
    },
    { driver: { kind: driver } },
  );
  const session = await openSession({ target, seed: 7, numRuns: 1, rules: RULES, slow: true, checkTimeoutMs: 50 });
  try {
    expect(session.caps.clock).toBe(true);
    return await session.runCheck(check('waits', ['T-MUST'], waits(seconds)));
  } finally {
    await session.close();
  }
}

describe('--slow where the target offers a clock the driver cannot move', () => {
  it('the wait is made in real time (the form driver): a 0.4 s wait passes, not skipped for the clock', async () => {
    const result = await runOnClock(0.4, 'form');
    expect([result.status, result.message]).toEqual(['passed', undefined]);
  });
});
