/**
 * grants.consent-denied when the deny visit pressed no deny control and a code came back (review 9,
 * item 2): a missing premise (skipped) only when the driver pressed nothing past the sign-in and the
 * run met a consent before (the provider remembered one, prompt=consent ignored). A step the driver
 * took may have been the approval, and a run that never met a consent cannot tell a remembered one
 * from none: the harness's trouble, never a skip blaming the provider. A fake driver, no server.
 */
import { describe, expect, it } from 'vitest';
import { CheckSkipped, HarnessError } from '../../suites/runner/errors.js';
import { authorizeChecks } from '../../suites/grants/authorize.js';
import type { AuthorizeOutcome } from '../../suites/types.js';
import { FAKE_BASE, fakeCheckContext } from './fakes.js';

const check = authorizeChecks.find((c) => c.id === 'grants.consent-denied')!;

/** The check's verdict when the deny visit ends with a code and `did` (nothing decided). */
async function verdict(did: Pick<AuthorizeOutcome, 'stepped' | 'consentSeen'>) {
  const outcome: AuthorizeOutcome = {
    redirect: new URL('http://client.test/cb?code=c-1&state=consent-denied'),
    response: { status: 302 } as AuthorizeOutcome['response'],
    decided: false,
    ...did,
  };
  const t = fakeCheckContext({
    driver: { authorize: () => Promise.resolve(outcome) },
    oauth: { authorizeUrl: () => `${FAKE_BASE}/oauth/authorize?state=consent-denied` },
  });
  const error = await check.run(t).then(
    () => undefined,
    (e: unknown) => e,
  );
  return {
    kind: error instanceof CheckSkipped ? 'skipped' : error instanceof HarnessError ? 'harness' : String(error),
    message: (error as Error | undefined)?.message ?? '',
  };
}

describe('grants.consent-denied: a code handed over with no deny pressed', () => {
  it('nothing pressed past the sign-in, a consent met earlier in the run: skipped (a remembered consent)', async () => {
    const { kind, message } = await verdict({ stepped: false, consentSeen: true });
    expect(kind).toBe('skipped');
    expect(message).toMatch(/prompt=consent, which this check sends, was not honoured.*revoke it in the provider$/);
  });

  it("a step pressed or followed past the sign-in: the harness's trouble, the grant it may have made said", async () => {
    const { kind, message } = await verdict({ stepped: true, consentSeen: true });
    expect(kind).toBe('harness');
    expect(message).toMatch(/^asked to deny, the driver pressed or followed a step .*revoke it in the provider$/);
  });

  it("no consent met in the run: the harness's trouble, never a skip that lets GRANT-CONSENT pass", async () => {
    const { kind, message } = await verdict({ stepped: false, consentSeen: false });
    expect(kind).toBe('harness');
    expect(message).toMatch(/no consent was met earlier in this run.*revoke it in the provider$/);
  });
});
