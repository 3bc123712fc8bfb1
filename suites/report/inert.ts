/**
 * Text from the target made inert for people to read: every control and bidi character a report
 * could carry is written as a visible `\uXXXX` escape, the same way in every human-readable format
 * (console, HTML, Markdown, JUnit). Raw, an ESC or a BEL rewrites a terminal, and a right-to-left
 * override (U+202E) reverses the text after it, so "invalid_grant" could be shown as
 * "tnarg_dilavni". Newlines and tabs stay (a CRLF is a newline); the JSON report keeps the same
 * data, the same characters written as JSON's `\uXXXX` escapes (inertJson).
 */
import type { Report } from './model.js';

/**
 * C0 controls but tab and newline, DEL and the C1 controls, the characters that reorder text or
 * break lines where a reader does not expect it: ALM, LRM, RLM, the line and paragraph separators,
 * the embeddings and overrides (U+202A–U+202E) and the isolates (U+2066–U+2069); and the
 * characters no one sees (Default_Ignorable_Code_Point: U+200B, U+00AD, U+2060, U+FEFF, the tag
 * characters U+E0000–U+E007F, which spell hidden ASCII some readers act on).
 */
const UNSAFE_CLASS =
  '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\p{Default_Ignorable_Code_Point}';
const UNSAFE = new RegExp(`\\r\\n|[${UNSAFE_CLASS}]`, 'gu');

/** `\uXXXX`, or `\u{XXXXX}` beyond the BMP (a tag character), as a reader writes it. */
const escaped = (c: string) => {
  if (c === '\r\n') return '\n';
  const point = c.codePointAt(0)!;
  return point > 0xffff ? `\\u{${point.toString(16)}}` : `\\u${point.toString(16).padStart(4, '0')}`;
};

/** The text with every unsafe character written as `\uXXXX` (idempotent: the escape is plain ASCII). */
export function inert(text: string): string {
  return text.replace(UNSAFE, escaped);
}

/** The unsafe characters of serialized JSON (its controls below U+0020 JSON.stringify escapes itself). */
const JSON_UNSAFE = new RegExp(`[${UNSAFE_CLASS}]`, 'gu');

/**
 * Serialized JSON with every unsafe character inside its strings written as JSON's own `\uXXXX`
 * escape (a surrogate pair for a tag character): still valid JSON of the same data, but no viewer
 * (`cat`, a browser, an editor) meets a raw C1 control, override or invisible character.
 */
export function inertJson(json: string): string {
  return json.replace(JSON_UNSAFE, (c) =>
    [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}

/** A surrogate without its other half (a target's JSON can spell one: `"\\ud800"`). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The text with each lone surrogate replaced by U+FFFD, as a UTF-8 writer does: JSON.stringify
 * writes one as a `\ud800` escape, which JavaScript reads back but strict readers (RFC 8259 §8.2,
 * serde_json, Go's encoding/json) refuse or change, so a report CI tools read carries none.
 */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

/**
 * The report with every string made inert (ids, titles, messages, exchanges, reproduce lines, and
 * any field added later); the input is not modified. The report's shape is fixed and shallow (target
 * data sits in strings), so the walk is bounded by the model, not by the target.
 */
export function inertReport(report: Report): Report {
  return inertTree(report) as Report;
}

function inertTree(value: unknown): unknown {
  if (typeof value === 'string') return inert(value);
  if (Array.isArray(value)) return value.map(inertTree);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [inert(k), inertTree(v)]));
  return value;
}
