/**
 * The vitest config of a mutation run: the project's config, limited to the test files of the
 * module under test (MUTATE_TESTS, comma-separated, set by scripts/mutate.mjs). Stryker's own
 * `testFiles` option is not used: with it Stryker 9.6.1 activates static mutants (module-level
 * values) after the module has loaded, and reports them as survivors (stryker-js#6144).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from '../vitest.config.ts';

const tests = (process.env.MUTATE_TESTS ?? '').split(',').filter(Boolean);
if (!tests.length) throw new Error('MUTATE_TESTS names no test file: run `npm run mutate`');

export default defineConfig({
  ...base,
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: { ...base.test, include: tests },
});
