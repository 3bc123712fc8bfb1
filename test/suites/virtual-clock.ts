/**
 * A clock for the HTTP target (HttpTargetOptions.clock) whose waits cost no real time: a wait moves
 * its `now` on by the wait and is noted, so a test sees what the target would have waited.
 */
import type { Clock } from '../../suites/target/rate.js';

export interface VirtualClock extends Clock {
  /** Every wait asked, in milliseconds. */
  readonly slept: number[];
}

export function virtualClock(): VirtualClock {
  let offset = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => Date.now() + offset,
    async sleep(ms) {
      slept.push(ms);
      offset += ms;
    },
  };
}
