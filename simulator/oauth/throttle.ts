/**
 * Brute force has a price (AUTH-BRUTE-FORCE-THROTTLED): failures are counted per key (an account
 * for passwords, a signed-in account for user codes) in a window of the simulator's clock; past
 * limits.authFailuresMax the key is refused, right answer or not, until the window passes. The
 * counters are module state: reset() and time (a frozen clock keeps them) clear them.
 *
 * Two budgets, so that noise cannot flush a lock: keys of known accounts live in a table that is
 * never evicted (it is bounded by the accounts themselves, at most three keys each: same-origin
and other clients, browser pages of other origins, user codes), and unknown
 * logins, which anyone can invent without end, share a bounded table that forgets its oldest
 * window when full. Neither aggregating unknown logins into one key (which would tell a known
 * login from an unknown one by when it locks) nor refusing everyone while full (a lock-out of
 * every account by a flood of names) keeps both properties.
 */
import { limits } from '../../spec/index.js';
import type { Ctx, Sim } from '../types.js';
import { fromElsewhere } from '../origin.js';
import type { User } from '../store.js';

interface Failures {
  count: number;
  /** simulator seconds when the window of these failures started */
  since: number;
}

const UNKNOWN_LOGIN = 'login:';

/** Most unknown-login keys kept at once: guessed logins must not grow memory without bound. */
export const MAX_UNKNOWN_LOGIN_KEYS = 10_000;

function table(sim: Sim, key: string): Map<string, Failures> {
  return key.startsWith(UNKNOWN_LOGIN)
    ? sim.state('oauth:throttle:unknown-logins', () => new Map<string, Failures>())
    : sim.state('oauth:throttle:accounts', () => new Map<string, Failures>());
}

/** The window's entry of a key, dropped once its window has passed. */
function current(sim: Sim, key: string): Failures | undefined {
  const keys = table(sim, key);
  const entry = keys.get(key);
  if (entry && sim.clock.nowSeconds() >= entry.since + limits().authFailureWindowSeconds) {
    keys.delete(key);
    return undefined;
  }
  return entry;
}

/** A request from elsewhere (another origin, a rebound Host) counts under its own key, with the same budget. */
const ELSEWHERE = ':xsite';

/**
 * One key per account; an unknown login counts under its own name (so guessing names costs too).
 * Pass a Ctx to count a request from elsewhere apart (review 20; a rebound Host, review 25): a
 * page the developer visits could otherwise lock the harness's account for everyone with blind
 * POSTs to /oauth/token, and not counting them would let it guess freely.
 */
export function accountKey(user: User | undefined, login: string, ctx?: Ctx): string {
  const key = user ? `user:${user.id}` : `${UNKNOWN_LOGIN}${login.toLowerCase().slice(0, 256)}`;
  return ctx && fromElsewhere(ctx) ? key + ELSEWHERE : key;
}

/** The key of wrong user codes typed by one signed-in account. */
export function userCodeKey(user: User): string {
  return `user-code:${user.id}`;
}

export function accountLocked(sim: Sim, key: string): boolean {
  return (current(sim, key)?.count ?? 0) >= limits().authFailuresMax;
}

export function recordFailure(sim: Sim, key: string): void {
  const entry = current(sim, key);
  if (entry) {
    entry.count++;
    return;
  }
  const keys = table(sim, key);
  if (key.startsWith(UNKNOWN_LOGIN) && keys.size >= MAX_UNKNOWN_LOGIN_KEYS) {
    // Windows start at insertion, so the oldest are first: drop the expired ones from the front
    // (one step per insertion on average, not a walk of the table), and if none has expired,
    // forget the oldest window rather than refuse to count.
    const now = sim.clock.nowSeconds();
    for (const [k, old] of keys) {
      if (now < old.since + limits().authFailureWindowSeconds) break;
      keys.delete(k);
    }
    if (keys.size >= MAX_UNKNOWN_LOGIN_KEYS) keys.delete(keys.keys().next().value!);
  }
  keys.set(key, { count: 1, since: sim.clock.nowSeconds() });
}

/** Seconds until a locked key is accepted again (Retry-After). */
export function retryAfter(sim: Sim, key: string): number {
  const entry = current(sim, key);
  // At least 1: current() drops an entry once its window has passed, and the clock counts whole seconds.
  return entry ? entry.since + limits().authFailureWindowSeconds - sim.clock.nowSeconds() : 0;
}
