/**
 * Random-access sequences: the shape every REST collection takes. A generated collection is a
 * length and a pure function of the index, so a million records cost no memory; the views below
 * compose without copying, which keeps keyset pages at O(log n + per_page) whatever the depth.
 */
export interface Seq<T> {
  readonly length: number;
  at(pos: number): T;
}

export function generated<T>(length: number, at: (pos: number) => T): Seq<T> {
  return { length, at };
}

export function fromArray<T>(items: readonly T[]): Seq<T> {
  return { length: items.length, at: (pos) => items[pos] };
}

export function reversed<T>(seq: Seq<T>): Seq<T> {
  return { length: seq.length, at: (pos) => seq.at(seq.length - 1 - pos) };
}

export function slice<T>(seq: Seq<T>, from: number, to = seq.length): Seq<T> {
  const start = Math.max(0, Math.min(from, seq.length));
  const end = Math.max(start, Math.min(to, seq.length));
  return { length: end - start, at: (pos) => seq.at(start + pos) };
}

export function concat<T>(...parts: Seq<T>[]): Seq<T> {
  const length = parts.reduce((n, p) => n + p.length, 0);
  return {
    length,
    at(pos) {
      for (const part of parts) {
        if (pos < part.length) return part.at(pos);
        pos -= part.length;
      }
      throw new RangeError('position beyond the sequence');
    },
  };
}

/** First position whose item is not `before` the target (items are sorted so `before` holds on a prefix). */
export function lowerBound<T>(seq: Seq<T>, before: (item: T) => boolean): number {
  let lo = 0;
  let hi = seq.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(seq.at(mid))) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A large sorted sequence merged with a small sorted array (records created at run time, or the
 * store's real users among the generated ones). Each small item's merged position is found by one
 * binary search, so at() costs O(log k) and building the view O(k log n).
 */
export function mergeSorted<T>(big: Seq<T>, small: readonly T[], compare: (a: T, b: T) => number): Seq<T> {
  if (small.length === 0) return big;
  const sorted = [...small].sort(compare);
  const positions = sorted.map((item, j) => j + lowerBound(big, (b) => compare(b, item) < 0));
  return {
    length: big.length + sorted.length,
    at(pos) {
      // how many small items sit before pos, and whether one sits exactly at pos
      let lo = 0;
      let hi = positions.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (positions[mid] < pos) lo = mid + 1;
        else hi = mid;
      }
      if (lo < positions.length && positions[lo] === pos) return sorted[lo];
      return big.at(pos - lo);
    },
  };
}

export function take<T>(seq: Seq<T>, from: number, count: number): T[] {
  const out: T[] = [];
  for (let i = from; i < Math.min(seq.length, from + count); i++) out.push(seq.at(i));
  return out;
}

/** A filtered copy, for the small collections a search narrows (projects, groups). */
export function filtered<T>(seq: Seq<T>, keep: (item: T) => boolean): Seq<T> {
  const out: T[] = [];
  for (let i = 0; i < seq.length; i++) {
    const item = seq.at(i);
    if (keep(item)) out.push(item);
  }
  return fromArray(out);
}
