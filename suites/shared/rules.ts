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
 * sentence (`key` under the same rules) is not said again by the check. Each call still counts as an assertion, under
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
  // A sentence is its key under its rules: one key two rule sets share (x-page on page 1 and on
  // later pages) judged later pages under the first's rules, and diff blamed the wrong rule.
  const sentence = `${key}|${details?.rules?.join(',') ?? ''}`;
  const first = said.get(sentence);
  // A repeat is the first failure word for word, details too, which name the repeat's own rules
  // (the sentence is under them): another page's URL in the details made a second failure of it.
  if (!t.soft(condition, first?.message ?? message, first ? first.details : details) && !first)
    said.set(sentence, { message, details });
  return !!condition;
}
