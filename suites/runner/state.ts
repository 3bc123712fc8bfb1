/**
 * The states the harness sends (L17), each at least STATE_MIN characters by construction: a
 * provider may refuse a shorter one as too weak (Ory Hydra's invalid_state, fosite's minimum
 * parameter entropy of 8), and the harness's own choice must never fail a check. Every state is
 * made here (test/suites/states.test.ts holds suites/ to it).
 */
import fc from 'fast-check';
import { VERIFIER_ALPHABET, type Random } from './random.js';

export const STATE_MIN = 8;
/** A client's random state: well beyond the minimum, as a non-guessable one is (RFC 6749 §10.12). */
const STATE_LENGTH = 24;

/** A state naming the request that sends it (read in a log), padded to STATE_MIN if short. */
export const namedState = (name: string): string => name.padEnd(STATE_MIN, '_');

/** A client's random state, drawn from the run's seed. */
export const randomState = (random: Random): string => random.string(STATE_LENGTH, VERIFIER_ALPHABET);

/** Any state a client may send, for a property: graphemes, STATE_MIN of them at least. */
export const stateArbitrary = (maxLength = 40) => fc.string({ unit: 'grapheme', minLength: STATE_MIN, maxLength });
