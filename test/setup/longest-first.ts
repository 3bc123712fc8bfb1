/**
 * Vitest's order, longest file first, also in a fresh clone. Vitest sorts by the durations of its
 * last run (its cache in node_modules/.vite), and without them by file size: on CI, with no cache,
 * the three-line files that run a full conformance run per fault (blame-api, blame-oauth,
 * fault-matrix-api) started last, and one worker ran them alone at the end. Here a file vitest has
 * no timing for takes its recorded one from test/durations.json (`npm run test:durations` writes it
 * from vitest's cache after a whole run); a file in neither goes after them, larger first. A stale
 * record only costs order, never a result.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const RECORDED = new URL('../durations.json', import.meta.url);

function recorded(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(RECORDED, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const seconds = recorded();
    const path = (f: TestSpecification) => relative(config.root, f.moduleId);
    const key = (f: TestSpecification) => `${f.project.name}:${path(f)}`;
    const weight = (f: TestSpecification) =>
      (cache.getFileTestResults(key(f))?.duration ?? (seconds[path(f)] ?? 0) * 1000) || 0;
    const size = (f: TestSpecification) => cache.getFileStats(key(f))?.size ?? 0;
    return [...files].sort(
      (a, b) =>
        // Vitest's own rules first: projects one after the other, isolated files before shared ones.
        (a.project.name === b.project.name ? 0 : a.project.name < b.project.name ? -1 : 1) ||
        Number(b.project.config.isolate) - Number(a.project.config.isolate) ||
        weight(b) - weight(a) ||
        size(b) - size(a),
    );
  }
}
