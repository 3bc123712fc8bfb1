/**
 * Scopes. The source names these (Authentication); requests are space-separated, and a `+` in a
 * query already arrives as a space. `email` is OpenID Connect's standard claim scope.
 */
import { InvalidScope } from './errors.js';

export const KNOWN_SCOPES = [
  'api',
  'read_user',
  'read',
  'read_repository',
  'write_repository',
  'read_registry',
  'write_registry',
  'openid',
  'profile',
  'email',
] as const;

/** What the password grant and an authorize request without `scope` get (source: password grant yields `api`). */
export const DEFAULT_SCOPE = 'api';

export function parseScope(value: string | undefined | null): string[] {
  if (!value) return [];
  // One scope (most requests) needs no split.
  if (!/\s/.test(value)) return [value];
  return [...new Set(value.split(/\s/).filter(Boolean))];
}

export function formatScope(scopes: string[]): string {
  return scopes.join(' ');
}

export function unknownScopes(scopes: string[]): string[] {
  return scopes.filter((s) => !(KNOWN_SCOPES as readonly string[]).includes(s));
}

/**
 * The scopes a request obtains: the requested ones when all are allowed, else invalid_scope. With
 * no request, the default scope if allowed, else everything allowed (the registered scopes).
 */
export function grantScopes(requested: string | undefined, allowed: string[], enforce = true): string[] {
  const asked = parseScope(requested);
  if (asked.length === 0) return allowed.includes(DEFAULT_SCOPE) ? [DEFAULT_SCOPE] : [...allowed];
  const unknown = unknownScopes(asked);
  if (unknown.length) throw InvalidScope(`Unknown scope: ${unknown.join(' ')}`);
  const outside = asked.filter((s) => !allowed.includes(s));
  if (outside.length && enforce) throw InvalidScope(`The application may not request the scope ${outside.join(' ')}`);
  return asked;
}
