/**
 * A consent with a required "I agree" box beside Authorize and Deny (review 9, item 1): asked to
 * deny, both drivers press Deny there. The page is the decision, never an agreement step (terms of
 * use) whose box is ticked and whose Authorize is pressed: that would grant the application on the
 * configured user's account, and the deny check would then blame the provider. With Authorize alone
 * beside the box, on a page naming the grant, the agreement step is a step that may approve: not
 * pressed, the denial untested (the harness's limit), nothing granted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { explain, PAGE_DRIVERS, runWithDriver } from './provider.js';
import { journeyProvider, type JourneyProvider } from './sign-in-journey.js';

const AGREE = '<label><input type="checkbox" name="agree" required> I agree to share my data</label>';
const AUTHORIZE = '<button type="submit" name="choice" value="1">Authorize</button>';
const PAGES = {
  'Authorize and Deny': `${AGREE}${AUTHORIZE}<button type="submit" name="choice" value="0">Deny</button>`,
  'Authorize alone': `<p>Sample App would like to access your account</p>${AGREE}${AUTHORIZE}`,
};

/** One provider a page, both drivers on it (each driver its own cookie jar). */
const providers = new Map<string, JourneyProvider>();
afterAll(async () => Promise.all([...providers.values()].map((s) => s.close())));

describe('a consent with a required agree box', () => {
  it.each(
    PAGE_DRIVERS.flatMap((kind) => [
      { kind, page: 'Authorize and Deny' as const, deny: 1, status: 'passed' },
      { kind, page: 'Authorize alone' as const, deny: 0, status: 'errored' },
    ]),
  )('$kind driver, $page: the deny visit approves nothing ($status)', async ({ kind, page, deny, status }) => {
    const provider = providers.get(page) ?? (await journeyProvider({ decisions: PAGES[page] }));
    providers.set(page, provider);
    provider.decided.approve = provider.decided.deny = 0;
    const denial = await runWithDriver(provider, kind, ['grants.consent-denied']);
    const why = explain(denial.report, denial.stderr);
    expect(provider.decided, why).toEqual({ approve: 0, deny });
    expect(denial.report.checks[0]?.status, why).toBe(status);
  });
});
