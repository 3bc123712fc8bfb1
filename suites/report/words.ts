/** Words the runner and every reporter share. */

/** `1 check`, `2 checks`: a count and its noun, plural unless one. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
