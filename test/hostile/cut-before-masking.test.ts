/**
 * A hostile message of 900 KB took about a second to mask: masked whole, then cut to the 2,000
 * characters a report shows. describeFailure now cuts a long text first, as far past what it shows
 * as the redactor's reach (its longest secret in any form) and the patterns' bounded looks, masks
 * that, and drops the masked image of what lay past the part it keeps (maskedHead). These tests
 * prove the cut shows no more of a secret than masking the whole did, wherever the cut falls, and
 * that the masking work no longer grows with the message.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeFailure, MAX_MESSAGE, MAX_QUOTED, PATTERN_REACH } from '../../suites/report/cut.js';
import { encodedForms, KEPT_PREFIX } from '../../suites/report/redact.js';
import { pastSearched, secretMatching } from '../../suites/report/secret-index.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { reading } from './reading.js';

/** Letters and digits the filler never has: a secret's characters are found only where a secret was put. */
const secretChar = fc.constantFrom(...'abcdefghjkm23456789');
/** Secrets short, and longer than the patterns' bounded looks (PATTERN_REACH): there only the redactor's reach keeps the cut far enough. */
const secretOf = fc
  .oneof(
    fc.array(secretChar, { minLength: 12, maxLength: 60 }),
    fc.array(secretChar, { minLength: 2200, maxLength: 2600 }),
  )
  .map((cs) => `k9${cs.join('')}`);
/** Filler: spaces and punctuation no pattern reads (no letters, digits, quotes, `=` or `:`). */
const filler = fc
  .array(fc.constantFrom(' ', ',', '.', '!', '?', '~', '(', ')'), { maxLength: 40 })
  .map((cs) => cs.join(''));

/**
 * The forms of `secret` a message may carry: as it is, upper-cased (the search ignores case),
 * encoded, invisibly split, and as review 22's target wrote it for a reader (split by a line, one
 * character a line, spaced, every character a JSON or HTML escape).
 */
const spelled = (secret: string) => [
  `${secret.slice(0, secret.length >> 1)}\n${secret.slice(secret.length >> 1)}`,
  [...secret].join('\n'),
  [...secret].join(' '),
  [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
  [...secret].map((c) => `&#${c.charCodeAt(0)};`).join(''),
  [...secret].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join(''),
];
const formsOf = (secret: string) => [
  secret,
  secret.toUpperCase(),
  ...encodedForms(secret),
  [...secret].join('\u200b'),
  ...spelled(secret),
];

/** Whether `shown` gives away more of any form of `secret` than a mask's kept prefix (case ignored, invisible characters left out, escapes read). */
const leaks = (shown: string, secret: string) => {
  const seen = shown.replace(/\u200b/g, '').toLowerCase();
  if (reading(shown).includes(secret.toLowerCase().slice(0, KEPT_PREFIX + 1))) return true;
  return formsOf(secret).some((form) =>
    seen.includes(
      form
        .replace(/\u200b/g, '')
        .toLowerCase()
        .slice(0, KEPT_PREFIX + 1),
    ),
  );
};

describe('a long message is cut before it is masked, and shows no more of a secret', () => {
  it('a secret the cut goes through, with copies of it before (masks that make the text shorter, so the shown part reaches the cut), is masked (fixed seed)', () => {
    fc.assert(
      fc.property(
        secretOf,
        fc.array(fc.oneof(filler, fc.nat(5)), { minLength: 40, maxLength: 400 }),
        fc.nat(5),
        fc.nat(120),
        fc.boolean(),
        (secret, parts, which, back, inDetails) => {
          const redactor = createRedactor([secret]);
          const forms = formsOf(secret);
          const keep = inDetails ? MAX_QUOTED : MAX_MESSAGE;
          // The copies before: each masked to a few characters, so the masked text's end is in view.
          let head = parts.map((p) => (typeof p === 'number' ? forms[p % forms.length] : p)).join(' ');
          // Where the cut goes (as many characters past `keep` as the search reads them), and the form placed across it.
          head += '.'.repeat(2 * (keep + redactor.reach + PATTERN_REACH));
          const cutAt = pastSearched(head, keep, redactor.reach + PATTERN_REACH);
          const form = forms[which % forms.length];
          const at = Math.max(0, cutAt - Math.min(back, form.length - 1));
          const text = `${head.slice(0, at)}${form}${'.'.repeat(3 * PATTERN_REACH)}`;
          const shown = inDetails
            ? describeFailure({ message: 'm', details: { said: text } }, redactor)
            : describeFailure({ message: text }, redactor);
          expect(leaks(shown, secret)).toBe(false);
          expect(shown).toMatch(/more characters\)/);
        },
      ),
      { seed: Number(process.env.FC_SEED ?? 20261127), numRuns: 150 },
    );
  });

  // Patterns that read on without bound: the cut interrupts them, and what they began is masked still.
  const long = 'Qz7'.repeat(40_000);
  it.each([
    ['a quoted secret-named value', `"access_token": "${long}"`],
    ['a single-quoted one', `access_token='${long}'`],
    ['a JWT before its dots', `id_token eyJ${long}.e30.sig`],
    ["a URL's password before its @", `see https://user:${long}@example.test/`],
    ['a word after `code:` that goes on as a credential', `code: ${'Qz'.repeat(60_000)}7`],
  ])('%s', (_name, text) => {
    const redactor = createRedactor([]);
    const whole = redactor.text(text);
    // Masked whole, none of it is shown.
    expect(whole).not.toContain('Qz7Qz7');
    expect(whole.includes('QzQzQz')).toBe(false);
    const shown = describeFailure({ message: text }, redactor);
    expect(shown).not.toContain('Qz7Qz7');
    expect(shown).not.toContain('QzQzQz');
    expect(shown).toMatch(/\(\+\d+ more characters\)$/);
  });
});

