/**
 * The one Ajv setup: JSON Schema 2020-12 (every schema the project ships uses it) with the
 * standard formats. ajv-formats is CommonJS; under ESM its default export arrives wrapped in
 * `default`, so it is unwrapped here once instead of in every validator.
 */
import { Ajv2020, type ErrorObject, type Options } from 'ajv/dist/2020.js';
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

/**
 * Edits from `a` to `b` (a letter added, dropped, changed, or two neighbours swapped: optimal string
 * alignment), for "did you mean". A swap counts once: `kidn` is one edit from `kind`, where plain
 * Levenshtein counts two and a short name's one-edit allowance missed it (review 27). Names are
 * short: a plain O(n·m) table is fine.
 */
function distance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j], rows[i - 2][j - 2] + 1);
    }
    rows.push(row);
  }
  return rows[a.length][b.length];
}

/** The known name closest to `name` (same letters in another case, a typo or two, or a part of it), if any. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const same = known.find((k) => k.toLowerCase() === lower);
  if (same) return same;
  const best = known.map((k) => ({ k, d: distance(lower, k.toLowerCase()) })).sort((x, y) => x.d - y.d)[0] as
    { k: string; d: number } | undefined;
  if (best && best.d <= Math.max(1, Math.floor(name.length / 4))) return best.k;
  // A part of one name only (`secret` for clientSecret, `token` for personalAccessToken).
  const containing = lower.length >= 4 ? known.filter((k) => k.toLowerCase().includes(lower)) : [];
  return containing.length === 1 ? containing[0] : undefined;
}

/** ` (did you mean X?)` with the known name closest to `name`, or nothing when none is near. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const hint = closestName(name, [...known]);
  return hint ? ` (did you mean ${hint}?)` : '';
}

/**
 * One schema error as one readable phrase: where, what, the offending name or the allowed values,
 * and the likely intended name for a misspelt key (needs Ajv's `verbose` for the parent schema).
 */
export function describeSchemaError(error: ErrorObject, top = '(top level)'): string {
  const where = error.instancePath ? error.instancePath.slice(1).split('/').join('.') : top;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return `${where}: missing required property ${String(params.missingProperty)}`;
  if (error.keyword === 'additionalProperties') {
    const name = String(params.additionalProperty);
    const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
    return `${where}: unknown property ${name}${didYouMean(name, known)}`;
  }
  if (error.keyword === 'enum') {
    const allowed = (params.allowedValues as unknown[]).map(String);
    return `${where} must be one of ${allowed.join(', ')}${typeof error.data === 'string' ? didYouMean(error.data, allowed) : ''}`;
  }
  // `release: 18.10` unquoted is the number 18.1: say how to write it and what YAML read, the value
  // included (a release or a redirect URI is public), except for a secret (`writeOnly` in the
  // schema: `password: 12345678`), whose value is never repeated. The release says it as the
  // number YAML made of it (`release: 18.0` is 18, review 21); the others plainly (review 27).
  if (error.keyword === 'type' && params.type === 'string' && ['number', 'boolean'].includes(typeof error.data)) {
    const read = typeof error.data;
    const secret = (error.parentSchema as { writeOnly?: boolean } | undefined)?.writeOnly === true;
    if (where === 'release')
      return `${where} must be a string, not a ${read}: quote it (YAML read the unquoted value as the ${read} ${String(error.data)})`;
    return `${where} must be a string, not ${secret ? `a ${read}` : `the ${read} ${String(error.data)}`}: quote it`;
  }
  return `${where} ${error.message ?? 'is invalid'}`;
}

/**
 * Every problem of a document in one line: Ajv's errors (compiled with `allErrors` and `verbose`)
 * without the repeats and the "must match a schema in anyOf" summaries that only restate them.
 */
export function describeSchemaErrors(errors: readonly ErrorObject[], top?: string): string {
  const specific = errors.filter((e) => !['anyOf', 'oneOf', 'if'].includes(e.keyword));
  const phrases = [...new Set((specific.length ? specific : errors).map((e) => describeSchemaError(e, top)))];
  const shown = phrases.slice(0, 6);
  const more = phrases.length > shown.length ? `; and ${phrases.length - shown.length} more` : '';
  return (phrases.length > 1 ? `${phrases.length} problems: ` : '') + shown.join('; ') + more;
}
