/** Validate a response body against a schema of spec/openapi.yaml (components.schemas), with readable failures. */
import { createAjv, type ErrorObject, type ValidateFunction } from '../../spec/ajv.js';
import { schema, type RuleId } from '../../spec/index.js';
import type { CheckContext } from '../types.js';

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

/** The top-level field a violation is about (missing, extra or invalid), if any. */
function fieldOf(e: ErrorObject): string | undefined {
  if (e.keyword === 'required') return (e.params as { missingProperty: string }).missingProperty;
  if (e.keyword === 'additionalProperties') return (e.params as { additionalProperty: string }).additionalProperty;
  return e.instancePath.split('/')[1] || undefined;
}

/** Which rules one violation breaks: by the field it is about and the schema keyword that failed. */
export type ViolationRules = (field: string | undefined, keyword: string) => readonly RuleId[];

/**
 * Fail unless `body` matches schema `name`. `rules` (a list, or a function of each violation)
 * names the rules the failure breaks: the union over all violations found.
 */
export function expectSchema(
  t: CheckContext,
  body: unknown,
  name: string,
  what: string,
  rules: readonly RuleId[] | ViolationRules = [],
): void {
  let validate = compiled.get(name);
  if (!validate) {
    validate = ajv.compile(schema(name));
    compiled.set(name, validate);
  }
  if (validate(body)) return;
  const errors = validate.errors ?? [];
  const problems = [...new Set(errors.map(describe))];
  const broken = typeof rules === 'function' ? errors.flatMap((e) => rules(fieldOf(e), e.keyword)) : rules;
  const details = {
    schema: name,
    fields: body && typeof body === 'object' ? Object.keys(body) : typeof body,
    problems,
  };
  t.fail(
    `${what}: ${problems.join('; ')} (schema ${name})`,
    broken.length ? { ...details, rules: [...new Set(broken)] } : details,
  );
}
