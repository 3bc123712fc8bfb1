/** The JSON report's schema (shipped with the package) and a validator for it. */
import { createAjv, type ValidateFunction } from '../spec/ajv.js';
import schema from './report.schema.json' with { type: 'json' };

export const reportSchema: object = schema;

let validator: ValidateFunction | undefined;

/** Problems of a value as a report, one string each (`/checks/0/status: must be equal to one of...`); empty when valid. */
export function validateReport(value: unknown): string[] {
  if (!validator) {
    validator = createAjv({ allErrors: true, strict: true }).compile(schema);
  }
  if (validator(value)) return [];
  return (validator.errors ?? []).map((error) => `${error.instancePath || '/'}: ${error.message ?? 'invalid'}`);
}
