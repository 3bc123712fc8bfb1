/**
 * One cause, one blame, under several causes at once: the compounds of corpus deviations
 * (compounds.ts) and the pairs of simulator faults that exposed an interaction when
 * `npm run explore:compounds` and `npm run explore:pairs` ran them (a part that left another
 * check without its premise, or stopped a check before it judged another part's sentence). Each
 * must fail or warn exactly the union of its parts' rules, with no check errored.
 */
import { describe, it } from 'vitest';
import { COMPOUNDS, compoundDeviation } from './compounds.js';
import { expectBlamed } from './corpus.js';
import { proxyForTests } from './oauth-proxy.js';

const proxy = proxyForTests();

/** The compounds that exposed something, and what it was (the fix is in the commit that added each). */
const EXPOSED: Record<string, string> = {
  // The harness's own authorization requests carried no state, so a provider that requires one
  // refused every code flow of the run: its other deviations (refresh grace, token lifetime) unseen.
  Okta: 'L17: the client sends state with each authorization request',
};

describe('compound deviations are blamed on the union of their parts', () => {
  it.each(COMPOUNDS.filter((c) => c.name in EXPOSED).map((c) => [`${c.name} (${EXPOSED[c.name]})`, c] as const))(
    '%s',
    (_label, compound) => expectBlamed(proxy(), compoundDeviation(compound)),
    120_000,
  );
});
