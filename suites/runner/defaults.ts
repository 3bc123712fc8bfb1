/** Run defaults shared by the command line and the vitest glue. */
import { randomInt } from 'node:crypto';

/** Property runs per check: enough to find the faults the project tests for, fast on two cores. */
export const DEFAULT_RUNS = 30;
/** The seed in CI (process.env.CI): runs there repeat exactly; elsewhere each run draws its own. */
export const CI_SEED = 20_240_517;
/** fast-check seeds are 32-bit integers. */
export const MAX_SEED = 2 ** 31 - 1;

export function defaultSeed(env: NodeJS.ProcessEnv = process.env): number {
  return env.CI ? CI_SEED : randomInt(0, MAX_SEED);
}
