/** Failure details that name the rules a failure breaks (FailureDetails.rules, see suites/types.ts). */
import type { RuleId } from '../../spec/index.js';
import type { CheckContext, FailureDetails } from '../types.js';

/**
 * Failure details naming the rules the failure breaks. Helpers name the rules their own assertion
 * proves and add the caller's; the runner keeps those the check proves.
 */
export function broke(rules: readonly RuleId[], details: Record<string, unknown> = {}): FailureDetails {
  const named = [...new Set(rules)];
  return named.length ? { ...details, rules: named } : details;
}

/** An assertion whose failure names the rules it breaks. */
export type Expect = (condition: unknown, message: string, details?: Record<string, unknown>) => asserts condition;

/**
 * t.expect bound to the rules its failures break, for a run of assertions that share them.
 * Declare the result with the Expect type (`const expectX: Expect = breaking(t, ...)`): TypeScript
 * narrows through an assertion function only when its type is written out.
 */
export function breaking(t: CheckContext, ...rules: RuleId[]): Expect {
  return (condition, message, details) => t.expect(condition, message, broke(rules, details));
}

/** The sentences each check has already been seen to break (softOnce), each with its first message. */
const saidOf = new WeakMap<CheckContext, Map<string, { message: string; details?: FailureDetails }>>();

/**
 * t.soft for a sentence that nothing after it depends on and that every page or answer repeats
 * (a header of each page): its first failure is recorded and the check goes on, so it does not
 * hide another deviation judged later (one cause, one blame under several causes); the same
 * sentence (`key`) is not said again by the check. Each call still counts as an assertion, under
 * the first failure's message (t.soft keeps a message once): a property case that judges through
 * it is decided. Returns the condition.
 */
export function softOnce(
  t: CheckContext,
  key: string,
  condition: unknown,
  message: string,
  details?: FailureDetails,
): boolean {
  const said = saidOf.get(t) ?? new Map<string, { message: string; details?: FailureDetails }>();
  saidOf.set(t, said);
  // A sentence is its key, whatever rules a later call names: a key two rule sets share is one
  // cause (x-page counted from 0 breaks page 1's x-page and every later page's alike), blamed on the
  // first failure's rules alone; keyed by rules too, a fault blamed the later pages' rules beside
  // it (blame-api, compound-blame, rest-deviations). `diff` then reads a later page's repeat under
  // the first's rules: the price of one blame.
  const first = said.get(key);
  // A repeat is the first failure word for word, details too: another page's URL in the details
  // made a second failure of the same sentence.
  if (!t.soft(condition, first?.message ?? message, first ? first.details : details) && !first)
    said.set(key, { message, details });
  return !!condition;
}
