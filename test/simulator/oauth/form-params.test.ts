/**
 * The OAuth endpoints read a form body straight into their parameters, not through URLSearchParams
 * (oauth/params.ts, a tenth of a pending poll's time): whatever the body, they must read exactly what
 * URLSearchParams reads, and refuse a repeated parameter alike.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyParams } from '../../../simulator/oauth/params.js';
import { OAuthError } from '../../../simulator/oauth/errors.js';
import type { Ctx, ParsedBody } from '../../../simulator/types.js';

/** What a handler gets from `text`, or the error code it answers. */
async function read(body: ParsedBody): Promise<[string, string][] | string> {
  try {
    return [...(await bodyParams({ body: async () => body } as unknown as Ctx))];
  } catch (error) {
    if (error instanceof OAuthError) return `${error.error}: ${error.description}`;
    throw error;
  }
}

/** Pieces of a form body that matter to its parsing, and text between them. */
const piece = fc.oneof(
  fc.constantFrom('&', '=', '+', '%', '%2', '%20', '%2B', '%26', '%3D', '%C3%A9', '%FF', '%ED%A0%80', '%00', 'a', 'b'),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);

describe('a form body read into OAuth parameters', () => {
  it('is read as URLSearchParams reads it, a repeated name refused alike (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 24 }), async (pieces) => {
        const text = pieces.join('');
        const fast = await read({ kind: 'form', text, form: new URLSearchParams(text) });
        const reference = await read({ kind: 'form', form: new URLSearchParams(text) });
        expect(fast).toEqual(reference);
      }),
      { seed: 20261126, numRuns: 2000 },
    );
  });

  it('examples: plus, escapes, empty sequences, a bare name, a stray percent, a repeat', async () => {
    const form = (text: string) => read({ kind: 'form', text, form: new URLSearchParams(text) });
    expect(await form('a=1+2&&b&c=%2B%26&d=100%')).toEqual([
      ['a', '1 2'],
      ['b', ''],
      ['c', '+&'],
      ['d', '100%'],
    ]);
    expect(await form('client_id=x&client_id=x')).toBe(
      'invalid_request: The parameter client_id was sent more than once',
    );
  });
});

/** The fastest of 15 rounds of `times` reads: the other worker's load only ever slows a round. */
async function best(text: string, times: number): Promise<number> {
  let fastest = Infinity;
  for (let round = 0; round < 15; round++) {
    const start = process.hrtime.bigint();
    // The reference reading is never asked for: only the direct one is timed.
    for (let i = 0; i < times; i++) await read({ kind: 'form', text, form: undefined as never });
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - start));
  }
  return fastest;
}

describe('a hostile form body is read in linear time (timed as a ratio, as test/hostile/redos.test.ts)', () => {
  it('names without `=` (each once): 512 KB once against 32 KB sixteen times, about 1 (quadratic: 16)', async () => {
    const names = (length: number) => {
      const parts: string[] = [];
      for (let i = 0, size = 0; size < length; i++) size += parts[parts.push(`k${i}`) - 1].length + 1;
      return parts.join('&');
    };
    const small = names(32 * 1024);
    const large = names(512 * 1024);
    await best(large, 1);
    const ratio = (await best(large, 1)) / (await best(small, 16));
    // Below 6, not 4: a Map of 60,000 names costs more per name than sixteen of 4,000 (its growth,
    // the cache), and two whole runs on a loaded machine measured 4.06 and 4.27; quadratic is 16.
    expect(ratio, `ratio ${ratio.toFixed(2)}`).toBeLessThan(6);
  });
});
