/**
 * Text a check quotes from the target, cut to a bounded length: a target that answers each request
 * with a new megabyte `error` made a failure message per request quoting it whole (red team, round
 * 7: a 120 MB JSON report, 1.35 GB of memory). What is left out is counted, never hidden.
 */
import { KEPT_PREFIX, MASK } from './redact.js';

/** The most characters of one value from the target a failure quotes. */
export const MAX_QUOTED = 200;

/** The most characters of one failure's message, its quoted values already cut: a backstop. */
export const MAX_MESSAGE = 2000;

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

/** `text` cut to `max` characters (safeEnd: never through a mask, an escape or a pair), saying how many more there were. */
export function cut(text: string, max: number, more = (n: number) => `… (+${n} more characters)`): string {
  if (text.length <= max) return text;
  const end = safeEnd(text, max);
  return `${text.slice(0, end)}${more(text.length - end)}`;
}

/**
 * Text from the target kept on the line it is quoted in: a line feed or carriage return written
 * `\n` or `\r`, as JSON writes them. Raw, an error_description "x\n(2/2) PASSED" forged a line of
 * the harness's own list of failures (or its "(+N more failures…)") in every report and the console.
 */
export const oneLine = (text: string): string => text.replace(/[\r\n]/g, (c) => (c === '\n' ? '\\n' : '\\r'));

/** A JSON string literal: quotes around characters, any escaped (linear: the two branches never overlap). */
const QUOTED = /"(?:[^"\\]|\\.)*"/g;

/** The message with every JSON-quoted value in it longer than MAX_QUOTED cut, then the whole to MAX_MESSAGE. */
export function cutMessage(message: string): string {
  const quoted = message.replace(QUOTED, (q) => {
    if (q.length <= MAX_QUOTED) return q;
    return cut(q.slice(0, -1), MAX_QUOTED, (n) => `…" (+${n} more characters)`);
  });
  return cut(quoted, MAX_MESSAGE);
}

/**
 * The sentence, then the structured details a reader needs, short: a run's failure, or a verdict
 * the proxy keeps (suites/proxy/tally.ts), masked then cut the same way.
 */
/** A string shown as it is; one blank, empty or padded is quoted as JSON so its spaces show (review 21). */
const bare = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.trim() === v;

export function describeFailure(
  failure: { message: string; details?: Record<string, unknown> },
  mask: (text: string) => string = (text) => text,
): string {
  const details = Object.entries(failure.details ?? {}).filter(
    ([k, v]) => v !== undefined && !['seed', 'path', 'shrinks', 'rules'].includes(k),
  );
  // Masked before it is cut: a secret cut in two would no longer be found, and half of it shown.
  // One line: the harness alone breaks lines between failures and notes (oneLine).
  const message = cutMessage(oneLine(mask(failure.message)));
  if (!details.length) return message;
  // Each value cut before it is joined: one megabyte value must not cost a megabyte string.
  const text = details
    .map(([k, v]) => `${k}: ${cut(oneLine(mask(bare(v) ? v : (JSON.stringify(v) ?? String(v)))), MAX_QUOTED)}`)
    .join('; ');
  return `${message} (${text.length > 400 ? cut(text, 400, () => '…') : text})`;
}
