import { HarnessInputError } from '../suites/errors.js';

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
  err(`idp-conformance: ${error.message.split('\n')[0]}\n`);
  return EXIT.usage;
}
