/**
 * The README's promises that can drift: its first commands, and the "not checkable" table, which
 * must list exactly the `must` rules that no check proves.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { coverage } from '../spec/coverage.js';
import { allChecks } from '../suites/index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

function notCheckableSection(): string {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Rules that are not checkable'));
  if (!section) throw new Error('README has no "Rules that are not checkable" section');
  return section;
}

/** The rule ids of the section's table rows; an empty list when every must rule has a check. */
function notCheckableTable(): string[] {
  return notCheckableSection()
    .split('\n')
    .filter((line) => /^\|\s*[A-Z]+-[A-Z0-9-]+\s*\|/.test(line))
    .map((line) => line.split('|')[1].trim());
}

describe('README', () => {
  it('opens with the two set-up commands', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).toContain('npm ci && npm start');
    expect(firstBlock).toContain('npm test');
    expect(readme.indexOf('```sh')).toBeLessThan(readme.indexOf('\n## '));
  });

  it('lists exactly the must rules no check proves, each with a reason', () => {
    const cov = coverage(allChecks());
    const uncheckedMust = cov
      .checks!.rulesWithoutCheck.filter((r) => r.level === 'must')
      .map((r) => r.id)
      .sort();
    const rows = notCheckableTable().sort();
    expect(rows).toEqual(uncheckedMust);
    // With no rows, the section must say so rather than show an empty table.
    if (rows.length === 0) expect(notCheckableSection()).toMatch(/every `must` rule is proven by at least one check/);
  });

  it('names no check rule id that the catalogue lacks', () => {
    expect(coverage(allChecks()).checks!.unknownRuleRefs).toEqual([]);
  });

  // Following the README must leave `npm test` green and no secret-bearing file to commit: every file
  // its commands write (reports, target configs with the simulator's secrets) lands where git and
  // prettier ignore it.
  it('writes every file of its commands where git and prettier ignore it', () => {
    const commands = readme.split('\n').filter((line) => /(^|\s)(npx )?idp-conformance /.test(line));
    const written = commands.flatMap((line) => [
      ...[...line.matchAll(/--report[= ]"?([^\s"]+)/g)].flatMap((m) => m[1].split(',').map((kv) => kv.split('=')[1])),
      ...[...line.matchAll(/--write-config[= ]([^\s"]+)/g)].map((m) => m[1]),
    ]);
    const paths = [...new Set(written.filter((p) => p && !p.includes('$')))];
    expect(paths.length).toBeGreaterThan(3);
    const root = new URL('..', import.meta.url).pathname;
    const notIgnored = paths.filter((p) => {
      try {
        execFileSync('git', ['check-ignore', '-q', '--no-index', p], { cwd: root });
        return false;
      } catch {
        return true;
      }
    });
    expect(notIgnored, 'not ignored by .gitignore').toEqual([]);
    const prettierIgnore = readFileSync(new URL('../.prettierignore', import.meta.url), 'utf8');
    for (const p of paths) {
      const top = p.split('/')[0] + '/';
      const ext = '*.' + p.split('.').pop();
      expect(
        [top, ext].some((pat) => prettierIgnore.split('\n').includes(pat)),
        `${p} in .prettierignore`,
      ).toBe(true);
    }
  });
});
