/**
 * `npm start` and `npm test` build first; on an unchanged tree that build must cost nothing (issue 23:
 * a full `tsc` was 6 of the 9 seconds of `npm start`). `tsc -b` compares the sources with its build
 * info in dist/, so right after the build `npm test` ran, a dry build must find nothing to do.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

describe('the build', () => {
  it('is incremental: after `npm run build` nothing is left to build', () => {
    const out = execFileSync(process.execPath, [tsc, '-b', 'tsconfig.build.json', '--dry'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(out, 'run `npm run build` first (npm test does)').toMatch(/is up to date/);
    expect(out).not.toMatch(/would build/);
  });
});
