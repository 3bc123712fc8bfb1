/**
 * Bounded memory: what has expired, been revoked or ended is forgotten after its grace period
 * (spec/profiles.yaml `retention`), judged by the simulator's clock, so a frozen clock keeps
 * everything and a moved clock evicts at once. A sweep walks the store at most once per
 * `evictionInterval` of that clock; core.ts runs it before a request.
 */
import { retention } from '../spec/index.js';
import type { Store } from './store.js';
import { slotOf } from './digest.js';

/** When a record that ended without a timestamp (a rotated refresh token) was first seen ended. */
const endedSeen = new WeakMap<object, number>();

function endedAt(record: object, now: number): number {
  let at = endedSeen.get(record);
  if (at === undefined) endedSeen.set(record, (at = now));
  return at;
}

/**
 * Where each capped map's oldest unpinned record is: a fresh iterator would step again over every
 * slot deleted since the map last compacted (V8 keeps them until then), 17 to 62 µs a record at
 * the bound; one kept iterator passes each slot once (about 1 µs).
 */
const oldest = new WeakMap<Map<unknown, unknown>, Iterator<[unknown, unknown]>>();

/** Remove from the store what is past its retention at `now` (seconds); returns how many went. */
export function evict(store: Store, now: number): number {
  const { expiredGrace, revokedGrace, sessionLifetime } = retention();
  let removed = 0;
  const drop = <K, V>(map: Map<K, V>, gone: (value: V) => boolean) => {
    const before = removed;
    for (const [key, value] of map) {
      if (!gone(value)) continue;
      map.delete(key);
      removed++;
    }
    // A kept cursor holds the table it last read, and V8 keeps a shrunk map's old tables, with every
    // record they held then, while an iterator may still step into them: after a sweep of a flood's
    // records that kept 43 MiB of a store emptied (the bench's load). makeRoom starts afresh.
    if (removed > before) oldest.delete(map);
  };
  // An active refresh token has no expiry; a revoked or rotated one goes after the grace period.
  // Rotation revoked its access token at that moment: that time dates it (before access tokens go).
  drop(store.refreshTokens, (t) => {
    if (t.revokedAt !== null) return now >= t.revokedAt + revokedGrace;
    if (!t.state || t.state === 'active') return false;
    const rotated = store.accessTokens.get(t.accessToken)?.revokedAt ?? endedAt(t, now);
    return now >= rotated + revokedGrace;
  });
  drop(
    store.accessTokens,
    (t) =>
      (t.revokedAt !== null && now >= t.revokedAt + revokedGrace) ||
      (t.expiresIn !== null && now >= t.createdAt + t.expiresIn + expiredGrace),
  );
  drop(store.codes, (c) => now >= c.createdAt + c.expiresIn + expiredGrace);
  drop(store.deviceCodes, (d) => now >= d.createdAt + d.expiresIn + expiredGrace);
  // The user-code index goes with its device codes (it held 70,000 entries after a bench's load).
  sweepUserCodes(store);
  drop(store.sessions, (s) => now >= s.createdAt + sessionLifetime);
  return removed;
}

/** The user-code index without the entries whose device authorization left the store. */
export function sweepUserCodes(store: Store): void {
  for (const [slot, record] of store.userCodes)
    if (store.deviceCodes.get(slotOf(record.digest)) !== record) store.userCodes.delete(slot);
}

/**
 * Most records a map holds at once, whatever the clock (a frozen one sweeps nothing): what a client
 * can make again and again without end. A device authorization needs only a public client's id, a
 * session only the shared seeded login, a code only that session, a token pair only the seeded
 * login and application (password grant) or a refresh token; each was kept for its lifetime and the
 * grace after it (a session a week, an active refresh token for ever) without a bound (50,000 device
 * codes held 22 MB, 100,000 password grants 30 MB). At the bound the oldest goes (makeRoom), so a
 * new one is always served; the one that went answers as unknown, as after its grace. A personal
 * access token is pinned: never evicted, and only seeding makes one. A token minted through the
 * control API is pinned against the bound only: a client flooding grants cannot push out what the
 * developer made by hand, and it still goes with the clock.
 */
export const MOST_HELD = {
  deviceCodes: 100_000,
  codes: 100_000,
  sessions: 100_000,
  accessTokens: 100_000,
  refreshTokens: 100_000,
  /** The API rate limiter's windows, one per presented token, known or not (api/rateLimit.ts). */
  rateLimitWindows: 100_000,
  /**
   * Unrevoked tokens minted through the control API, pinned against `accessTokens`' bound (and, made
   * without expiry, against the clock too): past this the control API refuses another (409).
   */
  mintedTokens: 10_000,
} as const;

/**
 * Room for one more in `map`, which keeps its records in the order they came: the oldest go, `gone`
 * told of each, except those `pinned` (they count toward `max` but stay).
 */
export function makeRoom<K, V>(
  map: Map<K, V>,
  max: number,
  gone?: (value: V) => void,
  pinned?: (value: V) => boolean,
): void {
  let cursor = oldest.get(map) as Iterator<[K, V]> | undefined;
  let restarted = false;
  while (map.size >= max) {
    const step = cursor?.next();
    if (!step || step.done) {
      // Past the newest record (or never started): once more from the start, then give up (all pinned).
      if (restarted) return;
      restarted = true;
      oldest.set(map, (cursor = map.entries()));
      continue;
    }
    const [key, value] = step.value;
    if (pinned?.(value)) continue;
    map.delete(key);
    gone?.(value);
  }
}

/** The sweep schedule of one simulator: `due(now)` runs evict when an interval has passed. */
export function createEvictor(store: () => Store): { due(now: number): void; reset(): void } {
  let next = -Infinity;
  return {
    due(now) {
      if (now < next) return;
      evict(store(), now);
      next = now + retention().evictionInterval;
    },
    reset() {
      next = -Infinity;
    },
  };
}

/** How many records each credential map holds, live or not (GET /-/simulator/stats `stored`). */
export function storeSizes(store: Store): Record<string, number> {
  return {
    accessTokens: store.accessTokens.size,
    refreshTokens: store.refreshTokens.size,
    codes: store.codes.size,
    deviceCodes: store.deviceCodes.size,
    sessions: store.sessions.size,
  };
}
