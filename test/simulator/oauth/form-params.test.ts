/**
 * The OAuth endpoints read a form body straight into their parameters, not through URLSearchParams
 * (oauth/params.ts, a tenth of a pending poll's time): whatever the body, they must read exactly what
 * URLSearchParams reads, and refuse a repeated parameter alike.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyParams, formReading } from '../../../simulator/oauth/params.js';
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

/**
 * Counted, not timed: the characters the reader's searches for `&` and `=` pass over
 * (formReading.scanned), for hostile bodies of 512 KB. Each `&` and `=` searched for once is at most
 * two passes; a reader that searched for `=` anew in each sequence counted about 64,000 passes for
 * the names without `=` (each search ran to the end).
 */
describe('a hostile form body is read in linear time (counted)', () => {
  const SIZE = 512 * 1024;
  const names = (length: number) => {
    const parts: string[] = [];
    for (let i = 0, size = 0; size < length; i++) size += parts[parts.push(`k${i}`) - 1].length + 1;
    return parts.join('&');
  };
  it.each([
    ['names without `=` (each once)', names],
    ['names without `=`, one `=` at the end', (n: number) => `${names(n)}=`],
    ['empty sequences', (n: number) => '&'.repeat(n)],
    ['one long name', (n: number) => 'a'.repeat(n)],
  ])('%s: at most two passes over the body', async (_name, attack) => {
    const text = attack(SIZE);
    formReading.scanned = 0;
    await read({ kind: 'form', text, form: undefined as never });
    expect(formReading.scanned).toBeLessThanOrEqual(2 * text.length);
  });
});
