/**
 * A clock for the HTTP target (HttpTargetOptions.clock) whose waits cost no real time: a wait moves
 * its `now` on by the wait and is noted, so a test sees what the target would have waited. Only a
 * wait moves it: read off real time, a pause of 1000 ms was waited as 999 when a millisecond passed
 * between the pause and the wait (a loaded machine).
 */
import type { Clock } from '../../suites/target/rate.js';

export interface VirtualClock extends Clock {
  /** Every wait asked, in milliseconds. */
  readonly slept: number[];
}

export function virtualClock(): VirtualClock {
  const start = Date.now();
  let offset = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => start + offset,
    async sleep(ms) {
      slept.push(ms);
      offset += ms;
    },
  };
}
