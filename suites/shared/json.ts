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

/** The body as a plain JSON object, or undefined. */
export function jsonObject(res: HttpResponse): Record<string, unknown> | undefined {
  const value = jsonValue(res);
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
