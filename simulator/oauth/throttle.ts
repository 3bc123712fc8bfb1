/**
 * Brute force has a price (AUTH-BRUTE-FORCE-THROTTLED): failures are counted per key (an account
 * for passwords, a signed-in account for user codes) in a window of the simulator's clock; past
 * limits.authFailuresMax the key is refused, right answer or not, until the window passes. The
 * counters are module state: reset() and time (a frozen clock keeps them) clear them.
 */
import { limits } from '../../spec/index.js';
import type { Sim } from '../types.js';
import type { User } from '../store.js';

interface Failures {
  count: number;
  /** simulator seconds when the window of these failures started */
  since: number;
}

function table(sim: Sim): Map<string, Failures> {
  return sim.state('oauth:throttle', () => new Map<string, Failures>());
}

/** The window's entry of a key, dropped once its window has passed. */
function current(sim: Sim, key: string): Failures | undefined {
  const entry = table(sim).get(key);
  if (entry && sim.clock.nowSeconds() >= entry.since + limits().authFailureWindowSeconds) {
    table(sim).delete(key);
    return undefined;
  }
  return entry;
}

/** One key per account; an unknown login counts under its own name (so guessing names costs too). */
export function accountKey(user: User | undefined, login: string): string {
  return user ? `user:${user.id}` : `login:${login.toLowerCase().slice(0, 256)}`;
}

export function accountLocked(sim: Sim, key: string): boolean {
  return (current(sim, key)?.count ?? 0) >= limits().authFailuresMax;
}

/** Most keys kept at once: guessed logins must not grow memory without bound. */
const MAX_KEYS = 10_000;

export function recordFailure(sim: Sim, key: string): void {
  const entry = current(sim, key);
  if (entry) {
    entry.count++;
    return;
  }
  const keys = table(sim);
  if (keys.size >= MAX_KEYS) {
    for (const k of [...keys.keys()]) current(sim, k);
    // Still full: forget the oldest window (insertion order), never refuse to count.
    if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
  }
  keys.set(key, { count: 1, since: sim.clock.nowSeconds() });
}

/** Seconds until a locked key is accepted again (Retry-After). */
export function retryAfter(sim: Sim, key: string): number {
  const entry = current(sim, key);
  // At least 1: current() drops an entry once its window has passed, and the clock counts whole seconds.
  return entry ? entry.since + limits().authFailureWindowSeconds - sim.clock.nowSeconds() : 0;
}
