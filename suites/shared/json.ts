/** Response bodies read as JSON without throwing: a check then says what it expected instead. */
import type { HttpResponse } from '../types.js';
import type { Expect } from './rules.js';

/** The body as a JSON value; undefined when it is not JSON. */
export function jsonValue(res: Pick<HttpResponse, 'text'>): unknown {
  try {
    return JSON.parse(res.text);
  } catch {
    return undefined;
  }
}

/**
 * An integer identifier (id, iid) as a JSON number or a decimal string, as a number; else
 * undefined. The source shows no type (L69), and gateways that re-encode JSON for JavaScript
 * clients write large integers as strings (`"id": "42"`); up to 15 digits, exact as a number.
 */
export function integerId(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  return typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : undefined;
}

/** The body as a plain JSON object, or undefined. */
export function jsonObject(res: HttpResponse): Record<string, unknown> | undefined {
  const value = jsonValue(res);
  return isRecord(value) ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The rows of a listing: `value` must be a JSON array of objects, else `expect` fails with `what`
 * (and `details`), before anything reads a row as a record: a `null` row read as one threw, and the
 * check ended "crashed", the target's answer blamed on the harness.
 */
export function expectRows(
  value: unknown,
  what: string,
  expect: Expect,
  details?: Record<string, unknown>,
): Record<string, unknown>[] {
  expect(Array.isArray(value), `${what} did not answer a JSON array`, details);
  expect(value.every(isRecord), `${what} answered an array whose rows are not all JSON objects`, details);
  return value;
}
