/**
 * Levels follow the strongest source (DESIGN.md), over the whole catalogue: a rule the source
 * states is must or info (the source's own sentence; never should, which is the RFCs' and the real
 * service's word); documented behaviour is at most should; a rule whose force comes from an RFC or
 * a standard records the RFC 2119 word of its sentence (`modal`), and is must exactly when that
 * word is MUST, MUST NOT, REQUIRED, SHALL or SHALL NOT, or is `ABNF`: the rule judges a value
 * against the standard's normative grammar (RFC 6749 Appendix A), and a value outside it is no
 * value of that parameter, as binding as a MUST. Where a level departs from its word, the rule
 * says why (`levelWhy`, in spec/rules.yaml); a reason where nothing departs is stale.
 *
 * What this proves: the level and the recorded word agree (that the word is one of RFC 2119's, or
 * ABNF or none, spec/rules.schema.json enforces when the spec loads). What it cannot prove: that
 * the word is the one the RFC's sentence carries. Both fields are written by hand from the same
 * reading, so a misread sentence (a RECOMMENDED recorded where the RFC says MUST) passes here;
 * only a reader with the RFC's text catches it.
 */
import { describe, expect, it } from 'vitest';
import { rules, type Rule } from '../../spec/index.js';

const BINDING = ['MUST', 'MUST NOT', 'REQUIRED', 'SHALL', 'SHALL NOT', 'ABNF'];
const fromRfc = (r: Rule) => r.origin !== 'source' && r.origin !== 'documented';
/** What a rule's sentence makes of it: its source's, or its RFC's word. */
const levelOf = (r: Rule): 'must' | 'not must' =>
  r.origin === 'source' || BINDING.includes(r.modal ?? '') ? 'must' : 'not must';
/** A level agrees with the word when both are must, or neither is (should and info alike). */
const agrees = (r: Rule) =>
  (r.level === 'must') === (levelOf(r) === 'must') || (r.origin === 'source' && r.level === 'info');

describe('each level is the one its sentence gives', () => {
  const catalogue = rules();

  it('a rule of an RFC or standard names the word of its sentence; no other rule does', () => {
    expect(catalogue.filter((r) => fromRfc(r) && r.modal === undefined).map((r) => r.id)).toEqual([]);
    expect(catalogue.filter((r) => !fromRfc(r) && r.modal !== undefined).map((r) => r.id)).toEqual([]);
  });

  it('a rule the source states is must or info, documented behaviour at most should', () => {
    expect(catalogue.filter((r) => r.origin === 'source' && r.level === 'should').map((r) => r.id)).toEqual([]);
    expect(catalogue.filter((r) => r.origin === 'documented' && r.level === 'must').map((r) => r.id)).toEqual([]);
  });

  it('every level agrees with its sentence, or says why not', () => {
    const departing = catalogue
      .filter((r) => !agrees(r) && r.levelWhy === undefined)
      .map((r) => `${r.id}: ${r.level}, but its sentence says ${r.modal ?? 'it (the source)'}`);
    expect(departing).toEqual([]);
  });

  it('a reason stands only where the level departs', () => {
    expect(catalogue.filter((r) => r.levelWhy !== undefined && agrees(r)).map((r) => r.id)).toEqual([]);
  });
});
