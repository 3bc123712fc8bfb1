/**
 * Is there a Bearer challenge in an answer's WWW-Authenticate (RFC 6750 §3)? RFC 7235 §4.1 lets
 * an answer carry several challenges, in one header or over several lines (read joined by commas),
 * with the scheme in any case (§2.1): `Basic realm="api", Bearer error="invalid_token"` has one.
 */
import type { HttpResponse } from '../types.js';

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
