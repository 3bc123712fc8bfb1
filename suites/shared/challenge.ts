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

/** A character of an RFC 9110 token (an auth-param's name). */
const TOKEN_CHAR = /[\w!#$%&'*+.^`|~-]/;

/**
 * Characters the challenge reader has passed over, counted where it passes them (the test of its
 * linearity reads it: a count, not a clock).
 */
export const challengeReading = { steps: 0 };

/** The closing quote of the quoted-string opening at `at`, or -1 when it never closes. */
function closingQuote(header: string, at: number): number {
  let i = at + 1;
  for (; i < header.length; i++)
    if (header[i] === '\\') i++;
    else if (header[i] === '"') break;
  challengeReading.steps += Math.min(i, header.length) - at;
  return i < header.length ? i : -1;
}

/** Past the spaces and tabs from `at`. */
function pastBlanks(header: string, from: number): number {
  let at = from;
  while (header[at] === ' ' || header[at] === '\t') at++;
  challengeReading.steps += at - from;
  return at;
}

/**
 * The auth-params `name=value` of a challenge header (RFC 7235 §2.1), values without their quotes,
 * read in one pass: a quoted-string is skipped whole (a realm may hold `error=`), an unclosed one
 * to the end. A regex that retried each quote read `"` followed by `\"` repeated in quadratic time
 * (64 KB took 2.5 s, and a header may hold 256 KB).
 */
function authParams(header: string): Array<[name: string, value: string]> {
  const params: Array<[string, string]> = [];
  let i = 0;
  while (i < header.length) {
    if (header[i] === '"') {
      const close = closingQuote(header, i);
      i = close < 0 ? header.length : close + 1;
      continue;
    }
    if (!TOKEN_CHAR.test(header[i])) {
      challengeReading.steps++;
      i++;
      continue;
    }
    const start = i;
    while (i < header.length && TOKEN_CHAR.test(header[i])) i++;
    challengeReading.steps += i - start;
    const equals = pastBlanks(header, i);
    if (header[equals] !== '=') continue;
    const from = pastBlanks(header, equals + 1);
    if (header[from] === '"') {
      const close = closingQuote(header, from);
      // An unclosed value names nothing (the pattern it replaces read an empty one there).
      params.push([header.slice(start, i), close < 0 ? '' : header.slice(from + 1, close)]);
      i = close < 0 ? header.length : close + 1;
    } else {
      let end = from;
      while (end < header.length && !/[\s",]/.test(header[end])) end++;
      challengeReading.steps += end - from;
      params.push([header.slice(start, i), header.slice(from, end)]);
      i = end;
    }
  }
  return params;
}

/**
 * Does a refusal name the error `code`, in the `error` attribute of its WWW-Authenticate challenge
 * (RFC 6750 §3) or in its JSON body (the real service's habit)? Spring Security's resource servers
 * say it in the challenge alone, with no body.
 */
export function namesError(res: HttpResponse, code: string): boolean {
  for (const [name, value] of authParams(res.headers.get('www-authenticate') ?? ''))
    if (name.toLowerCase() === 'error' && value === code) return true;
  return jsonObject(res)?.error === code;
}
