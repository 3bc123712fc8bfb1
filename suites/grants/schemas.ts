/** Validate a response body against a schema of spec/openapi.yaml (components.schemas), with readable failures. */
import { createAjv, type ErrorObject, type ValidateFunction } from '../../spec/ajv.js';
import { schema, type RuleId } from '../../spec/index.js';
import type { CheckContext } from '../types.js';
import { broke } from '../shared/rules.js';

// The spec's schemas carry x-* annotations: not strict.
const ajv = createAjv({ strict: false, allErrors: true });
const compiled = new Map<string, ValidateFunction>();

/** One sentence per violation, naming fields and allowed values, never the values sent (they may be secrets). */
function describe(e: ErrorObject): string {
  const at = e.instancePath ? e.instancePath.slice(1) : 'the body';
  switch (e.keyword) {
    case 'required':
      return `lacks ${(e.params as { missingProperty: string }).missingProperty}`;
    case 'additionalProperties':
      return `carries ${(e.params as { additionalProperty: string }).additionalProperty}, which it must not`;
    case 'const':
      return `${at} must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`;
    case 'not':
      return `${at} carries a field the spec excludes`;
    default:
      return `${at} ${e.message ?? 'is invalid'}`;
  }
}

const isObject = (body: unknown): boolean => typeof body === 'object' && body !== null && !Array.isArray(body);

/** The top-level field a violation is about (missing, extra or invalid), if any. */
function fieldOf(e: ErrorObject): string | undefined {
  if (e.keyword === 'required') return (e.params as { missingProperty: string }).missingProperty;
  if (e.keyword === 'additionalProperties') return (e.params as { additionalProperty: string }).additionalProperty;
  return e.instancePath.split('/')[1] || undefined;
}

/**
 * What one failure lists: its first MOST_PROBLEMS violations, then how many more, and the body's
 * first MOST_FIELDS member names. A token answer of 50,000 extra members (600 KB, far under
 * --max-body) made one problem each, deduplicated by scanning the list so far: quadratic, a
 * 159 s check that neither its time limit, --deadline nor a signal could stop, as nothing awaited
 * (review 29). Now a Set, and a bounded list.
 */
const MOST_PROBLEMS = 10;
const MOST_FIELDS = 50;

/** The member names of an object body (at most MOST_FIELDS, then a count), else its type. */
function fieldsOf(body: unknown): string[] | string {
  if (!body || typeof body !== 'object') return typeof body;
  const names: string[] = [];
  let count = 0;
  for (const name in body) {
    if (!Object.hasOwn(body, name)) continue;
    if (count++ < MOST_FIELDS) names.push(name);
  }
  return count > MOST_FIELDS ? [...names, `… ${count - MOST_FIELDS} more`] : names;
}

/** Which rules one violation breaks: by the field it is about and the schema keyword that failed. */
export type ViolationRules = (field: string | undefined, keyword: string) => readonly RuleId[];

/**
 * Judge `body` against schema `name`, one soft failure per rule set broken, so a wrong detail
 * (one field's value) does not hide the others. `rules` (a list, or a function of each violation)
 * names the rules each violation breaks; `proves`, those a match proves (by default the list): a
 * match names them and no others, so it passes none of the check's other rules. Returns whether
 * the body matched.
 */
export function expectSchema(
  t: CheckContext,
  body: unknown,
  name: string,
  what: string,
  rules: readonly RuleId[] | ViolationRules = [],
  proves: readonly RuleId[] = typeof rules === 'function' ? [] : rules,
): boolean {
  let validate = compiled.get(name);
  if (!validate) {
    validate = ajv.compile(schema(name));
    compiled.set(name, validate);
  }
  const ok = validate(body);
  const errors = ok ? [] : (validate.errors ?? []);
  const fields = fieldsOf(body);
  // Violations grouped by the rules they break: each group is one failure, in the schema's order.
  const groups = new Map<string, { rules: RuleId[]; problems: string[]; seen: Set<string> }>();
  for (const e of errors) {
    const broken = [...new Set(typeof rules === 'function' ? rules(fieldOf(e), e.keyword) : rules)];
    const key = broken.join(',');
    const group = groups.get(key) ?? { rules: broken, problems: [], seen: new Set<string>() };
    const problem = describe(e);
    if (!group.seen.has(problem)) {
      group.seen.add(problem);
      if (group.problems.length < MOST_PROBLEMS) group.problems.push(problem);
    }
    groups.set(key, group);
  }
  if (!groups.size) t.soft(ok, `${what}: does not match schema ${name}`, broke(proves, { schema: name, fields }));
  // Every violation of an object is listed (allErrors): what a match proves and no violation names
  // held (a token_type spelled `Bearer` alone leaves the response's shape and fields proved; before,
  // they went untested, review 28). Not for a body that is no object, whose fields no keyword saw.
  const named = new Set([...groups.values()].flatMap((g) => g.rules));
  const held = groups.size && isObject(body) ? proves.filter((id) => !named.has(id)) : [];
  if (held.length) t.soft(true, `${what}: the rest matches schema ${name}`, broke(held, { schema: name }));
  for (const { rules: broken, problems, seen } of groups.values()) {
    const more = seen.size - problems.length;
    const listed = more > 0 ? [...problems, `and ${more} more`] : problems;
    const details = { schema: name, fields, problems: listed };
    t.soft(
      false,
      `${what}: ${listed.join('; ')} (schema ${name})`,
      broken.length ? { ...details, rules: broken } : details,
    );
  }
  return ok;
}
