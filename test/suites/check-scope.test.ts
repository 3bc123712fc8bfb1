/**
 * The runner tells a check's requests from a late one of an abandoned check by an async context.
 * On Node 20 every AsyncLocalStorage that has run stays on a list walked at each promise's
 * creation: one per session made each promise of a process that had opened a hundred sessions
 * 60 times dearer. All sessions share one store, and a session nested in another's check (a
 * library caller's) still sees its own requests.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runConformance } from '../../suites/runner/run.js';
import { RULES, check, fakeTarget, seen } from './fakes.js';

/** A run of one passing check against a fake target; `seenExchanges` counts what its tap saw. */
async function run(checks = [check('one', ['T-MUST'], seen(['T-MUST']))]) {
  let seenExchanges = 0;
  const report = await runConformance({
    target: fakeTarget(),
    checks,
    rules: RULES,
    seed: 1,
    numRuns: 1,
    onExchange: () => void seenExchanges++,
  });
  return { report, seenExchanges };
}

afterEach(() => vi.restoreAllMocks());

describe('the check scope', () => {
  it('is one store for every session of the process', async () => {
    const stores = new Set<AsyncLocalStorage<unknown>>();
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called back with its own `this` below
    const original = AsyncLocalStorage.prototype.run;
    vi.spyOn(AsyncLocalStorage.prototype, 'run').mockImplementation(function (
      this: AsyncLocalStorage<unknown>,
      ...args: Parameters<typeof original>
    ) {
      stores.add(this);
      return original.apply(this, args);
    });
    for (let i = 0; i < 3; i++) expect((await run()).report.checks[0].status).toBe('passed');
    expect(stores.size).toBe(1);
  });

  it('keeps a nested session’s exchanges its own, its set-up’s too', async () => {
    const alone = await run();
    let inner: Awaited<ReturnType<typeof run>> | undefined;
    const outer = await run([
      check('outer', ['T-MUST'], async (t) => {
        inner = await run();
        await seen(['T-MUST'])(t);
      }),
    ]);
    expect(outer.report.checks[0].status).toBe('passed');
    expect(inner?.report.checks[0].status).toBe('passed');
    expect(inner?.seenExchanges).toBe(alone.seenExchanges);
  });
});
