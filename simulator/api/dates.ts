/** ISO 8601 timestamps as REST filters take them (`2024-01-01T00:00:00+01:00`; the `+` sent as %2B). */
import { ParamError } from './params.js';

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Epoch ms of an ISO 8601 value; a ParamError naming the parameter when it is not one. */
export function parseTimestamp(name: string, value: string): number {
  const m = ISO.exec(value);
  if (!m || (m[4] === undefined && value.includes(' '))) {
    throw new ParamError(
      `${name} is invalid: expected an ISO 8601 timestamp such as 2024-01-01T00:00:00%2B01:00 (a bare + in a query is a space)`,
    );
  }
  // a time without an offset is UTC, as the service stores it
  const zone = m[7] ?? (m[4] !== undefined ? 'Z' : '');
  const text =
    m[4] === undefined
      ? `${m[1]}-${m[2]}-${m[3]}T00:00:00Z`
      : `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new ParamError(`${name} is invalid: not a real date`);
  return ms;
}
