/**
 * The README's table of what the proxy judges lists every fault of spec/faults.yaml in exactly one
 * row, and its "yes, now" row is exactly the faults test/proxy/verdicts.test.ts proves caught by
 * the proxy alone.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { faults } from '../../spec/index.js';
import { CAUGHT } from './caught.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The table's rows: the fault names (and name-* patterns) of the first cell, and the verdict cell. */
function rows(): { names: string[]; judged: string }[] {
  const start = README.indexOf('| faults | passively judged? | why |');
  const table = README.slice(start, README.indexOf('\n\n', start)).split('\n').slice(2);
  return table.map((line) => {
    const [, first, judged] = line.split('|');
    // Names and name-* patterns, between commas and parentheses; prose (with spaces) is no name.
    const names = first
      .split(/[,()]/)
      .map((part) => part.trim())
      .filter((part) => part.includes('-') && !part.includes(' '));
    return { names, judged: judged.trim() };
  });
}

const matches = (pattern: string, name: string) =>
  pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name;

describe("the README's proxy table", () => {
  it('lists every fault in one row, and the caught ones are the proven ones', () => {
    const table = rows();
    for (const { name } of faults()) {
      const holding = table.filter((row) => row.names.some((p) => matches(p, name)));
      expect(holding.length, name).toBe(1);
    }
    const yes = table.find((row) => row.judged === 'yes, now')!;
    expect([...yes.names].sort()).toEqual(CAUGHT.map(([fault]) => fault).sort());
  });
});
