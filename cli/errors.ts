import { HarnessInputError } from '../suites/errors.js';
import { inert } from '../suites/report/inert.js';

/**
 * Bad usage of the command line itself (a malformed flag). Every HarnessInputError, this one and
 * the library's (bad config, unreachable target, unknown suite, unwritable report), ends the same
 * way: one line on stderr, exit code 2 (see isUsageError).
 */
export class UsageError extends HarnessInputError {
  override name = 'UsageError';
}

/** Is this error the user's input (exit code 2, one line) rather than a bug (a stack trace)? */
export const isUsageError = (error: unknown): error is HarnessInputError => error instanceof HarnessInputError;

/** 70: EX_SOFTWARE of sysexits.h, an internal error of the harness (a bug), never a verdict. */
export const EXIT = { ok: 0, failed: 1, usage: 2, internal: 70 } as const;

/**
 * How a command ends on an error: the user's input is one line on stderr and exit code 2; anything
 * else is a bug and is rethrown (main prints its stack, exit 70).
 */
export function usageExit(error: unknown, err: (text: string) => void): number {
  if (!isUsageError(error)) throw error;
  err(`idp-conformance: ${errorLine(error.message)}\n`);
  return EXIT.usage;
}

/** Characters of a one-line error shown: its reason fits, an answer quoted in it need not. */
const LINE_LIMIT = 2000;

/**
 * The one line an error is said in on stderr. It may quote the target (a Content-Type, a property
 * of its own config), so it is inert as every report is: a raw ESC or C1 control would drive the
 * terminal (clear it, draw a hyperlink), and a header of 200 KB would be a 200 KB line.
 */
export function errorLine(message: string): string {
  const line = inert(message.split('\n')[0]);
  return line.length > LINE_LIMIT ? `${line.slice(0, LINE_LIMIT)}… (${line.length} characters)` : line;
}

/**
 * Commander's error text as our one line: the first line without its `error: `, and the
 * "(Did you mean …?)" commander puts on the next line kept, in our own words.
 */
export function commanderLine(text: string): string {
  const [first, ...rest] = text.split('\n');
  const hint = rest.map((line) => /^\(Did you mean (.+)\?\)$/.exec(line.trim())?.[1]).find(Boolean);
  return `${first.replace(/^error: /, '')}${hint ? ` (did you mean ${hint}?)` : ''}`;
}
