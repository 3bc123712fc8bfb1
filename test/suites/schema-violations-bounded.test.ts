/**
 * A schema failure lists a bounded number of violations (review 29, defect 1): a password grant
 * answered with 50,000 extra members (600 KB, far under --max-body) made one problem each,
 * deduplicated by scanning the list so far, and the check ran 159 s with its time limit,
 * --deadline and signals all waiting on it. Judged on what is recorded, never on time: the failure
 * names the same rule, its first violations and how many more, and the body's first members.
 */
import { describe, expect, it } from 'vitest';
import { expectSchema } from '../../suites/grants/schemas.js';
import type { CheckContext } from '../../suites/types.js';

interface Soft {
  ok: boolean;
  message: string;
  details?: { rules?: string[]; problems?: string[]; fields?: string[] | string };
}

function recorder(): { t: CheckContext; softs: Soft[] } {
  const softs: Soft[] = [];
  const t = {
    soft: (ok: unknown, message: string, details?: Soft['details']) => {
      softs.push({ ok: Boolean(ok), message, details });
      return Boolean(ok);
    },
  } as unknown as CheckContext;
  return { t, softs };
}

const token = { access_token: 'a'.repeat(40), token_type: 'bearer', expires_in: 7200 };

describe('a schema failure of many violations', () => {
  it('50,000 extra members: one failure of the shape rule, 10 listed and the count of the rest', () => {
    const body: Record<string, unknown> = { ...token };
    for (let i = 0; i < 50_000; i++) body[`m${i}`] = 1;
    const { t, softs } = recorder();
    const ok = expectSchema(t, body, 'PasswordTokenResponse', 'the token response', ['TOK-PASSWORD-RESPONSE-FIELDS']);
    expect(ok).toBe(false);
    const failed = softs.filter((s) => !s.ok);
    expect(failed).toHaveLength(1);
    const problems = failed[0].details?.problems ?? [];
    expect(problems).toHaveLength(11);
    expect(problems.slice(0, 2)).toEqual(['carries m0, which it must not', 'carries m1, which it must not']);
    expect(problems[10]).toBe('and 49990 more');
    expect(failed[0].message).toMatch(
      /carries m9, which it must not; and 49990 more \(schema PasswordTokenResponse\)$/,
    );
    const fields = failed[0].details?.fields as string[];
    expect(fields).toHaveLength(51);
    expect(fields.at(-1)).toBe(`… ${Object.keys(body).length - 50} more`);
  });

  it('a few violations are all listed, each once', () => {
    const { t, softs } = recorder();
    expectSchema(t, { ...token, extra: 1, other: 2 }, 'PasswordTokenResponse', 'the token response', [
      'TOK-PASSWORD-RESPONSE-FIELDS',
    ]);
    const failed = softs.filter((s) => !s.ok);
    expect(failed[0].details?.problems).toEqual([
      'carries extra, which it must not',
      'carries other, which it must not',
    ]);
    expect(failed[0].details?.fields).toEqual([...Object.keys(token), 'extra', 'other']);
  });
});
