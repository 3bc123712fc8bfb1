/**
 * One cause, one blame, under several causes at once: the compounds of corpus deviations
 * (compounds.ts) and the pairs of simulator faults that exposed an interaction when
 * `npm run explore:compounds` and `npm run explore:pairs` ran them (a part that left another
 * check without its premise, or stopped a check before it judged another part's sentence). Each
 * must fail or warn exactly the union of its parts' rules, with no check errored.
 */
import { describe, expect, it } from 'vitest';
import { faults } from '../../spec/index.js';
import { CI_SEED } from '../../suites/runner/defaults.js';
import { describeResults, runWithFaults } from '../suites/fault-matrix.js';
import { blamedRules } from '../../bench/blame-union.js';
import { COMPOUNDS, compoundDeviation } from './compounds.js';
import { expectBlamed } from './corpus.js';
import { proxyForTests } from './oauth-proxy.js';

const proxy = proxyForTests();

/**
 * The compounds that exposed something: what it was (the fix is in the commit that added each),
 * and the rules of the union that the compound legitimately hides, each with its reason (two parts
 * that touch the same answer, so the second cannot be seen).
 */
const EXPOSED: Record<string, { found: string; unseen?: Record<string, string> }> = {
  // The harness's own authorization requests carried no state, so a provider that requires one
  // refused every code flow of the run: its other deviations (refresh grace, token lifetime) unseen.
  Okta: { found: 'L17: the client sends state with each authorization request' },
  // A refused refresh was blamed on other rules by the check of the response fields than by the
  // rotation check, and stopped it before it judged the JSON of an answer asked without Accept.
  'GitHub OAuth app': {
    found: 'L92: a refused refresh is one sentence, blamed alike; L102: JSON judged apart from it',
    unseen: {
      'TOK-REFRESH-RESPONSE-FIELDS':
        'every refresh is refused (200 with an error body): no refresh response to lack expires_in',
    },
  },
};

describe('compound deviations are blamed on the union of their parts', () => {
  it.each(COMPOUNDS.filter((c) => c.name in EXPOSED).map((c) => [`${c.name} (${EXPOSED[c.name].found})`, c] as const))(
    '%s',
    async (_label, compound) => {
      const deviation = compoundDeviation(compound);
      const unseen = EXPOSED[compound.name].unseen ?? {};
      await expectBlamed(proxy(), { ...deviation, breaks: deviation.breaks.filter((r) => !(r in unseen)) });
    },
    120_000,
  );
});

/**
 * Pairs of simulator faults that exposed something: each runs once, only the checks of the two
 * faults' rules (as the fault matrix does), and must fail or warn exactly their rules but those the
 * pair legitimately hides (with the reason).
 */
const PAIRS: Array<{ pair: [string, string]; found: string; unseen?: Record<string, string> }> = [
  {
    // Without the fixture project the offset check walks the users, too many to walk whole: the size
    // of its last page was judged from x-total, and a wrong x-total blamed on the page size.
    pair: ['x-total-off-by-one', 'encoded-slash-rejected'],
    found: 'L221: a last page that disagrees with x-total breaks the headers, not the page size (L212)',
  },
  {
    // The removed-attribute checks listed feature flags and packages without page=: served an
    // empty second page, they skipped as if the target had none.
    pair: ['page-default-not-first', 'removed-attributes-present'],
    found: 'L204: the default page is its own sentence; the attribute checks ask page=1',
  },
];

describe('pairs of faults are blamed on the union of their rules', () => {
  const seed = Number(process.env.IDP_SEED ?? CI_SEED);
  it.each(PAIRS.map((p) => [`${p.pair.join(' + ')} (${p.found})`, p] as const))(
    '%s',
    async (_label, { pair, unseen = {} }) => {
      const on = pair.map((name) => faults().find((f) => f.name === name)!);
      const { report } = await runWithFaults(on, seed);
      const expected = [...new Set(on.flatMap((f) => f.rules))].filter((r) => !(r in unseen));
      expect([...blamedRules(report)].sort(), `seed ${seed}:\n${describeResults(report.checks)}`).toEqual(
        expected.sort(),
      );
      expect(report.checks.filter((c) => c.status === 'errored').map((c) => c.id)).toEqual([]);
    },
    120_000,
  );
});