describe('the masking work of a long message is bounded', () => {
  /** Matching steps of the secret index to describe a message of `size` characters, as a run shows it. */
  const steps = (size: number, inDetails = false) => {
    const redactor = createRedactor(['Hunter2-Config-Password']);
    for (let n = 0; n < 50; n++) redactor.remember(`tok${n}Xq9zLmN8pQ${'r7'.repeat(n)}`);
    const text = `the token endpoint said ${'error: bad tok7Xq9zLmN8pQ r7 '.repeat(size / 30)}`;
    secretMatching.steps = 0;
    const shown = inDetails
      ? describeFailure({ message: 'm', details: { said: text } }, redactor)
      : describeFailure({ message: text }, redactor);
    expect(shown.length).toBeLessThan(MAX_MESSAGE + 100);
    return { steps: secretMatching.steps, bound: 4 * (MAX_MESSAGE + redactor.reach + PATTERN_REACH) };
  };

  it.each([false, true])(
    'a 900 KB message (in details: %s) costs steps for what is kept, not for its length',
    (inDetails) => {
      const big = steps(900_000, inDetails);
      // Masked whole, the index took a step or more a character: 900,000 and more.
      expect(big.steps).toBeLessThan(big.bound);
      expect(steps(1_800_000, inDetails).steps).toBe(big.steps);
    },
  );

  it("a provider's 900 KB quoted `error` is cut as a quoted value, what the cut left out counted once", () => {
    const shown = describeFailure(
      { message: `the endpoint said ${JSON.stringify({ error: 'Z'.repeat(900_000), error_description: 'x' })}` },
      createRedactor([]),
    );
    const [, kept, more] = /^the endpoint said \{"error":"(Z+)…" \(\+(\d+) more characters\)$/.exec(shown) ?? [];
    expect(kept.length).toBeLessThanOrEqual(MAX_QUOTED);
    expect(kept.length + Number(more)).toBe(900_000 + '","error_description":"x"}'.length);
  });
});
