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
import { defaultSeed } from '../suites/runner/defaults.js';

const seed = Number(process.env.IDP_SEED ?? defaultSeed());
/** Few property runs: this sweeps releases; the main run explores inputs. */
const RUNS = 3;
const OFFERINGS: Offering[] = ['self-managed', 'hosted'];
const passedSomewhere = new Set<string>();
let sweptCases = 0;

describe(`release sweep (seed ${seed})`, () => {
  const listedInForce = new Map<string, Set<string>>();
  const provedSomewhere = new Map<string, Set<string>>();
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
    const inForce = new Set(report.rules.map((r) => r.id));
    for (const c of report.checks.filter((c) => c.status === 'passed')) {
      const listed = listedInForce.get(c.id) ?? new Set<string>();
      const proved = provedSomewhere.get(c.id) ?? new Set<string>();
      for (const id of c.rules.filter((r) => inForce.has(r))) listed.add(id);
      for (const id of c.proved ?? c.rules) proved.add(id);
      listedInForce.set(c.id, listed);
      provedSomewhere.set(c.id, proved);
    }
  });

  it('names every rule a check lists in one of its assertions, at some release', (ctx) => {
    if (sweptCases < cases.length) ctx.skip();
    // Against the reference every assertion holds, so a rule a passed check lists but no assertion
    // names anywhere would be claimed unseen. (Per release, a short property run may not draw the
    // case of a rule: that rule is then honestly left out of that run's `proved`.)
    const unnamed = [...listedInForce].flatMap(([id, listed]) => {
      const missing = [...listed].filter((r) => !provedSomewhere.get(id)?.has(r));
      return missing.length ? [`${id}: ${missing.join(', ')}`] : [];
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
