/**
 * The simulator and the suites agree at every release the spec names, on both offerings: no
 * check fails or warns anywhere. And every check runs (passes) somewhere in the sweep, so no
 * release-gated check is dead code that only ever skips.
 */
import { describe, expect, it } from 'vitest';
import { releases, type Offering } from '../spec/index.js';
import { allChecks } from '../suites/index.js';
import { createEmbeddedTarget } from '../suites/target/embedded.js';
import { runConformance } from '../suites/runner/run.js';
import { CI_SEED, DEFAULT_RUNS, defaultSeed } from '../suites/runner/defaults.js';

const seed = Number(process.env.IDP_SEED ?? defaultSeed());
/** Few property runs: this sweeps releases; the main run explores inputs. */
const RUNS = 3;
const OFFERINGS: Offering[] = ['self-managed', 'hosted'];
const passedSomewhere = new Set<string>();
let sweptCases = 0;

describe(`release sweep (seed ${seed})`, () => {
  const cases = releases().flatMap((release) => OFFERINGS.map((offering) => [release, offering] as const));

  it.each(cases)('release %s, %s: every check in force passes', async (release, offering) => {
    const target = await createEmbeddedTarget({ release, offering });
    const report = await runConformance({ target, checks: allChecks(), seed, numRuns: RUNS, release, offering });
    sweptCases++;
    for (const c of report.checks) if (c.status === 'passed') passedSomewhere.add(c.id);
    const bad = report.checks
      .filter((c) => c.status === 'failed' || c.status === 'warned')
      .map((c) => `${c.status} ${c.id}: ${c.message?.slice(0, 200)}`);
    expect(bad, `release ${release} ${offering}, seed ${seed}`).toEqual([]);
  });

  it('names, in one of its assertions, every rule a passed check lists (full property runs, CI seed)', async () => {
    // Against the reference every assertion holds, so a rule a passed check lists but no assertion
    // names would be claimed unseen. A short run may not draw the case of a rule (that rule is then
    // honestly left out of `proved`), so this is one run at the default runs and the fixed CI seed.
    const target = await createEmbeddedTarget({});
    const report = await runConformance({ target, checks: allChecks(), seed: CI_SEED, numRuns: DEFAULT_RUNS });
    const inForce = new Set(report.rules.map((r) => r.id));
    const unnamed = report.checks
      .filter((c) => c.status === 'passed' && c.proved)
      .flatMap((c) => {
        const missing = c.rules.filter((id) => inForce.has(id) && !c.proved!.includes(id));
        return missing.length ? [`${c.id}: ${missing.join(', ')}`] : [];
      });
    expect(unnamed).toEqual([]);
  });

  it('runs every check at some release and offering', (ctx) => {
    // Only meaningful after the whole sweep (a filtered run, `-t`, skips it).
    if (sweptCases < cases.length) ctx.skip();
    const never = allChecks()
      .map((c) => c.id)
      .filter((id) => !passedSomewhere.has(id));
    expect(never).toEqual([]);
  });
});
