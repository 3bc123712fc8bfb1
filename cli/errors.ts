/** Bad usage, bad config or unreachable target: one line on stderr, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;
