/**
 * With --slow on a target whose clock cannot be moved, the device checks wait in real time for
 * what the target names (its interval, its code's expires_in). Those waits move the check's time
 * limit on (a 300 s code under a 60 s limit could never be waited out), but never past the run's
 * --deadline: a wait longer than the time left is not begun, the check skipped at once. Real
 * timers and a real clock here: runner-session.test.ts freezes Date, which a deadline reads.
 */
import { describe, expect, it } from 'vitest';
import { limits } from '../../spec/index.js';
import { pollPaced, SHORT_PACED_WAIT_S, wait } from '../../suites/device/flow.js';
import { CONTROL_PREFIX } from '../../suites/drivers/simulator.js';
import { CheckSkipped } from '../../suites/runner/errors.js';
import { openSession } from '../../suites/runner/session.js';
import type { CheckContext } from '../../suites/types.js';
import { FAKE_BASE, RULES, check, fakeCheckContext, fakeRules, fakeTarget } from './fakes.js';

/**
 * A check that asks the target once, then waits `seconds` as the target would have asked; each
 * real wait begun is told to the check's limit first (waitingFor), and noted in `begun` (ms).
 */
const waits = (seconds: number, begun: number[]) => async (t: CheckContext) => {
  const response = await t.http.get('/');
  const seen: CheckContext = Object.create(t);
  seen.waitingFor = (ms: number) => {
    begun.push(ms);
    t.waitingFor?.(ms);
  };
  await wait(seen, seconds);
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
  const begun: number[] = [];
  const result = await session.runCheck(check('waits', ['T-MUST'], waits(seconds, begun)));
  await session.close();
  return { result, begun };
}

describe('--slow: the waits a target asks for', () => {
  it('move the time limit on by as much: a 0.4 s wait under a 50 ms limit passes', async () => {
    const { result, begun } = await runOne(0.4);
    expect([result.status, result.message]).toEqual(['passed', undefined]);
    expect(begun).toEqual([400]);
  });

  it("never past --deadline: a 30 s wait with 3 s left is not begun, the check skipped at once saying so (as pollPaced's)", async () => {
    // Before, it slept to the deadline and was cut there ('the run reached its --deadline'), the
    // run stopped with it, where a paced wait of the same kind was given up at once.
    const { result, begun } = await runOne(30, 3_000);
    expect([result.status, result.message]).toEqual(['skipped', "waiting 30 s would end past the run's --deadline"]);
    expect(begun).toEqual([]);
  });
});

/** A session over a target offering the simulator's clock control, played by `driver` (the form driver cannot move it). */
async function runOnClock(seconds: number, driver: 'form', begun: number[]) {
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
    return await session.runCheck(check('waits', ['T-MUST'], waits(seconds, begun)));
  } finally {
    await session.close();
  }
}

describe('--slow where the target offers a clock the driver cannot move', () => {
  it('the wait is made in real time (the form driver): a 0.4 s wait passes, not skipped for the clock', async () => {
    const begun: number[] = [];
    const result = await runOnClock(0.4, 'form', begun);
    expect([result.status, result.message]).toEqual(['passed', undefined]);
    expect(begun).toEqual([400]);
  });
});

/** A device poll the provider always answers slow_down, counted. */
function slowedContext(over: Record<string, unknown>, named?: number) {
  const polls: string[] = [];
  const body = JSON.stringify({ error: 'slow_down', ...(named === undefined ? {} : { interval: named }) });
  const answer = {
    status: 400,
    headers: new Headers({ 'content-type': 'application/json' }),
    text: body,
    json: () => JSON.parse(body) as unknown,
    url: `${FAKE_BASE}/oauth/token`,
  };
  const t = fakeCheckContext({
    oauth: {
      // The poll names the device app's client_id (device/flow.ts poll).
      app: () => ({ clientId: 'device-app', scopes: ['api'] }),
      tokenRequest: (form: Record<string, string>) => {
        polls.push(form.device_code);
        return Promise.resolve(answer);
      },
    },
    ...over,
  });
  return { t, polls };
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => ({ kind: 'answered', message: '' }),
    (e: unknown) => ({ kind: e instanceof CheckSkipped ? 'skipped' : String(e), message: (e as Error).message }),
  );

describe('a paced poll (pollPaced) where no clock moves and --slow is not given', () => {
  it('a short grown interval that would end past --deadline: skipped at once, saying so, not polled again', async () => {
    const polls: string[] = [];
    const target = fakeTarget(
      async (r) => {
        if (new URL(r.url).pathname !== '/oauth/token') return new Response('{}', { status: 404 });
        polls.push(new URLSearchParams(await new Response(r.body).text()).get('device_code') ?? '');
        return new Response(JSON.stringify({ error: 'slow_down' }), {
          status: 400,
          headers: { 'content-type': 'application/json' },
        });
      },
      { applications: { public: { clientId: 'device-app', redirectUri: 'http://client.test/cb', scopes: ['api'] } } },
    );
    const session = await openSession({ target, seed: 7, numRuns: 1, rules: RULES, deadline: Date.now() + 3_000 });
    polls.length = 0;
    const paced = async (t: CheckContext) => {
      await pollPaced(t, { deviceCode: 'dc', interval: 1 }, 'first poll', fakeRules('T-MUST'));
      t.expect(false, 'polled again');
    };
    const result = await session.runCheck(check('paced', ['T-MUST'], paced)).finally(() => session.close());
    expect([result.status, result.message]).toEqual([
      'skipped',
      "the provider answered slow_down to the first poll; polling again after the grown interval (6 s) would end past the run's --deadline",
    ]);
    expect(polls).toEqual(['dc']);
  });

  it(`a grown interval above ${SHORT_PACED_WAIT_S} s: skipped at once, it needs clock control or --slow`, async () => {
    const { t, polls } = slowedContext({});
    const interval = SHORT_PACED_WAIT_S - limits().slowDownIncrement + 1;
    const { kind, message } = await outcome(
      pollPaced(t, { deviceCode: 'dc', interval }, 'first poll', fakeRules('T-MUST'), 'public'),
    );
    expect([kind, message]).toEqual([
      'skipped',
      `the provider answered slow_down to the first poll; polling again after the grown interval (${SHORT_PACED_WAIT_S + 1} s) needs clock control or --slow`,
    ]);
    expect(polls).toEqual(['dc']);
  });

  it('an interval the slow_down names is the one waited (GitHub names it): 1 s grown to the 20 s asked, not to 6 s', async () => {
    // Before, the grown interval was always the old one plus the increment: 6 s waited in real time,
    // then a second slow_down failed the owner's must though the provider had said how long to wait.
    const { t, polls } = slowedContext({}, 20);
    const { kind, message } = await outcome(
      pollPaced(t, { deviceCode: 'dc', interval: 1 }, 'first poll', fakeRules('T-MUST'), 'public'),
    );
    expect([kind, message]).toEqual([
      'skipped',
      'the provider answered slow_down to the first poll; polling again after the grown interval (20 s) needs clock control or --slow',
    ]);
    expect(polls).toEqual(['dc']);
  });
});
