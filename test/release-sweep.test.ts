/**
 * The simulator and the suites agree at every release the spec names, on both offerings: no
 * check fails or warns anywhere. And every check runs (passes) somewhere in the sweep, so no
 * release-gated check is dead code that only ever skips. (Whether a passed check's assertions name
 * every rule it lists is judged on one full run of its own: rules-named.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { releases, type Offering } from '../spec/index.js';
import { allChecks } from '../suites/index.js';
import { createEmbeddedTarget } from '../suites/target/embedded.js';
import { runConformance } from '../suites/runner/run.js';
import { defaultSeed } from '../suites/runner/defaults.js';

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

  it('runs every check at some release and offering', (ctx) => {
    // Only meaningful after the whole sweep (a filtered run, `-t`, skips it).
    if (sweptCases < cases.length) ctx.skip();
    const never = allChecks()
      .map((c) => c.id)
      .filter((id) => !passedSomewhere.has(id));
    expect(never).toEqual([]);
  });
});
