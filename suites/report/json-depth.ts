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
 */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      // A backslash escapes the next character.
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** JSON text nested deeper than the harness reads (MAX_JSON_DEPTH). */
export function tooDeep(text: string, contentType = ''): boolean {
  return looksLikeJson(text, contentType) && jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH;
}
