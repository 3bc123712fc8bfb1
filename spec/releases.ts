/** Release arithmetic: dotted releases compared numerically, windows since <= release < until. */

/** Compare dotted releases numerically: "16.10" > "16.9". */
export function compareReleases(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** In force at `release`: since <= release < until. */
export function inRelease(window: { since?: string; until?: string }, release: string): boolean {
  if (window.since && compareReleases(release, window.since) < 0) return false;
  if (window.until && compareReleases(release, window.until) >= 0) return false;
  return true;
}
