/** The JSON report's schema (shipped with the package) and a validator for it. */
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import schema from './report.schema.json' with { type: 'json' };

export const reportSchema: object = schema;

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

let validator: ValidateFunction | undefined;

/** Problems of a value as a report, one string each (`/checks/0/status: must be equal to one of...`); empty when valid. */
export function validateReport(value: unknown): string[] {
  if (!validator) {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats(ajv);
    validator = ajv.compile(schema);
  }
  if (validator(value)) return [];
  return (validator.errors ?? []).map((error) => `${error.instancePath || '/'}: ${error.message ?? 'invalid'}`);
}
