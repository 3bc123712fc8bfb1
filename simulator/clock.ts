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
  advance(seconds: number): void;
  reset(): void;
}

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
  return {
    now,
    nowSeconds: () => Math.floor(now() / 1000),
    advance(seconds) {
      if (!Number.isFinite(seconds) || seconds < 0)
        throw new RangeError('advance needs a non-negative number of seconds');
      offset += seconds * 1000;
    },
    reset() {
      offset = 0;
    },
  };
}
