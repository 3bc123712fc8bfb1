/**
 * Text a check quotes from the target, cut to a bounded length: a target that answers each request
 * with a new megabyte `error` made a failure message per request quoting it whole (red team, round
 * 7: a 120 MB JSON report, 1.35 GB of memory). What is left out is counted, never hidden.
 */
import { KEPT_PREFIX, MASK } from './redact.js';
import { pastSearched } from './secret-index.js';

/** The most characters of one value from the target a failure quotes. */
export const MAX_QUOTED = 200;

/** The most characters of one failure's message, its quoted values already cut: a backstop. */
export const MAX_MESSAGE = 2000;

/**
 * The most characters of one line of a message a report shows (a failure's message and notes, its
 * details' 400, a `(2/10) ` before it: a run's lines fit, and a saved report's are cut here when
 * rendered, boundReport), and the most lines.
 */
export const SHOWN_LINE = { characters: MAX_MESSAGE + 600, count: 32 };

/**
 * A message of a saved report as a report shows it (boundReport): as many lines as
 * SHOWN_LINE.count, each longer than SHOWN_LINE.characters masked (`mask`: a saved report's
 * patterns, no secret of the run being known) before it is cut there. A run's messages are within
 * these already, and stay as they are (the report masks them after, as every line).
 */
export function shownMessage(message: string, mask: Masker): string {
  const lines = message.split('\n');
  const shown = lines.slice(0, SHOWN_LINE.count).map((line) => {
    // Within the bound (a run's lines all are), it is masked where the report is, once.
    if (line.length <= SHOWN_LINE.characters) return line;
    const head = maskedHead(line, SHOWN_LINE.characters, mask);
    return cut(head.text, SHOWN_LINE.characters, undefined, head.left);
  });
  const more = lines.length - shown.length;
  return more ? [...shown, `(+${more} more lines left out)`].join('\n') : shown.join('\n');
}

/**
 * Where to cut `text` at `max` or before so that nothing is cut through: a secret's mask (its kept
 * prefix before MASK: part of it reads as another value, the prefix without MASK as the whole), a
 * JSON escape (an odd run of backslashes last, or one then `u` and fewer than four hex digits:
 * `\u…` reads as no character, a lone `\` escapes the closing quote), a surrogate pair (half a
 * character, which no format writes).
 */
function safeEnd(text: string, max: number): number {
  let end = max;
  // A MASK at the cut or at most KEPT_PREFIX characters past it: its prefix began before the cut.
  const masked = text.slice(max, max + KEPT_PREFIX + 1).indexOf(MASK);
  if (masked !== -1) end = Math.max(0, max + masked - KEPT_PREFIX);
  const open = /(?<!\\)((?:\\\\)*)\\(u[0-9a-fA-F]{0,3})?$/.exec(text.slice(0, end));
  if (open) end -= (open[2]?.length ?? 0) + 1;
  return /[\ud800-\udbff]/.test(text[end - 1]) ? end - 1 : end;
}

/**
 * `text` cut to `max` characters (safeEnd: never through a mask, an escape or a pair), saying how
 * many more there were, `left` of them cut off before (maskedHead).
 */
export function cut(text: string, max: number, more = (n: number) => `… (+${n} more characters)`, left = 0): string {
  if (text.length <= max && !left) return text;
  const end = text.length <= max ? text.length : safeEnd(text, max);
  return `${text.slice(0, end)}${more(text.length - end + left)}`;
}

/**
 * Masking as a run's redactor does it: `text`, told when a text was cut at its end first, and
 * `reach`, the most characters (as the secret index reads them) one thing it masks by value spans (Redactor.reach).
 */
export interface Masker {
  text(text: string, cut?: boolean): string;
  readonly reach: number;
}

/**
 * Letters past a kept part that the patterns of redact.ts read to decide on it with a bounded
 * look (INPUT_TAG's 2,000 characters of a tag, VALUE_BEFORE's 16, the character after a value),
 * with room to spare; patterns that read on without bound mask what the cut ends (RedactOptions.cut).
 */
export const PATTERN_REACH = 2100;

