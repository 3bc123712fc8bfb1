/**
 * The run learns the secrets it meets (tokens in answers, codes in a Location) to mask them
 * wherever they turn up, and every text a report shows was searched for each of them. A target
 * that answers with a Location of 14,000 `code=` pairs on every answer taught them all: 3.6
 * million strings with their encoded forms, a run that had not ended in 7 minutes (4 s without
 * the flood). What one exchange offers and what the run keeps are now bounded, the config's own
 * secrets are never forgotten, and a text is searched once for all of them: the comparisons grow
 * with the text, not with the number of secrets.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Exchange } from '../../suites/report/model.js';
import { createRedactor, LEARNED_MAX, LEARNED_PER_EXCHANGE } from '../../suites/runner/redact.js';
import { BUCKET, createSecretIndex } from '../../suites/report/secret-index.js';

/**
 * A secret's strings in the index at most: itself, its base64 and base64url cores (six), its URI,
 * form, %xx and hex encodings (four), and its JSON forms (six: escaped as JSON.stringify and as
 * PHP's json_encode write it, each alone and quoted again by either; encodedForms).
 */
const FORMS = 17;
const CONFIG_SECRET = 'config-client-secret-4f9a';

/** The n-th code of flood `round`: fresh values, each with its own ending, so each could be learned. */
const code = (round: number, n: number) =>
  createHash('sha256').update(`${round}/${n}`).digest('base64url').slice(0, 20);

/** An answer whose Location carries `pairs` codes, and whose JSON body offers as many tokens. */
function flood(round: number, pairs = 2000): Exchange {
  const codes = Array.from({ length: pairs }, (_, n) => code(round, n));
  return {
    request: { method: 'GET', url: 'http://127.0.0.1:1/oauth/authorize', headers: {} },
    response: {
      status: 302,
      headers: { location: `/cb?${codes.map((c) => `code=${c}`).join('&')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ token: codes.slice(0, 1000) }),
    },
  };
}

/** Calls of the string searches a redaction makes while `run` runs. */
function comparisons(run: () => void): number {
  const spies = (['includes', 'startsWith', 'indexOf'] as const).map((name) => vi.spyOn(String.prototype, name));
  try {
    run();
    return spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
  } finally {
    spies.forEach((spy) => spy.mockRestore());
  }
}

afterEach(() => vi.restoreAllMocks());

describe('what a target can make the run remember', () => {
  it(`one exchange offers at most ${LEARNED_PER_EXCHANGE} values, the run keeps at most ${LEARNED_MAX}`, () => {
    const redactor = createRedactor([CONFIG_SECRET]);
    const pinned = redactor.size;
    redactor.learn(flood(0));
    expect(redactor.size - pinned).toBeLessThanOrEqual(LEARNED_PER_EXCHANGE * FORMS);
    // A code far into the flood was not learned: it is shown as the target sent it.
    expect(redactor.text(`saw ${code(0, 1500)}`)).toBe(`saw ${code(0, 1500)}`);
    for (let round = 1; round <= (LEARNED_MAX / LEARNED_PER_EXCHANGE) * 1.5; round++) redactor.learn(flood(round, 40));
    expect(redactor.size - pinned).toBeLessThanOrEqual(LEARNED_MAX * FORMS);
  });

  it("never forgets the config's secrets, and still learns a token after a flood", () => {
    const redactor = createRedactor([CONFIG_SECRET]);
    for (let round = 0; round < (LEARNED_MAX / LEARNED_PER_EXCHANGE) * 1.5; round++) redactor.learn(flood(round, 40));
    const token = 'tok-after-the-flood-8c1e2d';
    redactor.learn({
      request: { method: 'POST', url: 'http://127.0.0.1:1/oauth/token', headers: {} },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ access_token: token }),
      },
    });
    const shown = redactor.text(`echoed ${CONFIG_SECRET} and ${token} in prose`);
    expect(shown).not.toContain(CONFIG_SECRET);
    expect(shown).not.toContain(token);
  });

  it('a text is searched once for all of them: the comparisons grow with the text, not the secrets', () => {
    const redactor = createRedactor([CONFIG_SECRET]);
    // 200 answers of 40 codes: 8,000 values, tens of thousands of strings with their encoded forms.
    for (let round = 0; round < 200; round++) redactor.learn(flood(round, 40));
    const learned = code(3, 5);
    const text = `saw ${learned} and ${CONFIG_SECRET} in ${'x'.repeat(2000)}`;
    let shown = '';
    const made = comparisons(() => (shown = redactor.text(text)));
    expect(made).toBeLessThan(text.length);
    expect(shown).not.toContain(learned);
    expect(shown).not.toContain(CONFIG_SECRET);
    expect(redactor.size).toBeGreaterThan(text.length * 10);
  });
});

describe('the secret index', () => {
  it('finds every occurrence, overlapping ones as one span, leftmost and longest first', () => {
    const index = createSecretIndex(3, ['abcdef', 'defghi', 'xyz123']);
    expect(index.spans('..abcdefghi..xyz123.abcdef')).toEqual([
      { start: 2, end: 11, secret: 'abcdef' },
      { start: 13, end: 19, secret: 'xyz123' },
      { start: 20, end: 26, secret: 'abcdef' },
    ]);
    expect(index.spans('nothing here')).toEqual([]);
  });

  it(`takes at most ${BUCKET} values sharing their ending, but every pinned one`, () => {
    const index = createSecretIndex(6);
    const same = Array.from({ length: 3 * BUCKET }, (_, n) => `${n}-value-ending-same`);
    expect(same.filter((v) => index.add(v)).length).toBe(BUCKET);
    index.delete(same[0]);
    expect(index.add(same[BUCKET])).toBe(true);
    expect(index.add('pinned-ending-same', true)).toBe(true);
    expect(index.spans(`a pinned-ending-same b`)).toEqual([{ start: 2, end: 20, secret: 'pinned-ending-same' }]);
  });
});
