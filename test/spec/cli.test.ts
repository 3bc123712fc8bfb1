/** `idp-conformance spec lint|coverage` through commander, output captured. */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { registerSpec } from '../../cli/spec.js';
import { specDir } from '../../spec/index.js';

let stdout: string[];
let stderr: string[];
beforeEach(() => {
  stdout = [];
  stderr = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (stdout.push(String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true));
  process.exitCode = undefined;
});
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

async function run(...args: string[]): Promise<number | undefined> {
  const program = new Command('idp-conformance').exitOverride();
  registerSpec(program, { checks: () => [{ id: 'device.polls', rules: ['DEV-SLOW-DOWN', 'NOT-A-RULE'] }] });
  await program.parseAsync(['spec', ...args], { from: 'user' });
  return process.exitCode as number | undefined;
}

function copyOfSpec(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spec-lint-'));
  cpSync(specDir(), dir, { recursive: true, filter: (src) => !src.endsWith('.ts') });
  return dir;
}

describe('spec lint', () => {
  it('prints a short OK line and exits 0 on the real spec', async () => {
    expect(await run('lint')).toBe(0);
    expect(stdout.join('')).toMatch(/^spec lint: OK/);
  });

  it('prints file:line: message for each problem and exits 1', async () => {
    const dir = copyOfSpec();
    try {
      const file = join(dir, 'machines', 'revocation.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('rules: [REV-PARAMS, ', 'rules: [REV-PARAMZ, '));
      const line =
        readFileSync(file, 'utf8')
          .split('\n')
          .findIndex((l) => l.includes('REV-PARAMZ')) + 1;
      expect(await run('lint', '--dir', dir)).toBe(1);
      expect(stdout.join('')).toMatch(
        new RegExp(
          `/machines/revocation\\.yaml:${line}: row 3 \\(live, revoke, otherwise\\): unknown rule id REV-PARAMZ\\n$`,
        ),
      );
      expect(stderr.join('')).toBe('spec lint: 1 problem\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a --dir that is not a folder (usage error)', async () => {
    await expect(run('lint', '--dir', join(tmpdir(), 'no-such-spec-folder'))).rejects.toThrow(/not a folder/);
  });
});

describe('spec coverage', () => {
  it('prints the source rows with their rules, the unmapped ones, and rules without checks', async () => {
    expect(await run('coverage')).toBe(0);
    const text = stdout.join('');
    expect(text).toContain('Source rows, list items and mapped sentences -> rules');
    expect(text).toMatch(/Endpoints > Pagination\n/);
    expect(text).toContain('-> PAG-KEYSET-REPOSITORY-TREE');
    expect(text).toContain('Rows and items with no rule: none');
    expect(text).toMatch(/Rules with no check: \d+/);
    expect(text).not.toMatch(/^ {2}DEV-SLOW-DOWN \[must\]/m);
    expect(text).toContain('device.polls -> NOT-A-RULE');
    // Rules by level, then origin: the source's word, documented behaviour, RFC sections.
    expect(text).toMatch(/Rules by level and origin\n {2}must: \d+\n {4}source \(\d+\): /);
    expect(text).toMatch(/^ {4}RFC 7636 §4\.6 \(2\): PKCE-VERIFIER-REQUIRED, PKCE-VERIFIER-MISMATCH$/m);
    // No should rule has origin source any more (issue 21: the source's sentences are must).
    expect(text).toMatch(/^ {2}should: \d+\n {4}documented \(\d+\): /m);
    expect(text).toMatch(/^ {4}L65 text An empty JSON object with status 200\.\n {9}-> REV-EMPTY-OBJECT$/m);
  });

  it('prints JSON with --json', async () => {
    await run('coverage', '--json');
    const report = JSON.parse(stdout.join(''));
    expect(report.unmapped).toEqual([]);
    expect(report.checks.byRule['DEV-SLOW-DOWN']).toEqual(['device.polls']);
    expect(report.byLevel[0]).toMatchObject({ level: 'must', origin: 'source' });
  });
});
