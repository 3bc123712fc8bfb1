/**
 * No collateral blame: a full run against the simulator with one fault on breaks only the rules
 * that fault declares in spec/faults.yaml. A check that fails or warns another rule there blames
 * the provider for a sentence it did not break (typically a check whose premise, such as reaching
 * the fixture project or following a Link, failed for the fault's own rule). The fault matrix does
 * not see this: it runs only the checks of the fault's rules.
 *
 * By default the faults that once caused collateral blame run (regressions); every fault runs with
 * `npm run audit:blame` (IDP_BLAME_ALL=1), a few minutes. One file per side
 * (blame-oauth.test.ts, blame-api.test.ts), so vitest's two workers share the full runs.
 */
import { describe, expect, it } from 'vitest';
import { faults, type Fault } from '../../spec/index.js';
import { defaultSeed } from '../../suites/runner/defaults.js';
import { describeResults, runWithFault } from './fault-matrix.js';

/** Faults whose full run once failed or warned rules they do not break (each since fixed), by side. */
const REGRESSIONS: Record<Fault['side'], string[]> = {
  oauth: [
    // Checks that blamed their own rule for another's deviation (fixed in the checks) …
    'token-info-no-aliases',
    'device-uri-complete-no-user-code',
    'jwks-private-members',
    // … and faults that break more sentences than they declared (their rules now say so).
    'state-dropped',
    'invalid-client-no-challenge',
    'revoke-ignored',
    'cors-no-preflight',
    // A code that never expires was blamed on the lifetime's figure too.
    'code-never-expires',
    'code-lifetime-long',
    // One rule judged token responses and refusals alike: each fault now breaks one of its halves.
    'token-cacheable',
    'token-error-cacheable',
    'refresh-scope-narrowed',
  ],
  api: [
    'page-default-not-first',
    // Checks whose premise (reaching the project by its encoded path, following a link, trusting a
    // header or the page size) failed for another rule now verify it first …
    'encoded-slash-rejected',
    'no-414',
    'link-drops-params',
    'x-total-off-by-one',
    'x-page-zero-based',
    'keyset-end-next-link',
    'totals-not-omitted',
    // … and faults that break more sentences than they declared.
    'unencoded-slash-accepted',
    'link-header-dropped',
    'per-page-not-clamped',
    'keyset-duplicate-row',
  ],
};

export function noCollateralBlame(side: Fault['side']): void {
  const seed = Number(process.env.IDP_SEED ?? defaultSeed());
  const all = process.env.IDP_BLAME_ALL === '1';
  const regressions = REGRESSIONS[side];
  const list = faults().filter((f) => f.side === side && (all || regressions.includes(f.name)));

  describe(`no collateral blame, ${side} side (seed ${seed}${all ? ', every fault' : ''})`, () => {
    it(`every regression names a fault of the ${side} side in spec/faults.yaml`, () => {
      const names: string[] = faults()
        .filter((f) => f.side === side)
        .map((f) => f.name);
      expect(regressions.filter((n) => !names.includes(n))).toEqual([]);
    });

    it.each(list.map((f) => [f.name, f] as const))(
      'fault %s fails or warns only the rules it breaks',
      async (name, fault) => {
        const { report } = await runWithFault(fault, seed, undefined, true);
        const own: readonly string[] = fault.rules;
        const blaming = report.checks.filter(
          (c) =>
            (c.status === 'failed' || c.status === 'warned') && (c.broken ?? c.rules).some((r) => !own.includes(r)),
        );
        const collateral = blaming.flatMap((c) =>
          (c.broken ?? c.rules).filter((r) => !own.includes(r)).map((r) => `${c.status} ${c.id}: ${r}`),
        );
        // Why each blaming check failed, so a blame seen once can be understood without a rerun.
        const why = describeResults(blaming);
        expect(
          collateral,
          `fault ${name} (rules ${own.join(', ')}; seed ${seed}; rerun: IDP_SEED=${seed} npx vitest run test/suites/blame-${side}.test.ts -t ${name}) blamed other rules:\n${why}`,
        ).toEqual([]);
      },
      240_000,
    );
  });
}
