/**
 * The test order of a fresh clone (no vitest cache): files recorded in test/durations.json longest
 * first, then the rest larger first; vitest's own timings, when it has them, win over the record.
 */
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { LongestFirst } from './setup/longest-first.js';
import durations from './durations.json' with { type: 'json' };

const root = '/repo';
function spec(path: string, project = 'shared', isolate = false): TestSpecification {
  return {
    moduleId: `${root}/${path}`,
    project: { name: project, config: { isolate } },
  } as unknown as TestSpecification;
}
function sequencer(cached: Record<string, number> = {}, sizes: Record<string, number> = {}): LongestFirst {
  const cache = {
    getFileTestResults: (key: string) => (key in cached ? { duration: cached[key], failed: false } : undefined),
    getFileStats: (key: string) => (key in sizes ? { size: sizes[key] } : undefined),
  };
  return new LongestFirst({ cache, config: { root } } as unknown as Vitest);
}
const order = async (s: LongestFirst, files: TestSpecification[]) =>
  (await s.sort(files)).map((f) => f.moduleId.slice(root.length + 1));

describe('longest file first', () => {
  const [longest, second] = Object.keys(durations);

  it('without vitest cache: recorded files by duration, then unrecorded ones by size', async () => {
    const files = [spec('test/new-small.test.ts'), spec(second), spec('test/new-big.test.ts'), spec(longest)];
    const sizes = { 'shared:test/new-small.test.ts': 10, 'shared:test/new-big.test.ts': 9000 };
    expect(await order(sequencer({}, sizes), files)).toEqual([
      longest,
      second,
      'test/new-big.test.ts',
      'test/new-small.test.ts',
    ]);
  });

  it("vitest's own timings win over the record", async () => {
    const files = [spec(longest), spec(second)];
    expect(await order(sequencer({ [`shared:${second}`]: 1e9 }), files)).toEqual([second, longest]);
  });

  it('keeps projects apart and isolated files first', async () => {
    const files = [spec(longest, 'shared'), spec('test/x.test.ts', 'isolated', true)];
    expect(await order(sequencer(), files)).toEqual(['test/x.test.ts', longest]);
  });
});
