/**
 * Text from the target made inert for people to read: every control and bidi character a report
 * could carry is written as a visible `\uXXXX` escape, the same way in every human-readable format
 * (console, HTML, Markdown, JUnit). Raw, an ESC or a BEL rewrites a terminal, and a right-to-left
 * override (U+202E) reverses the text after it, so "invalid_grant" could be shown as
 * "tnarg_dilavni". Newlines and tabs stay (a CRLF is a newline); the JSON report is data and keeps
 * the text as it came (JSON escapes the control characters itself).
 */
import type { Report } from './model.js';

/**
 * C0 controls but tab and newline, DEL and the C1 controls, and the characters that reorder text
 * or break lines where a reader does not expect it: ALM, LRM, RLM, the line and paragraph
 * separators, the embeddings and overrides (U+202A–U+202E) and the isolates (U+2066–U+2069).
 */
const UNSAFE =
  /\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escaped = (c: string) => (c === '\r\n' ? '\n' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The text with every unsafe character written as `\uXXXX` (idempotent: the escape is plain ASCII). */
export function inert(text: string): string {
  return text.replace(UNSAFE, escaped);
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
