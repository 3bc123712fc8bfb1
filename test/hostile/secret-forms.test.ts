/**
 * Review 22: the secret index knew a secret's exact forms only, so a target that echoed one split
 * across lines, spaced, or with every character escaped as JSON (`\u0067`) or HTML (`&#103;`,
 * `&#x67;`) writes it showed it to every reader. The index now reads a text as a reader does
 * (secret-index.ts, searched). These tests place each spelling, and random mixes of them, between
 * filler at random (fixed seed) and ask for the whole stretch to be masked; a learned value does not
 * reach across the spaces of the harness's own sentences; reading stays linear in the text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mask } from '../../suites/report/redact.js';
import { createSecretIndex, escapeReading, searched } from '../../suites/report/secret-index.js';
import { createRedactor } from '../../suites/runner/redact.js';

const hex = (c: string, width: number) => c.charCodeAt(0).toString(16).padStart(width, '0');

/** One character as a reader still reads it: as it is, or escaped in one of the ways JSON and HTML write it. */
const spelled = fc.constantFrom<(c: string) => string>(
  (c) => c,
  (c) => `\\u${hex(c, 4)}`,
  (c) => `\\u${hex(c, 4).toUpperCase()}`,
  (c) => `\\\\u${hex(c, 4)}`,
  (c) => `&#${c.charCodeAt(0)};`,
  (c) => `&#000${c.charCodeAt(0)};`,
  (c) => `&#x${hex(c, 1)};`,
  (c) => `&#X00${hex(c, 1).toUpperCase()};`,
);
/** What may lie between two characters: nothing, or what the search skips. */
const between = fc.constantFrom('', ' ', '\n', '\r\n', '\t', '  ', '\\n', '\\r\\n', '\\\\n', '\u200b', ' \n ');

/** A secret (no `eyJ`, no name: no pattern masks it) and a spelling of it: each character spelled, something between each two. */
const secret = fc.array(fc.constantFrom(...'abcdefghjkmnpqrstuvwxyzABCDEFGH23456789-_.~'), {
  minLength: 10,
  maxLength: 40,
});
const written = (chars: string[], spell: Array<(c: string) => string>, gaps: string[]) =>
  chars.map((c, i) => (i ? gaps[i % gaps.length] : '') + spell[i % spell.length](c)).join('');
/** Filler the search reads as nothing of a secret: no letter, digit, `\` or `&`. */
const filler = fc
  .array(fc.constantFrom(' ', '\n', ',', '!', '(', ')', '?', '|'), { maxLength: 12 })
  .map((cs) => cs.join(''));

/** The same gap between every two characters, or a line break here and there: how a learned value may be spread. */
const evenGaps = fc.oneof(
  fc.constantFrom('', ' ', '\n', '\\n', ' \t').map((gap) => [gap]),
  fc.array(fc.constantFrom('', '', '', '\n', '\\n', '\r\n'), { minLength: 1, maxLength: 9 }),
);

