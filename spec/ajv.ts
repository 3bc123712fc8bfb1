/**
 * The one Ajv setup: JSON Schema 2020-12 (every schema the project ships uses it) with the
 * standard formats. ajv-formats is CommonJS; under ESM its default export arrives wrapped in
 * `default`, so it is unwrapped here once instead of in every validator.
 */
import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

export type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
export type { Ajv2020 };

type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

/** A fresh Ajv for JSON Schema 2020-12 with formats (date-time, uri, email, ...). */
export function createAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020(options);
  addFormats(ajv);
  return ajv;
}
