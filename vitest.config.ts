import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/setup/longest-first.js';

const include = ['test/**/*.test.ts', 'suites/**/*.test.ts'];
// A file that replaces a module with vi.mock must see its importers load afresh; every other file
// shares its worker's module cache with the files before it (isolate: false). Loading the harness
// through vitest's module runner costs ~0.4 s a file, a third of `npm test` when paid 160 times.
const needsIsolation = ['test/suites/runner-session.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores on CI: more workers only thrash.
    maxWorkers: 2,
    // Longest file first, also without vitest's cache (CI): test/setup/longest-first.ts.
    sequence: { sequencer: LongestFirst },
    // One Chromium per worker, closed when the worker stops (test/setup/one-chromium.ts).
    environment: './test/setup/worker-environment.ts',
    setupFiles: ['test/setup/one-chromium.ts', 'test/setup/git-temp.ts'],
    projects: [
      { extends: true, test: { name: 'shared', include, exclude: needsIsolation, isolate: false } },
      { extends: true, test: { name: 'isolated', include: needsIsolation, isolate: true } },
    ],
  },
});
