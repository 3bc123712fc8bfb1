/**
 * Every state the harness sends is at least STATE_MIN (8) characters by construction (review 18): a
 * provider may refuse a shorter one as too weak (Ory Hydra's invalid_state) and the harness's own
 * choice must never fail a check. Each maker is property-tested, and no check makes a state of its
 * own: a state written in suites/ as a literal (`state: '…'`, `const state = '…'`) is a maker this
 * file does not cover. Before, `scope-${at}` was 7 characters for at < 10 (test/providers/short-state).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRandom } from '../../suites/runner/random.js';
import { namedState, randomState, STATE_MIN, stateArbitrary } from '../../suites/runner/state.js';

const SUITES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'suites');

describe('the state makers', () => {
  it('namedState: any name, of any length, gives a state of at least 8 characters that starts with it', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (name) => {
        const state = namedState(name);
        expect(state.length).toBeGreaterThanOrEqual(STATE_MIN);
        expect(state.startsWith(name)).toBe(true);
      }),
      { seed: 18, numRuns: 200 },
    );
    expect(STATE_MIN).toBe(8);
  });

  it('randomState and the drawn states are at least 8 characters', () => {
    fc.assert(
      fc.property(fc.nat(), stateArbitrary(), (seed, drawn) => {
        expect(randomState(createRandom(seed)).length).toBeGreaterThanOrEqual(STATE_MIN);
        expect(drawn.length).toBeGreaterThanOrEqual(STATE_MIN);
      }),
      { seed: 18, numRuns: 200 },
    );
  });

  it('no check writes a state of its own (every state comes from runner/state.ts)', () => {
    const files = readdirSync(SUITES, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    // A playwright locator's `state: 'visible'` is an element's, no OAuth state.
    const own = /\bstate\s*(?::|=)\s*['"`](?!(visible|hidden|attached|detached)')|\bstate\s*(?::|=)\s*random\./;
    const found = files.flatMap((f) =>
      readFileSync(join(SUITES, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (own.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
