/**
 * A sign-in page that draws its form twice, for narrow and for wide screens, the one not shown
 * hidden by CSS (Amazon Cognito's classic hosted UI: the small-screen form first): the browser
 * driver fills and presses the controls a person sees. Before, it looked only at the first password
 * field of the page, hidden, saw no sign-in at all and stopped there, the sign-in page for its
 * answer: each check that needed a signed-in user errored ("no approve control").
 */
import { afterAll, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import { createBrowserDriver } from '../../suites/drivers/browser.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { createHttpTarget } from '../../suites/target/http.js';
import { journeyProvider, type JourneyProvider } from './sign-in-journey.js';
import { HAS_CHROMIUM } from './provider.js';

const servers: JourneyProvider[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** The simulator's sign-in form twice: a hidden small-screen copy first, then the one shown. */
const twice = (html: string) => {
  const form = /<form[\s\S]*?<\/form>/.exec(html)?.[0] ?? '';
  return html.replace(
    form,
    `<style>@media (min-width: 768px) { .narrow { display: none } }</style><div class="narrow">${form.replace('id="sign-in"', 'id="sign-in-narrow"')}</div><div class="wide">${form}</div>`,
  );
};

describe.skipIf(!HAS_CHROMIUM)('a sign-in page with its form twice, one hidden', () => {
  it('browser driver: signs in with the form shown and approves', async () => {
    const provider = await journeyProvider({ signInPage: twice });
    servers.push(provider);
    const config = { ...targetConfig(provider.sim, provider.url), driver: { kind: 'browser' as const } };
    const http = createHttp(createHttpTarget(config), createRecorder(5), createRedactor());
    const driver = await createBrowserDriver(http, config, { pageTimeoutMs: 5000 });
    const app = config.applications!.confidential!;
    const url = `${config.baseUrl}/oauth/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: app.redirectUri, response_type: 'code', scope: app.scopes.join(' '), state: 's' })}`;
    try {
      const { redirect } = await driver.authorize(url, 'approve');
      expect(redirect?.searchParams.get('code')).toEqual(expect.any(String));
      expect(provider.posted.passwords).toBe(1);
    } finally {
      await driver.close?.();
    }
  }, 60_000);
});
