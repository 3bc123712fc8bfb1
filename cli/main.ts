#!/usr/bin/env node
/**
 * The command line: thin. Parses flags with commander and calls the library; every command lives
 * in its own module that adds itself to the program.
 */
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { commanderLine, isUsageError, EXIT, usageExit } from './errors.js';

type Register = (program: Command) => void;

/** Each command's module, loaded on demand: `simulate` needs none of the suites and starts faster. */
const COMMANDS: Record<string, () => Promise<Register>> = {
  run: async () => (await import('./run.js')).registerRun,
  diff: async () => (await import('./diff.js')).registerDiff,
  report: async () => (await import('./report.js')).registerReport,
  simulate: async () => (await import('./simulate.js')).registerSimulate,
  proxy: async () => (await import('./proxy.js')).registerProxy,
  // spec coverage also maps rules to the checks that prove them.
  spec: async () => {
    const { registerSpec } = await import('./spec.js');
    return (program) => registerSpec(program, { checks: async () => (await import('../suites/index.js')).allChecks() });
  },
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** The program with the command `argv` names (all of them when it names none, e.g. for --help). */
export async function buildProgram(argv: string[] = []): Promise<Command> {
  const program = new Command('idp-conformance')
    .description('Conformance harness and reference simulator for an OAuth 2.0 identity provider and its REST API v4')
    .version(version())
    .exitOverride()
    // One line, in the same voice as our own usage errors.
    .configureOutput({
      outputError: (text, write) => write(`idp-conformance: ${commanderLine(text)}\n`),
    });
  const asked = argv.find((arg) => !arg.startsWith('-'));
  // Own entries only: `idp-conformance constructor` is an unknown command, not Object's member.
  const names = asked !== undefined && Object.hasOwn(COMMANDS, asked) ? [asked] : Object.keys(COMMANDS);
  for (const name of names) (await COMMANDS[name]())(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = await buildProgram(argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (isUsageError(error)) {
      return usageExit(error, (line) => process.stderr.write(line));
    }
    throw error;
  }
}

// A closed terminal (SIGHUP, an SSH session dropped) or a reader gone (`| head`) fails every later
// write to the console, and an unheard stream error would kill the process: the reports still go to
// their files, and the exit code is still the run's.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`idp-conformance: internal error: ${(error as Error).stack ?? error}\n`);
    process.exit(EXIT.internal);
  },
);
