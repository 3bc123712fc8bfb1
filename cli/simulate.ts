/** `idp-conformance simulate` (owner: simulator). */
import type { Command } from 'commander';

export function registerSimulate(program: Command): void {
  program.command('simulate').description('serve the reference simulator over HTTP');
}
