/**
 * A failure's details as evidence a report can carry. Values read from the target (a JWT header,
 * a claim, a member of a body) may be nested 200,000 deep or megabytes long, and each later step
 * walks them: the one-line description, the check result's copy, the report's JSON and its
 * redaction. They are bounded once, where failures are made: depth, entries per container,
 * string length and the number of values in all. Small values stay exactly as they were.
 */
const MAX_DEPTH = 8;
const MAX_ENTRIES = 50;
const MAX_STRING = 2000;
const MAX_VALUES = 1000;

export const DEEPER = '[nested deeper: not shown]';

function boundedString(text: string): string {
  return text.length > MAX_STRING ? `${text.slice(0, MAX_STRING)}… (${text.length} characters)` : text;
}

/** The value with every container cut to its bounds (recursion is bounded by MAX_DEPTH). */
function bounded(value: unknown, depth: number, budget: { left: number }): unknown {
  budget.left--;
  if (typeof value === 'string') return boundedString(value);
  if (value === null || typeof value !== 'object') {
    // What JSON cannot say (bigint, symbol, function) is said as text; undefined stays undefined.
    if (typeof value === 'bigint' || typeof value === 'symbol') return String(value);
    return typeof value === 'function' ? undefined : value;
  }
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === 'function') return bounded((json as () => unknown).call(value), depth, budget);
  if (depth >= MAX_DEPTH || budget.left <= 0) return DEEPER;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      if (i >= MAX_ENTRIES || budget.left <= 0) {
        out.push(`… ${value.length - i} more not shown`);
        break;
      }
      out.push(bounded(value[i], depth + 1, budget));
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  let shown = 0;
  let more = 0;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (shown >= MAX_ENTRIES || budget.left <= 0) more++;
    else {
      // defineProperty: a key named __proto__ stays a key, never a prototype.
      Object.defineProperty(out, boundedString(key), {
        value: bounded((value as Record<string, unknown>)[key], depth + 1, budget),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      shown++;
    }
    if (more > 0 && more >= MAX_ENTRIES) break;
  }
  if (more) out['…'] = `${more}${more >= MAX_ENTRIES ? '+' : ''} more not shown`;
  return out;
}

/** Failure details within the bounds above (a fresh object: the caller's is not changed). */
export function boundedDetails(details: Record<string, unknown>): Record<string, unknown> {
  return bounded(details, -1, { left: MAX_VALUES }) as Record<string, unknown>;
}
