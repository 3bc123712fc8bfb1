/**
 * Is there a Bearer challenge in an answer's WWW-Authenticate (RFC 6750 §3)? RFC 7235 §4.1 lets
 * an answer carry several challenges, in one header or over several lines (read joined by commas),
 * with the scheme in any case (§2.1): `Basic realm="api", Bearer error="invalid_token"` has one.
 */
import type { HttpResponse } from '../types.js';
import { jsonObject } from './json.js';

/** A scheme starts the header or follows a comma; an auth-param's name is followed by `=`. */
const BEARER_SCHEME = /(?:^|,)\s*bearer(?![\w!#$%&'*+.^`|~-])(?!\s*=)/i;

/** The header with the insides of its quoted strings left out (a realm may say "Bearer"), in one pass. */
function unquoted(header: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const c = header[i];
    if (quoted && c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted) out += c;
  }
  return out;
}

export function hasBearerChallenge(res: HttpResponse): boolean {
  return BEARER_SCHEME.test(unquoted(res.headers.get('www-authenticate') ?? ''));
}

/** A quoted-string (skipped whole: a realm may hold `error=`), or an auth-param `name=value` (RFC 7235 §2.1). */
const AUTH_PARAM =
  /"(?:[^"\\]|\\.)*"|(?<![\w!#$%&'*+.^`|~-])([\w!#$%&'*+.^`|~-]+)[ \t]*=[ \t]*("(?:[^"\\]|\\.)*"|[^\s",]*)/g;

/**
 * Does a refusal name the error `code`, in the `error` attribute of its WWW-Authenticate challenge
 * (RFC 6750 §3) or in its JSON body (the real service's habit)? Spring Security's resource servers
 * say it in the challenge alone, with no body.
 */
export function namesError(res: HttpResponse, code: string): boolean {
  for (const [, name, value] of (res.headers.get('www-authenticate') ?? '').matchAll(AUTH_PARAM))
    if (name?.toLowerCase() === 'error' && value.replace(/^"(.*)"$/s, '$1') === code) return true;
  return jsonObject(res)?.error === code;
}
