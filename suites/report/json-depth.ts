/**
 * How deep the harness reads JSON from a target. JSON.parse itself is iterative, but everything
 * after it is not: JSON.stringify, the redaction walks, Ajv and fast-check's printer recurse once
 * per level and overflow the stack a few thousand levels down, and an 8 KB body can nest 4,000.
 * A body deeper than this fails the check that received it; no walk ever sees it.
 */
export const MAX_JSON_DEPTH = 256;

/** Body text that a reader would take for JSON (what the redaction and the checks try to parse). */
export function looksLikeJson(text: string, contentType = ''): boolean {
  return /json/i.test(contentType) || /^\s*[[{]/.test(text);
}

/**
 * The nesting depth of JSON text in one pass over it, without parsing: brackets inside strings
 * do not count. Stops at `limit + 1`, so a hostile body costs no more than its first deep run.
 * A string is skipped with `indexOf` to its closing quote (most of a body is strings), which is
 * still one pass: a quote is closing when an even number of backslashes precede it.
 */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = closingQuote(text, i);
      if (i < 0) break;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** The index of the quote that closes the string opened at `open`, or -1 when none does. */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at >= 0) {
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/** JSON text nested deeper than the harness reads (MAX_JSON_DEPTH). */
export function tooDeep(text: string, contentType = ''): boolean {
  if (!looksLikeJson(text, contentType)) return false;
  // One body is asked about several times as it is recorded, redacted and reported: remember the last.
  if (text !== last.text) last = { text, deep: jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH };
  return last.deep;
}

let last = { text: '', deep: false };
