/**
 * A consent page whose only control is "Continue" (it approves; no Cancel, no Deny): asked to deny,
 * neither driver presses it: the provider issues no code, and grants.consent-denied errs saying the
 * page offers no way to deny, never a failure of the provider. Asked to approve (grants.state-unchanged,
 * in a run after it), the same page approves. Before, both drivers pressed it as a step on the deny
 * visit: the application was granted on the configured user's account and the must failed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { checksWith, explain, PAGE_DRIVERS, runWithDriver } from './provider.js';
import { journeyProvider, type JourneyProvider } from './sign-in-journey.js';

const servers: JourneyProvider[] = [];
afterAll(async () => Promise.all(servers.map((s) => s.close())));

describe('a consent page whose one button is "Continue"', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: the denial presses nothing (no code issued, the check errs saying why); the approval approves',
    async (kind) => {
      const provider = await journeyProvider({
        decisions: '<button type="submit" name="choice" value="1">Continue</button>',
      });
      servers.push(provider);
      const denial = await runWithDriver(provider, kind, ['grants.consent-denied']);
      const why = explain(denial.report, denial.stderr);
      expect(provider.decided, why).toEqual({ approve: 0, deny: 0 });
      expect(checksWith(denial.report, 'errored'), why).toEqual(['grants.consent-denied']);
      expect(denial.report.checks[0]?.message, why).toMatch(
        /asked to deny, the page at \/oauth\/authorize offers no way to deny: its only control goes on \(Continue\), which may be the approval \(names the scope .* it asks for\); nothing was pressed, so the denial is not tested$/,
      );
      const approval = await runWithDriver(provider, kind, ['grants.state-unchanged']);
      expect(checksWith(approval.report, 'passed'), explain(approval.report, approval.stderr)).toEqual([
        'grants.state-unchanged',
      ]);
      expect(provider.decided.approve).toBeGreaterThan(0);
    },
    120_000,
  );
});
