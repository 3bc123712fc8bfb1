/**
 * What the proxy remembers of the protocol's state between exchanges: codes that were answered
 * with tokens, refresh tokens that were redeemed or revoked, access tokens that should be dead.
 * Keys are SHA-256 digests of the secrets (a heap dump holds no credential), each kept for the
 * protocol's own lifetime, and never more than `max` entries (the oldest go first), so long
 * sessions and many clients stay within bounded memory.
 */
import { createHash } from 'node:crypto';
import type { RuleId } from '../../spec/index.js';

export const digest = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

export interface Remembered<V = true> {
  /** The value kept for this digest, if it is still remembered at `now` (ms). */
  get(key: string, now: number): V | undefined;
  /** Remember a value for a digest until `now + ttlMs`. */
  set(key: string, now: number, value: V): void;
  readonly size: number;
}

export function remembered<V = true>(ttlMs: number, max: number): Remembered<V> {
  // Insertion order is expiry order (one ttl per memory): the oldest are at the front.
  const kept = new Map<string, { until: number; value: V }>();
  const sweep = (now: number) => {
    for (const [key, entry] of kept) {
      if (entry.until > now && kept.size <= max) break;
      kept.delete(key);
    }
  };
  return {
    get(key, now) {
      sweep(now);
      return kept.get(key)?.value;
    },
    set(key, now, value) {
      kept.delete(key);
      kept.set(key, { until: now + ttlMs, value });
      sweep(now);
    },
    get size() {
      return kept.size;
    },
  };
}

/** One request and its answer as the proxy saw them. A body over the cap is undefined: judged on headers only. */
export interface Observed {
  method: string;
  /** The request target exactly as the client sent it (path and query). */
  target: string;
  requestHeaders: Headers;
  requestBody?: Buffer;
  status: number;
  responseHeaders: Headers;
  responseBody?: Buffer;
  /** When the answer ended (ms since the epoch): flow state ages by it. */
  at: number;
  /** When the request arrived (ms since the epoch); `at` when unknown. Polls are paced by it. */
  startedAt?: number;
  /**
   * Its number: the n-th request the proxy forwarded to the target (from 1, in the order they
   * arrived, answered or not), the number a habit's first exchange is named by.
   */
  number?: number;
  /**
   * The number of the last request that had arrived when this answer ended: one numbered above it
   * was sent after this answer was complete (sentAfter).
   */
  arrived?: number;
}

/** When an exchange's answer was complete, by the clock and by the proxy's numbering. */
export interface Ended {
  at: number;
  arrived?: number;
}

export const endOf = (ex: Observed): Ended => ({ at: ex.at, arrived: ex.arrived });

/**
 * Whether the request of `ex` was sent after the answer `ended` was complete. Only such a request
 * is certainly served after what that exchange did (a refresh, a revocation): the provider may act
 * at any point between receiving a request and answering it, so a request overlapping the exchange
 * decides nothing. By the proxy's numbering when both are known (exact), else by the clock, where a
 * request started in the very millisecond the answer ended is not known to be after it.
 */
export function sentAfter(ex: Observed, ended: Ended): boolean {
  if (ex.number !== undefined && ended.arrived !== undefined) return ex.number > ended.arrived;
  return (ex.startedAt ?? ex.at) > ended.at;
}

/** A token ended (rotated, revoked): the rule a token still working after it breaks, and when its ending answer was complete. */
export interface Death {
  rule: RuleId;
  ended: Ended;
}

/**
 * Protocol state across exchanges, by digest: codes answered with tokens; refresh tokens spent
 * (redeemed or revoked) and the access token each was issued with; access tokens that must be
 * dead. A spent or dead entry holds the rule that a token still working breaks, and when the
 * answer that spent or ended it was complete (only a request sent after it is judged by it).
 */
export interface Flows {
  codes: Remembered<Ended>;
  deviceCodes: Remembered<Ended>;
  spentRefresh: Remembered<Death>;
  pairs: Remembered<string>;
  deadAccess: Remembered<Death>;
  /** The client each token seen issued was issued to, by digest. */
  owners: Remembered<string>;
  /** Device codes issued, by digest: timings, pace and scope (device.ts). */
  devices: Remembered<DeviceFlow>;
  /**
   * Authorization requests by client, redirect URI and state: the scope asked, and whether it is
   * still open (no code sent back yet), so a request asked again after sign-in is not a new one (scopes.ts).
   */
  authorizations: Remembered<{ scope: string; open: boolean }>;
  /** Codes and tokens by kind and digest: the scope they may carry at most (scopes.ts). */
  scopes: Remembered<Ceiling>;
  /**
   * Pages the client was told of (path and query, urls.ts pageKey): Link targets forwarded, as
   * written and without the target's prefix (`link`), and the request
   * at the page an x-next-page or x-prev-page named (`number`); and the paths answered as pages,
   * listings (judge.ts).
   */
  linked: Remembered<'link' | 'number'>;
  collections: Remembered;
  /** Keyset next links forwarded (digest of path and query): the last row of the page that carried each (pages.ts). */
  keysetLast: Remembered<KeysetLast>;
  /** Waits a rate-limited answer named, by digest of path and credential: when each ends, in ms (waits.ts). */
  waits: Remembered<number>;
  /** How far the target's clock was moved ahead of the proxy's (the simulator's control API). */
  clockOffsetMs: number;
  /** The lists of the last discovery document the proxy saw answered (judge.ts), a list only where it is one. */
  discovery?: { grantTypes?: string[]; responseTypes?: string[] };
  /** The release the target is held to: release windows of the tables (keyset rows) are read at it. */
  release: string;
  /** The target's path prefix (urls.ts basePathOf): its links are read in the client's URL space without it. */
  basePath: string;
}

/**
 * The last row of a keyset page, as far as its identity and its order key go (a few short
 * values), and the ordering it was asked in: the page a next link leads to comes after it.
 */
export interface KeysetLast {
  ordering: string;
  row: Record<string, string | number>;
}

/** What the proxy knows of one device code (by digest), in the target's milliseconds. */
export interface DeviceFlow {
  issuedAt: number;
  expiresIn: number;
  /** The interval the authorization response gave. */
  interval: number;
  /** That interval grown by each slow_down since (DEV-SLOW-DOWN-INTERVAL-GROWS). */
  grown: number;
  lastPoll?: number;
  lastAnswer?: string;
  /** The scope the device authorization asked for (the ceiling of what its tokens may carry). */
  scope: string;
}

/** The ceiling a token or code was issued under, and the rule a token wider than it breaks. */
export interface Ceiling {
  scope: string[];
  rule: RuleId;
}
