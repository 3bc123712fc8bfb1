/**
 * The live progress line fits the terminal: a pty that reports 0 columns (or none) is taken as 80,
 * not cut to 20 (review 27).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createProgress } from '../../cli/progress.js';
import type { CheckResult } from '../../suites/report/model.js';

const own = Object.getOwnPropertyDescriptor(process.stderr, 'columns');
afterEach(() => {
  if (own) Object.defineProperty(process.stderr, 'columns', own);
  else delete (process.stderr as { columns?: number }).columns;
});

/** The live line written for one result of a long id, with stderr reporting `columns`. */
function liveLine(columns: number | undefined): string {
  Object.defineProperty(process.stderr, 'columns', { value: columns, configurable: true, writable: true });
  const written: string[] = [];
  const progress = createProgress({ write: (t) => void written.push(t), tty: true, quiet: false });
  const result = { id: `versioning.${'x'.repeat(200)}`, suite: 'versioning', status: 'passed' } as CheckResult;
  progress.result(result, 0, 148);
  return written.join('').replace('\r\u001b[2K', '');
}

describe('progress line width', () => {
  it.each([
    [0, 79],
    [undefined, 79],
    [120, 119],
    [10, 20],
  ])('columns %s: %i characters', (columns, width) => {
    expect(liveLine(columns)).toHaveLength(width);
  });
});
