/**
 * An interstitial (a second factor to set up, Continue) between the password and the consent, under
 * a cookie banner that says "consent" (review 9, item 4): asked to deny, the form driver goes on
 * past it to the consent and denies there. The banner's words are no consent's: before, the page
 * was read as the consent and the deny check erred needlessly.
 */
import { afterAll, expect, it } from 'vitest';
import { checksWith, explain, runWithDriver } from './provider.js';
import { journeyProvider, type JourneyProvider } from './sign-in-journey.js';

let provider: JourneyProvider | undefined;
afterAll(async () => provider?.close());

it('form driver: the deny visit passes an interstitial under a cookie banner saying consent, and denies', async () => {
  provider = await journeyProvider({
    after: [
      {
        page: (form) =>
          '<!doctype html><html><head><title>Secure your account</title></head><body>' +
          '<div class="cookie-banner">We use cookies with your consent. <button type="button">Accept cookies</button></div>' +
          '<h1>Set up two-factor authentication</h1><p>You can set it up later in your settings.</p>' +
          form('<button type="submit" name="go" value="1">Continue</button>') +
          '</body></html>',
        passes: () => true,
      },
    ],
  });
  const denial = await runWithDriver(provider, 'form', ['grants.consent-denied']);
  expect(checksWith(denial.report, 'passed'), explain(denial.report, denial.stderr)).toEqual(['grants.consent-denied']);
});
