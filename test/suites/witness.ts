/**
 * A witness of what each check asserted, kept beside the runner's own bookkeeping: every check is
 * wrapped so its context notes the rules named by each assertion that held (t.expect, t.soft, the
 * t.expect/t.soft inside a property, and a property's true verdict, which names none). An
 * assertion naming no rule names the check's rule when the check has exactly one. A report may then
 * be read against it: a rule reported passed by a check whose assertions never named it was
 * claimed unseen.
 */
import type { Check, CheckContext, FailureDetails } from '../../suites/types.js';
import type { Report } from '../../suites/report/model.js';

export interface Witness {
  /** The checks to run, each noting its assertions here. */
  checks: Check[];
  /** By check id: the rules named by an assertion that held. */
  named: Map<string, Set<string>>;
}

export function witness(checks: readonly Check[]): Witness {
  const named = new Map<string, Set<string>>();
  const wrap = (check: Check): Check => ({
    ...check,
    run(t: CheckContext) {
      const seen = new Set<string>();
      named.set(check.id, seen);
      const note = (held: unknown, details?: FailureDetails) => {
        if (!held) return;
        const rules = details?.rules?.length ? details.rules : check.rules.length === 1 ? check.rules : [];
        for (const id of rules) seen.add(id);
      };
      const watched: CheckContext = {
        ...t,
        expect(condition: unknown, message: string, details?: FailureDetails): asserts condition {
          note(condition, details);
          t.expect(condition, message, details);
        },
        soft(condition: unknown, message: string, details?: FailureDetails) {
          note(condition, details);
          return t.soft(condition, message, details);
        },
        property: (...args: unknown[]) => {
          const predicate = args.at(-1) as (...values: unknown[]) => Promise<boolean | void>;
          const watchedPredicate = async (...values: unknown[]) => {
            const verdict = await predicate(...values);
            note(verdict === true);
            return verdict;
          };
          return (t.property as (...a: unknown[]) => Promise<void>)(...args.slice(0, -1), watchedPredicate);
        },
      };
      return check.run(watched);
    },
  });
  return { checks: checks.map(wrap), named };
}

/**
 * `rule by check` for each rule the report calls passed whose passed checks include one that
 * never named it in an assertion that held: a pass nobody saw.
 */
export function unseenPasses(report: Report, named: Witness['named']): string[] {
  const status = new Map(report.checks.map((c) => [c.id, c.status]));
  return report.rules
    .filter((r) => r.status === 'passed' || r.status === 'stale')
    .flatMap((r) =>
      r.checks.filter((id) => status.get(id) === 'passed' && !named.get(id)?.has(r.id)).map((id) => `${r.id} by ${id}`),
    );
}
