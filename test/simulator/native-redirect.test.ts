/**
 * A native application's redirect URI (RFC 8252 §7.1: a private-use scheme, `com.example.app:/cb`)
 * through real Chromium: after the consent form, the browser is sent to the redirect URI with the
 * code. Chromium checks the page's CSP form-action on every redirect after a form, so a policy of
 * web schemes only blocked that hand-over and the developer's app never got its code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { createSimulator } from '../../simulator/core.js';
import { serve, type Served } from '../../simulator/adapters/node.js';
import { borrowBrowser, DEFAULT_CHROMIUM } from '../../suites/drivers/browser.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
const hasChromium = existsSync(CHROMIUM);
const REDIRECT = 'com.example.app:/oauth2redirect';

describe.skipIf(!hasChromium)(
  hasChromium ? 'a native app redirect URI in Chromium' : `native app redirect: skipped, no Chromium at ${CHROMIUM}`,
  () => {
    let browser: Browser;
    let served: Served;
    let release: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      ({ browser, release } = await borrowBrowser({ executablePath: CHROMIUM }));
      served = await serve(createSimulator());
    });
    afterAll(async () => {
      await release?.();
      await served?.close();
    });

    it('the consent form hands the code over to the private-use scheme', async () => {
      const control = (path: string, body?: unknown) =>
        fetch(`${served.url}/-/simulator/${path}`, {
          method: body ? 'POST' : 'GET',
          headers: { 'content-type': 'application/json' },
          body: body ? JSON.stringify(body) : undefined,
        }).then((r) => r.json());
      const config = await control('config');
      const app = await control('applications', { name: 'native', redirectUri: REDIRECT, scopes: ['api'] });
      const verifier = 'a-native-app-verifier-of-enough-length-0123456789';
      const authorize = new URL('/oauth/authorize', served.url);
      authorize.search = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'api',
        state: 'st',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const blocked: string[] = [];
        page.on('console', (m) => {
          if (m.text().includes('Content Security Policy')) blocked.push(m.text());
        });
        await page.goto(authorize.href);
        await page.fill('input[name="user[login]"]', config.user.username);
        await page.fill('input[name="user[password]"]', config.user.password);
        await Promise.all([page.waitForURL(/\/oauth\/authorize\?/), page.click('[type=submit]')]);
        // The consent form's answer, a redirect to the app with the code, reaches the browser (a
        // response); a form-action that forbids the app's scheme blocks it (the request fails).
        const post = (r: { method(): string }) => r.method() === 'POST';
        const outcome = Promise.race([
          page
            .waitForResponse((r) => post(r.request()))
            .then(async (r) => `${r.status()} ${await r.headerValue('location')}`),
          page.waitForEvent('requestfailed', post).then((r) => `failed: ${r.failure()?.errorText}`),
        ]);
        await page.click('button[value=approve]');
        expect(await outcome).toMatch(/^302 com\.example\.app:\/oauth2redirect\?code=[^&]+&state=st$/);
        expect(blocked).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
);
