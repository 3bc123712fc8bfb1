/**
 * What a client creates is bounded (LIM-CREATED-RECORDS-BOUNDED): a field's length and a record's
 * count, against spec/profiles.yaml's limits. Each returns the refusal's message, worded as the
 * real service words a validation error, or null within the bound; the caller answers it in its
 * own shape (the REST API 400 {message}, the applications page 422 with its form).
 */
import { limits } from '../spec/index.js';
import type { Limits } from '../spec/types.js';

type LengthLimit = 'nameMaxLength' | 'descriptionMaxLength' | 'redirectUriMaxLength';
type CountLimit =
  | 'redirectUrisMax'
  | 'issueLabelsMax'
  | 'applicationsPerOwnerMax'
  | 'createdIssuesPerProjectMax'
  | 'createdIssuesMax'
  | 'memberRolesMax';

/** `field` of more characters (code points, as a person counts them) than the limit allows. */
export function tooLong(field: string, value: string | undefined, limit: LengthLimit): string | null {
  const max: number = limits()[limit];
  // A UTF-16 length within the bound is within it in code points too; only a longer one is counted.
  if (value === undefined || value.length <= max) return null;
  let n = 0;
  for (const _ of value) if (++n > max) return `${field} is too long (maximum is ${max} characters)`;
  return null;
}

/** More than the limit's number of items in one field (labels, redirect URIs). */
export function tooMany(field: string, items: readonly unknown[], limit: CountLimit): string | null {
  const max = limits()[limit];
  return items.length > max ? `${field} has too many entries (at most ${max})` : null;
}

/** Room for one more record where `held` are already kept. */
export function full(what: string, held: number, limit: CountLimit): string | null {
  const max: Limits[CountLimit] = limits()[limit];
  return held >= max ? `Maximum number of ${what} (${max}) exceeded` : null;
}

/** The first refusal of several, or null. */
export const firstProblem = (...problems: (string | null)[]): string | null => problems.find((p) => p !== null) ?? null;