describe('a secret spelled for a reader is masked whole', () => {
  it('the config’s: each character spelled any way, anything skipped between (fixed seed)', () => {
    fc.assert(
      fc.property(
        secret,
        fc.array(spelled, { minLength: 1, maxLength: 6 }),
        fc.array(between, { minLength: 1, maxLength: 6 }),
        filler,
        filler,
        (chars, spell, gaps, before, after) => {
          const value = `k9${chars.join('')}`;
          const form = written([...value], spell, gaps);
          const text = `${before}${form}${after}`;
          const [span, ...more] = createSecretIndex(6, [value]).spans(text);
          expect(more).toEqual([]);
          expect([span.start, span.end]).toEqual([before.length, before.length + form.length]);
          expect(createRedactor([value]).text(text)).toBe(`${before}${mask(value)}${after}`);
        },
      ),
      { seed: 20261127, numRuns: 400 },
    );
  });

  it('a learned one: spelled any way, spread evenly or split by line breaks (fixed seed)', () => {
    fc.assert(
      fc.property(
        secret,
        fc.array(spelled, { minLength: 1, maxLength: 6 }),
        evenGaps,
        filler,
        filler,
        (chars, spell, gaps, before, after) => {
          const value = `k9${chars.join('')}`;
          const index = createSecretIndex(6);
          expect(index.add(value)).toBe(true);
          const form = written([...value], spell, gaps);
          const [span] = index.spans(`${before}${form}${after}`);
          expect(span && [span.start, span.end]).toEqual([before.length, before.length + form.length]);
        },
      ),
      { seed: 20261127, numRuns: 300 },
    );
  });

  it('each form of review 22 in a JSON body quoted in a message, learned as a token', () => {
    const token = 'gloas-UzKW7yTq0FEjMa9c3bPq';
    const forms = [
      `${token.slice(0, 13)}\n${token.slice(13)}`,
      [...token].join('\n'),
      [...token].join(' '),
      [...token].map((c) => `\\u${hex(c, 4)}`).join(''),
      [...token].map((c) => `&#${c.charCodeAt(0)};`).join(''),
      [...token].map((c) => `&#x${hex(c, 1)};`).join(''),
      // Without `;`, as a browser still reads it where no digit follows.
      [...token].map((c) => `&#${c.charCodeAt(0)}`).join(''),
    ];
    const r = createRedactor([]);
    r.remember(token);
    for (const form of forms) {
      const body = JSON.stringify({ error: 'invalid_grant', error_description: `you sent ${form}` });
      const shown = r.text(`the token endpoint said ${body}`);
      expect(shown).toBe(`the token endpoint said {"error":"invalid_grant","error_description":"you sent gloa…"}`);
    }
  });
});

describe('a learned value does not reach across the spaces of a sentence', () => {
  it.each([
    ['didnotfinish', 'the check did not finish'],
    ['nothingwasseen', 'nothing was seen; the check did not finish'],
    ['status401within', 'expected status 401 within 15000 ms'],
    ['k9ab12cd34ef', 'k9ab12 cd34ef'],
  ])('%j in %j', (value, sentence) => {
    const r = createRedactor([]);
    r.remember(value);
    expect(r.text(sentence)).toBe(sentence);
    // Evenly spread, or split by a line, it is the value.
    expect(r.text([...value].join(' '))).toBe(mask(value));
    expect(r.text(`${value.slice(0, 5)}\n${value.slice(5)}`)).toBe(mask(value));
  });

  it('the config’s secret is masked however spaced: a space inside is no sentence of the harness', () => {
    expect(createRedactor(['k9ab12cd34ef']).text('sent k9ab12 cd34ef back')).toBe('sent k9ab… back');
  });

  it('a short config secret standing alone still stands alone where a space or a line parts it', () => {
    expect(createRedactor(['ab1']).text('password ab1\nnot ab12 or cab1')).toBe('password …\nnot ab12 or cab1');
  });
});

describe('reading a text stays linear in its length', () => {
  /** Escapes begun and never finished, at every position: a reading that retried each from every backslash or zero would be quadratic. */
  const hostile = ['\\', '\\\\\\\\\\u00', '&#0000000000', '&#x000000', ' \u200b\\n'];

  it.each(hostile)(
    '%j repeated over 16 KiB: an escape is tried once a backslash run or `&`, never twice in one',
    (unit) => {
      const text = unit.repeat(Math.ceil((16 * 1024) / unit.length));
      // Where a try may start: each `&`, and the first backslash of each run (each try reads its run once).
      const starts = (text.match(/\\+|&/g) ?? []).length;
      escapeReading.attempts = 0;
      searched(text);
      expect(escapeReading.attempts).toBeGreaterThan(0);
      expect(escapeReading.attempts).toBeLessThanOrEqual(starts);
    },
  );
});
