/**
 * A consent with a required "I agree" box beside Authorize and Deny (review 9, item 1): asked to
 * deny, both drivers press Deny there. The page is the decision, never an agreement step (terms of
 * use) whose box is ticked and whose Authorize is pressed: that would grant the application on the
 * configured user's account, and the deny check would then blame the provider. With Authorize alone
 * beside the box, on a page naming the grant, the agreement step is a step that may approve: not
 * pressed, the denial untested (the harness's limit), nothing granted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { checksWith, explain, PAGE_DRIVERS, runWithDriver } from './provider.js';
import { journeyProvider, type JourneyProvider } from './sign-in-journey.js';

const servers: JourneyProvider[] = [];
afterAll(async () => Promise.all(servers.map((s) => s.close())));

describe('a consent with a required agree box', () => {
  it.each(PAGE_DRIVERS)('%s driver: the deny visit presses Deny, approving nothing', async (kind) => {
    const provider = await journeyProvider({
      decisions:
        '<label><input type="checkbox" name="agree" required> I agree to share my data</label>' +
        '<button type="submit" name="choice" value="1">Authorize</button>' +
        '<button type="submit" name="choice" value="0">Deny</button>',
    });
    servers.push(provider);
    const denial = await runWithDriver(provider, kind, ['grants.consent-denied']);
    const why = explain(denial.report, denial.stderr);
    expect(provider.decided, why).toEqual({ approve: 0, deny: 1 });
    expect(denial.report.checks[0]?.status, why).toBe('passed');
  });

  it.each(PAGE_DRIVERS)('%s driver: with Authorize alone, the deny visit presses nothing', async (kind) => {
    const provider = await journeyProvider({
      decisions:
        '<p>Sample App would like to access your account</p>' +
        '<label><input type="checkbox" name="agree" required> I agree to share my data</label>' +
        '<button type="submit" name="choice" value="1">Authorize</button>',
    });
    servers.push(provider);
    const denial = await runWithDriver(provider, kind, ['grants.consent-denied']);
    const why = explain(denial.report, denial.stderr);
    expect(provider.decided, why).toEqual({ approve: 0, deny: 0 });
    expect(checksWith(denial.report, 'errored'), why).toEqual(['grants.consent-denied']);
  });
});
