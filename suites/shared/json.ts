/** Response bodies read as JSON without throwing: a check then says what it expected instead. */
import type { HttpResponse } from '../types.js';

/** The body as a JSON value; undefined when it is not JSON. */
export function jsonValue(res: HttpResponse): unknown {
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
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
