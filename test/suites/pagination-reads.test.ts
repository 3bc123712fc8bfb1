/**
 * What a pagination check reads whole: every page of a collection at the maximum per_page is its
 * reference order, the most expensive read of a run. A check that walks one collection learns that
 * one only, not every collection the target exposes.
 */
import { describe, expect, it } from 'vitest';
import { limits } from '../../spec/index.js';
import { allChecks } from '../../suites/index.js';
import { createEmbeddedTarget } from '../../suites/target/embedded.js';
import { runConformance } from '../../suites/runner/run.js';

/** The paths a run of one check read at per_page = maximum (how a reference order is read). */
async function pathsReadWhole(checkId: string): Promise<{ status: string; paths: Set<string> }> {
  const target = await createEmbeddedTarget();
  const paths = new Set<string>();
  const send = target.send.bind(target);
  target.send = (raw) => {
    const url = new URL(raw.url);
    if (url.searchParams.get('per_page') === String(limits().perPageMax)) paths.add(url.pathname);
    return send(raw);
  };
  const report = await runConformance({
    target,
    checks: allChecks().filter((c) => c.id === checkId),
    seed: 1,
    numRuns: 3,
  });
  return { status: report.checks[0].status, paths };
}

describe('pagination checks read whole only what they walk', () => {
  it('pagination.invalid-params-default learns the one collection it walks', async () => {
    const { status, paths } = await pathsReadWhole('pagination.invalid-params-default');
    expect(status).toBe('passed');
    expect([...paths]).toHaveLength(1);
  });

  it('pagination.offset-rows, which draws among them, learns several', async () => {
    const { status, paths } = await pathsReadWhole('pagination.offset-rows');
    expect(status).toBe('passed');
    expect(paths.size).toBeGreaterThan(1);
  });
});
