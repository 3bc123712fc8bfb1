/** The JSON report's schema (shipped with the package) and a validator for it. */
import { createAjv, type ValidateFunction } from '../spec/ajv.js';
import schema from './report.schema.json' with { type: 'json' };

export const reportSchema: object = schema;

const validators: { all?: ValidateFunction; first?: ValidateFunction } = {};
const compiled = (kind: 'all' | 'first') =>
  (validators[kind] ??= createAjv({ allErrors: kind === 'all', strict: true }).compile(schema));
const problem = (error: { instancePath: string; message?: string }) =>
  `${error.instancePath || '/'}: ${error.message ?? 'invalid'}`;

/**
 * Problems of a value as a report, one string each (`/checks/0/status: must be equal to one of...`);
 * empty when valid. For the harness's own reports: Ajv gathers all errors in time quadratic in
 * their number (20,000 bad checks took 15 s, 100,000 over a minute), so a file read back is
 * judged by firstReportProblem.
 */
export function validateReport(value: unknown): string[] {
  const validate = compiled('all');
  return validate(value) ? [] : (validate.errors ?? []).map(problem);
}

/** The first problem of a value as a report, or undefined when valid: Ajv stops there, so linear in the value's size. */
export function firstReportProblem(value: unknown): string | undefined {
  const validate = compiled('first');
  return validate(value) ? undefined : problem(validate.errors?.[0] ?? { instancePath: '' });
}
