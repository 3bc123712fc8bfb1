/**
 * A device page that says "approved" and never takes the approval: every poll stays
 * authorization_pending. That is device.token-response's failure (DEV-APPROVE, DEV-SUCCESS), one
 * cause with one blame: device.client-bound, whose own client's poll is then pending too, skips
 * saying so and naming where it is judged (review 18: it blamed DEV-CLIENT-BOUND).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explain, rulesWith, runWithDriver, startProvider, type Provider } from './provider.js';
import { page } from './sign-in-journey.js';

let provider: Provider;
beforeAll(async () => {
  provider = await startProvider((method, url) =>
    method === 'POST' && url.pathname === '/oauth/device'
      ? () => ({
          status: 200,
          headers: { 'content-type': 'text/html' },
          body: page('Device', '<p>Device approved. You may close this window.</p>'),
        })
      : undefined,
  );
}, 60_000);
afterAll(() => provider?.close());

describe('a device approval answered "approved" and never taken', () => {
  it('fails device.token-response alone; device.client-bound skips naming it', async () => {
    const { report, stderr } = await runWithDriver(provider, 'form', ['device.client-bound', 'device.token-response']);
    const why = explain(report, stderr);
    const bound = report.checks.find((c) => c.id === 'device.client-bound');
    expect(bound?.status, why).toBe('skipped');
    expect(bound?.message, why).toMatch(/authorization_pending[\s\S]*device\.token-response/);
    expect(report.checks.find((c) => c.id === 'device.token-response')?.status, why).toBe('failed');
    expect(rulesWith(report, 'failed', 'warned'), why).not.toContain('DEV-CLIENT-BOUND');
  }, 120_000);
});