/**
 * `text` masked, at least its first `keep` characters as masking it whole shows them, and how many
 * characters were left out past them. A text masked whole costs its length (a hostile message of
 * 900 KB took a second): one longer than `keep` and the masker's reach (plus PATTERN_REACH) is cut
 * there first, masked, and the masked image of what lay past `keep` dropped again: a secret the cut
 * went through lies in it (its first part unmasked), as does a bounded pattern it interrupted.
 */
export function maskedHead(text: string, keep: number, mask: Masker): { text: string; left: number } {
  const end = pastSearched(text, keep, mask.reach + PATTERN_REACH);
  if (end >= text.length) return { text: mask.text(text), left: 0 };
  const masked = mask.text(text.slice(0, end), true);
  // Masking never lengthens a text: the image of text[keep, end) is within its last end - keep characters.
  const head = safeEnd(masked, Math.max(0, masked.length - (end - keep)));
  return { text: masked.slice(0, head), left: text.length - end + masked.length - head };
}

/**
 * Text from the target kept on the line it is quoted in: a line feed or carriage return written
 * `\n` or `\r`, as JSON writes them. Raw, an error_description "x\n(2/2) PASSED" forged a line of
 * the harness's own list of failures (or its "(+N more failures…)") in every report and the console.
 */
export const oneLine = (text: string): string => text.replace(/[\r\n]/g, (c) => (c === '\n' ? '\\n' : '\\r'));

/** A JSON string literal: quotes around characters, any escaped (linear: the two branches never overlap). */
const QUOTED = /"(?:[^"\\]|\\.)*"/g;
/** QUOTED, or a quote open to the end of a text cut there. */
const QUOTED_OR_OPEN = /"(?:[^"\\]|\\.)*("|\\?$)/g;

/**
 * The message with every JSON-quoted value in it longer than MAX_QUOTED cut, then the whole to
 * MAX_MESSAGE; `left`: characters cut off its end before (maskedHead), and a quote that end left
 * open (`"` then no other to the end) is cut as a quoted value.
 */
export function cutMessage(message: string, left = 0): string {
  let after = left;
  const quoted = message.replace(left ? QUOTED_OR_OPEN : QUOTED, (q: string, close: unknown) => {
    if (q.length <= MAX_QUOTED) return q;
    // A quote the cut left open ends the message: what was cut off is counted as its.
    const open = left > 0 && close !== '"';
    const more = open ? after : 0;
    if (open) after = 0;
    return cut(open ? q : q.slice(0, -1), MAX_QUOTED, (n) => `…" (+${n} more characters)`, more);
  });
  return cut(quoted, MAX_MESSAGE, undefined, after);
}

/** A string shown as it is; one blank, empty or padded is quoted as JSON so its spaces show (review 21). */
const bare = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.trim() === v;

/**
 * The sentence, then the structured details a reader needs, short: a run's failure, or a verdict
 * the proxy keeps (suites/proxy/tally.ts), masked then cut the same way.
 */
export function describeFailure(
  failure: { message: string; details?: Record<string, unknown> },
  mask: Masker | ((text: string) => string) = (text) => text,
): string {
  // A bare function masks a text whole (its reach is not known); a Masker (a run's redactor) masks the head.
  const masker: Masker = typeof mask === 'function' ? { text: mask, reach: Infinity } : mask;
  const head = (text: string, keep: number) => maskedHead(text, keep, masker);
  const details = Object.entries(failure.details ?? {}).filter(
    ([k, v]) => v !== undefined && !['seed', 'path', 'shrinks', 'rules', 'replay'].includes(k),
  );
  // Masked before it is cut: a secret cut in two would no longer be found, and half of it shown.
  // One line: the harness alone breaks lines between failures and notes (oneLine).
  const said = head(failure.message, MAX_MESSAGE);
  const message = cutMessage(oneLine(said.text), said.left);
  if (!details.length) return message;
  // Each value cut before it is joined: one megabyte value must not cost a megabyte string.
  const text = details
    .map(([k, v]) => {
      const value = head(bare(v) ? v : (JSON.stringify(v) ?? String(v)), MAX_QUOTED);
      return `${k}: ${cut(oneLine(value.text), MAX_QUOTED, undefined, value.left)}`;
    })
    .join('; ');
  return `${message} (${text.length > 400 ? cut(text, 400, () => '…') : text})`;
}
