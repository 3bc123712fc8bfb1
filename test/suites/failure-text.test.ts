/**
 * The failure-text witness itself (failure-text.ts) can fail: it sees the secrets the simulator
 * hands out through the embedded target, so a secret in a rendered report is caught, and a word the
 * report masked because it held one is not counted as lost. What it says when it fails masks them too.
 */
import { describe, expect, it } from 'vitest';
import { mintPair } from '../../suites/shared/oauth.js';
import { runConformance } from '../../suites/runner/run.js';
import type { Check } from '../../suites/types.js';
import { witness } from './failure-text.js';

/** A check that fails saying the access token it was issued, as a careless check might. */
function saysItsToken(seen: { token?: string }): Check {
  return {
    id: 'tokens.says-its-token',
    suite: 'tokens',
    title: 'fails naming the token it minted',
    rules: ['INFO-ALIAS-SCOPES'],
    async run(t) {
      const { tokens } = await mintPair(t, 'confidential');
      seen.token = tokens.access_token;
      t.soft(false, `the token ${tokens.access_token} was refused`);
    },
  };
}

describe('the failure-text witness', () => {
  it('knows the secrets of the embedded target: a masked secret is no lost word, a shown one is a leak', async () => {
    const seen: { token?: string } = {};
    const run = await witness([], [saysItsToken(seen)]);
    const report = await runConformance({ target: run.target, checks: run.checks, seed: 7, numRuns: 1 });
    const [result] = report.checks;
    expect(result.status, result.message).toBe('failed');
    expect(seen.token).toMatch(/^[0-9a-f]{64}$/);
    expect(result.message).not.toContain(seen.token);
    // The report masked the token the check said: that is redaction, not a lost word.
    expect(() => run.verify(report)).not.toThrow();
    // The same report with the token shown whole leaks it; one that drops words loses them. Either
    // failure goes to the test log, so it names the token masked.
    const failure = (shown: string) => {
      try {
        run.verify({ ...report, checks: [{ ...result, message: shown }] });
      } catch (error) {
        return (error as Error).message;
      }
      return 'no failure';
    };
    const leak = failure(`the token ${seen.token} was refused`);
    expect(leak).toMatch(/secrets in a rendered report/);
    expect(leak).toContain(`${seen.token!.slice(0, 4)}… in the json report`);
    const lost = failure('the token');
    expect(lost).toMatch(/lost words/);
    for (const text of [leak, lost]) expect(text).not.toContain(seen.token);
  });
});
