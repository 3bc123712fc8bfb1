/** Words the runner and every reporter share. */

/** `1 check`, `2 checks`: a count and its noun, plural unless one. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** A value read from a saved report, quoted and cut for a one-line error (errorLine makes it inert). */
export const quoted = (text: string): string => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

/**
 * The tokens the run's clean-ups left unrevoked, in words: how many, never which. One sentence for
 * the run's line at its end (unrevokedTokens) and every report's verdict line (Report.unrevokedTokens).
 */
export const leftUnrevoked = (count: number): string =>
  `${plural(count, 'token')} the target issued to the harness ${count === 1 ? 'was' : 'were'} left unrevoked, to expire on their own (revoke them in the provider if they must not live on)`;
