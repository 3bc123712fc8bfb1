/**
 * The simulator and the suites agree at every release boundary the spec names: no check fails or
 * warns anywhere. And every check runs (passes) somewhere in the sweep, so no release-gated check
 * is dead code that only ever skips. (Whether a passed check's assertions name every rule it lists
 * is judged on one full run of its own: rules-named.test.ts.)
 *
 * The releases played are derived from spec/rules.yaml: for each window boundary (since, until) the
 * release where it starts to hold and the one before, on the rule's offering when it has one; each
 * offering at least once. Every release and offering (`IDP_SWEEP_ALL=1`, `npm run audit:releases`)
 * adds only releases and offerings where no rule changes.
 */
import { describe, expect, it } from 'vitest';
import { compareReleases, releases, rules, type Offering } from '../spec/index.js';
import { allChecks } from '../suites/index.js';
import { createEmbeddedTarget } from '../suites/target/embedded.js';
import { runConformance } from '../suites/runner/run.js';
import { defaultSeed } from '../suites/runner/defaults.js';

const seed = Number(process.env.IDP_SEED ?? defaultSeed());
/** Few property runs: this sweeps releases; the main run explores inputs. */
const RUNS = 3;
const OFFERINGS: Offering[] = ['self-managed', 'hosted'];
const ALL = process.env.IDP_SWEEP_ALL === '1';

/**
 * One case per release either side of every window boundary, on the offering its rule names (else
 * whichever offering has had fewer cases so far), and each offering's rules at least once.
 */
function boundaryCases(): Array<readonly [string, Offering]> {
  const known = releases();
  const wanted = new Map<string, Set<Offering | undefined>>();
  const want = (release: string | undefined, offering?: Offering) => {
    if (release === undefined) return;
    if (!wanted.has(release)) wanted.set(release, new Set());
    wanted.get(release)!.add(offering);
  };
  for (const rule of rules()) {
    for (const boundary of [rule.since, rule.until]) {
      if (boundary === undefined) continue;
      // A release between two listed ones behaves as the older (spec releaseProblem).
      want(
        known.findLast((r) => compareReleases(r, boundary) < 0),
        rule.offering,
      );
      want(
        known.find((r) => compareReleases(r, boundary) >= 0),
        rule.offering,
      );
    }
  }
  const cases: Array<readonly [string, Offering]> = [];
  const count = (offering: Offering) => cases.filter(([, o]) => o === offering).length;
  for (const release of [...wanted.keys()].sort(compareReleases)) {
    const named = [...wanted.get(release)!].filter((o): o is Offering => o !== undefined);
    if (named.length) for (const offering of named) cases.push([release, offering]);
    else cases.push([release, count('self-managed') <= count('hosted') ? 'self-managed' : 'hosted']);
  }
  // Each offering's own rules (PAG-HOSTED-HEADERS-OMITTED, VER-EE-DOWNGRADE) in force somewhere.
  for (const offering of OFFERINGS) if (!count(offering)) cases.push([known[known.length - 1], offering]);
  return cases;
}

const cases = ALL
  ? releases().flatMap((release) => OFFERINGS.map((offering) => [release, offering] as const))
  : boundaryCases();
const passedSomewhere = new Set<string>();
let sweptCases = 0;

describe(`release sweep (seed ${seed}${ALL ? ', every release and offering' : ''})`, () => {
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
