/**
 * Commander's usage errors in one line, its "Did you mean …?" kept (review 27): `rnu`, `run --sede 1`,
 * `spec lnt` said only their first line. The line as the real command prints it, in one child
 * process (needs the build), and commander's own texts through the same function in-process.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commanderLine } from '../../cli/errors.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** What commander itself says for argv against a program shaped as ours is. */
function commanderSays(argv: string[]): string {
  let said = '';
  const program = new Command('idp-conformance')
    .exitOverride()
    .configureOutput({ outputError: (text) => (said = text) });
  program.command('run').option('--seed <n>').option('--suite <names>');
  program.command('spec').command('lint');
  try {
    program.parse(argv, { from: 'user' });
  } catch {
    // exitOverride: the error is what was said.
  }
  return said;
}

describe('commanderLine', () => {
  const rows: [string[], string][] = [
    [['rnu'], "unknown command 'rnu' (did you mean run?)"],
    [['run', '--sede', '1'], "unknown option '--sede' (did you mean --seed?)"],
    [['spec', 'lnt'], "unknown command 'lnt' (did you mean lint?)"],
    // No suggestion: the first line alone, as before.
    [['zzzzzz'], "unknown command 'zzzzzz'"],
  ];
  for (const [argv, line] of rows)
    it(`${argv.join(' ')} is one line: ${line}`, () => {
      expect(commanderSays(argv)).toContain('\n');
      expect(commanderLine(commanderSays(argv))).toBe(line);
    });

  it('the command prints it so, exit 2', () => {
    const child = spawnSync(process.execPath, [MAIN, 'rnu'], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(child.status).toBe(2);
    expect(child.stderr).toBe("idp-conformance: unknown command 'rnu' (did you mean run?)\n");
  });
});
