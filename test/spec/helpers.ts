/** Broken copies of the real spec files, in memory, for the validators' negative tests. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { specDir, validateSpec, type Problem } from '../../spec/index.js';

export function specText(file: string): string {
  return readFileSync(join(specDir(), file), 'utf8');
}

/** The real file with `from` replaced by `to`; fails the test if `from` does not occur exactly once. */
export function edit(file: string, from: string, to: string): Record<string, string> {
  const text = specText(file);
  const at = text.indexOf(from);
  expect(at, `${from} should occur in ${file}`).toBeGreaterThanOrEqual(0);
  expect(text.indexOf(from, at + 1), `${from} should occur once in ${file}`).toBe(-1);
  return { [file]: text.slice(0, at) + to + text.slice(at + from.length) };
}

/** 1-based line of the first occurrence of `needle` in `text`. */
export function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  expect(at, `${needle} should occur`).toBeGreaterThanOrEqual(0);
  return text.slice(0, at).split('\n').length;
}

export function problemsWith(files: Record<string, string>): Problem[] {
  return validateSpec({ files });
}

/** Exactly the expected problem is reported (and nothing else), at the expected file and line. */
export function expectOnly(
  problems: Problem[],
  expected: { file: string; line: number; message: string | RegExp },
): void {
  expect(problems, JSON.stringify(problems, null, 1)).toHaveLength(1);
  expect(problems[0].file).toBe(expected.file);
  expect(problems[0].line).toBe(expected.line);
  if (typeof expected.message === 'string') expect(problems[0].message).toBe(expected.message);
  else expect(problems[0].message).toMatch(expected.message);
}
