/** `idp-conformance run` (owner: suites). */
import type { Command } from 'commander';

export function registerRun(program: Command): void {
  program.command('run').description('run the conformance suites against a target');
}
