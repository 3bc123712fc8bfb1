/**
 * JSON bodies of the control API (a form body is refused before, control/access.ts); anything
 * unreadable throws a ControlError (400 `{message}`).
 */
import { ControlError } from '../errors.js';
import type { Ctx } from '../types.js';

export async function controlBody(ctx: Ctx): Promise<Record<string, unknown>> {
  const body = await ctx.body();
  if (body.kind === 'none') return {};
  if (body.kind === 'invalid') throw new ControlError(body.reason);
  if (body.kind !== 'json' || typeof body.json !== 'object' || body.json === null || Array.isArray(body.json))
    throw new ControlError('the body must be a JSON object');
  return body.json as Record<string, unknown>;
}

export function str(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ControlError(`${name} must be a string`);
  return v;
}

export function bool(body: Record<string, unknown>, name: string): boolean | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new ControlError(`${name} must be true or false`);
}

/** A list given as a JSON array or as a space-separated string. */
export function list(body: Record<string, unknown>, name: string): string[] | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v.split(/\s+/).filter(Boolean);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  throw new ControlError(`${name} must be an array of strings or a space-separated string`);
}
