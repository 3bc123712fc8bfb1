/**
 * With --slow on a live target, the device checks wait in real time for what the target names:
 * its `interval`, its code's `expires_in` (plus one second). A Node timer keeps at most 2^31 - 1
 * ms and fires at once past it, so `expires_in: 1e10` made the wait no wait at all: the poll that
 * followed came at once, and what it got was blamed on DEV-EXPIRED-TOKEN. The wait now holds
 * (until the check's time limit, which judges no rule). Vitest's fake clock keeps Node's
 * overflow rule, so no real time passes here.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { wait } from '../../suites/device/flow.js';
import type { CheckContext } from '../../suites/types.js';

/** What wait() reads of a check: no clock control, real waiting allowed. */
const slowLiveTarget = {
  caps: { clock: false },
  slow: true,
  fail: (message: string) => {
    throw new Error(message);
  },
} as unknown as CheckContext;

afterEach(() => {
  vi.useRealTimers();
});

describe('a wait the target names, longer than a Node timer holds', () => {
  it.each([1e10, 3e6])('%d s is not over after a minute', async (seconds) => {
    vi.useFakeTimers();
    let over = false;
    void wait(slowLiveTarget, seconds).then(() => (over = true));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(over).toBe(false);
  });

  it('a short one is over when its time has passed', async () => {
    vi.useFakeTimers();
    let over = false;
    void wait(slowLiveTarget, 5).then(() => (over = true));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(over).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(over).toBe(true);
  });
});
