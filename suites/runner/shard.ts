/**
 * `run --shard i/n`: a deterministic slice of the selected checks, so n CI jobs together run each
 * check exactly once. With recorded durations (a previous JSON report) the slices are balanced by
 * time, longest first onto the least loaded shard; without them, by count.
 */
import { SelectionError } from '../errors.js';

export interface Shard {
  /** 1-based. */
  index: number;
  total: number;
}

/** `2/3` → {index: 2, total: 3}; anything else is a selection error. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const total = m ? Number(m[2]) : NaN;
  if (!m || total > 1000 || index < 1 || index > total)
    throw new SelectionError(`--shard must be i/n with 1 <= i <= n <= 1000, like 2/3, got "${text}"`);
  return { index, total };
}

/** Recorded durations by check id, from a report's checks (skipped ones ran no time and say nothing). */
export function durationsOf(
  checks: readonly { id: string; status: string; durationMs: number }[],
): Map<string, number> {
  return new Map(checks.filter((c) => c.status !== 'skipped').map((c) => [c.id, c.durationMs]));
}

/**
 * Which shard (0-based) each check goes to. Every shard computes the same assignment from the same
 * inputs, so the slices never overlap and never miss a check.
 */
export function assignShards(
  ids: readonly string[],
  total: number,
  durations: ReadonlyMap<string, number> = new Map(),
): number[] {
  const known = ids.map((id) => durations.get(id)).filter((d): d is number => d !== undefined);
  if (!known.length) return ids.map((_, i) => i % total);
  // A check the durations do not know (new since that report) weighs as an average one.
  const average = known.reduce((a, b) => a + b, 0) / known.length;
  const weight = (id: string) => durations.get(id) ?? average;
  // Array.prototype.sort is stable: equal weights keep the checks' order.
  const order = ids.map((id, i) => ({ id, i, w: weight(id) })).sort((a, b) => b.w - a.w);
  const load = new Array<number>(total).fill(0);
  const count = new Array<number>(total).fill(0);
  const out = new Array<number>(ids.length);
  // Less load first, then fewer checks, then the lower shard.
  const before = (s: number, best: number) => (load[s] - load[best] || count[s] - count[best]) < 0;
  for (const { i, w } of order) {
    const best = load.reduce((b, _, s) => (before(s, b) ? s : b), 0);
    out[i] = best;
    load[best] += w;
    count[best] += 1;
  }
  return out;
}

/** The checks of one shard, in their original order. */
export function shardOf<T extends { id: string }>(
  checks: readonly T[],
  shard: Shard,
  durations?: ReadonlyMap<string, number>,
): T[] {
  const assigned = assignShards(
    checks.map((c) => c.id),
    shard.total,
    durations,
  );
  return checks.filter((_, i) => assigned[i] === shard.index - 1);
}
