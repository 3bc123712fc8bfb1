/** `idp-conformance spec lint|coverage` (owner: spec). */
import type { Command } from 'commander';

export function registerSpec(program: Command): void {
  program.command('spec').description('inspect the spec data (lint, coverage)');
}
