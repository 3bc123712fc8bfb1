/**
 * The simulator's only source of time. Real time plus an offset that the control API can move
 * forward, so a check can "wait" five minutes of device-code lifetime in a millisecond. A frozen
 * clock (tests that count polls exactly) only moves when told to.
 */
export interface Clock {
  /** Milliseconds since the epoch, as the simulator sees it. */
  now(): number;
  /** Whole seconds since the epoch (what `created_at` and JWT claims use). */
  nowSeconds(): number;
  /** Throws a RangeError (advanceRefusal's words) on a move it refuses. */
  advance(seconds: number): void;
  /** Why advance(seconds) would be refused, or undefined when it may go on. */
  advanceRefusal(seconds: number): string | undefined;
  reset(): void;
}

/** One move's bound: about 31 years, far past any token lifetime a check waits for. */
export const MAX_ADVANCE_SECONDS = 1e9;
/** The largest epoch-milliseconds a Date represents: past it every rendered time throws. */
const DATE_MAX_MS = 8.64e15;

export interface ClockOptions {
  /** Start at this epoch-milliseconds instead of the real time. */
  start?: number;
  /** Do not follow real time; move only on advance(). */
  frozen?: boolean;
}

export function createClock(options: ClockOptions = {}): Clock {
  const realStart = Date.now();
  const start = options.start ?? realStart;
  let offset = 0;
  const now = () => (options.frozen ? start : start + (Date.now() - realStart)) + offset;
  // An offset of Infinity (or past Date's range) turned every throttle window expired and every
  // rendered date into a RangeError (review 20), so a move is bounded each step and in total.
  const advanceRefusal = (seconds: number) => {
    if (!Number.isFinite(seconds) || seconds < 0) return 'advanceSeconds must be a non-negative number';
    if (seconds > MAX_ADVANCE_SECONDS) return `advanceSeconds must be at most ${MAX_ADVANCE_SECONDS} per request`;
    if (now() + seconds * 1000 > DATE_MAX_MS)
      return 'advanceSeconds would move the clock past the latest date it can represent (year 275760)';
    return undefined;
  };
  return {
    now,
    nowSeconds: () => Math.floor(now() / 1000),
    advanceRefusal,
    advance(seconds) {
      const refusal = advanceRefusal(seconds);
      if (refusal) throw new RangeError(refusal);
      offset += seconds * 1000;
    },
    reset() {
      offset = 0;
    },
  };
}
