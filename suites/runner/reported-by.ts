/**
 * Who says a missing premise, once: "(X reports it on R)". Where the run leaves X out (`--suite`,
 * `--check`), the skip says so and how to see it, rather than point at a check that never ran.
 * The session's own skips and the checks' (t.reportedBy) say it the same way.
 */
export type ReportsIt = (check: string, rule?: string) => string;

export const reportsIt =
  (planned?: ReadonlySet<string>): ReportsIt =>
  (check, rule) => {
    const on = rule ? ` on ${rule}` : '';
    return planned && !planned.has(check)
      ? `(${check} reports it${on}; this run leaves it out: run it with --check ${check})`
      : `(${check} reports it${on})`;
  };

/** What a check says of a premise another check reports: as its run says it, plainly where a context has none (a test's). */
export const reportedBy = (t: { reportedBy?: ReportsIt }, check: string, rule?: string): string =>
  (t.reportedBy ?? reportsIt())(check, rule);
