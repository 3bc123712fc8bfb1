/**
 * The bench scripts' arguments, read as the CLI reads its own: a bad one is one line and exit
 * code 2, never a stack trace; --help (-h) prints the usage.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface BenchArguments {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

export function benchArguments(
  name: string,
  usage: string,
  options: NonNullable<ParseArgsConfig['options']>,
  /** options that must be positive numbers */
  numbers: string[] = [],
  positionals = true,
): BenchArguments {
  try {
    const parsed: BenchArguments = parseArgs({
      allowPositionals: positionals,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
    });
    if (parsed.values.help) {
      process.stdout.write(usage);
      process.exit(0);
    }
    for (const option of numbers)
      if (!(Number(parsed.values[option]) > 0)) throw new Error(`--${option} takes a positive number`);
    return parsed;
  } catch (error) {
    process.stderr.write(`${name}: ${(error as Error).message.split('\n')[0]}\n${usage}`);
    process.exit(2);
  }
}
