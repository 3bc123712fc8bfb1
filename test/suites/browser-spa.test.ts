/**
 * The browser driver on a provider whose sign-in and consent pages are a JavaScript application
 * (test/providers/spa-provider.ts): credentials and decision posted by fetch, the URL changed by
 * the History API, the application reached by a script's navigation or behind a "Continue"
 * button. No page load follows the sign-in, so the driver must wait for what matters. The form
 * driver, which cannot run scripts, says so (errored), never blames the provider.
 *
 * The grants run here is a subset, as on the simulator's own pages (browser-driver.test.ts): one
 * check per way a page can end (page-endings.ts). The whole grants suite runs in process at every
 * release boundary (release-sweep.test.ts); a script-drawn page costs the driver its render and
 * quiet waits on every authorize, so the whole suite here took a minute and a half.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpTarget } from '../../suites/target/http.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { createOAuthFlows } from '../../suites/runner/oauth.js';
import { createRandom } from '../../suites/runner/random.js';
import { createBrowserDriver, DEFAULT_CHROMIUM } from '../../suites/drivers/browser.js';
import { createFormDriver } from '../../suites/drivers/form.js';
import { HarnessError } from '../../suites/runner/errors.js';
import { executeRun } from '../../cli/run.js';
import { allChecks } from '../../suites/index.js';
import type { TargetConfig } from '../../suites/types.js';
import type { Report } from '../../suites/report/model.js';
import { spaProvider, type SpaOptions, type SpaProvider } from '../providers/spa-provider.js';
import { checksWith, expectSaidOnce, explain, runWithDriver } from '../providers/provider.js';
import { simulatorWith } from './loopback.js';
import { unseenPasses, witness } from './witness.js';
import { GRANTS_PER_PAGE_ENDING } from './page-endings.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
const hasChromium = existsSync(CHROMIUM);

/** Approve (PKCE, public app) then deny through a browser driver on `config`; the code must buy a token. */
async function playBoth(provider: SpaProvider, config: TargetConfig) {
  const http = createHttp(createHttpTarget(config), createRecorder(50), createRedactor());
  const driver = await createBrowserDriver(http, config, { hasControl: true });
  const flows = createOAuthFlows(http, driver, config, createRedactor(), createRandom(3));
  try {
    const app = config.applications!.public!;
    const { verifier, challenge } = flows.pkce();
    const url = flows.authorizeUrl('public', {
      state: 'st-spa',
      scope: app.scopes.join(' '),
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const approved = await driver.authorize(url, 'approve');
    expect(approved.redirect?.href.startsWith(app.redirectUri)).toBe(true);
    expect(approved.redirect?.searchParams.get('state')).toBe('st-spa');
    const code = approved.redirect?.searchParams.get('code');
    expect(code).toBeTruthy();
    const token = await flows.tokenRequest(
      { grant_type: 'authorization_code', code: code!, redirect_uri: app.redirectUri, code_verifier: verifier },
      { app: 'public' },
    );
    expect(token.status).toBe(200);
    flows.track(token.json<{ access_token?: string }>().access_token, 'public');
    const denied = await driver.authorize(flows.authorizeUrl('confidential', { state: 'st-no' }), 'deny');
    expect(denied.redirect?.searchParams.get('error')).toBe('access_denied');
    expect(denied.redirect?.searchParams.get('state')).toBe('st-no');
    // The script did the work: sign-in and both decisions went through fetch, not a form post.
    expect(provider.fetched).toEqual(expect.arrayContaining(['POST /users/sign_in', 'POST /oauth/authorize']));
  } finally {
    await flows.revokeAll();
    await driver.close();
  }
}

describe.skipIf(!hasChromium)(
  'browser driver on a sign-in application (no forms, fetch, client-side navigation)',
  () => {
    const providers: SpaProvider[] = [];
    const start = async (options: SpaOptions) => {
      const provider = await spaProvider(options);
      providers.push(provider);
      return provider;
    };
    // Every driver below (the run's too) shares the worker's Chromium (test/setup/one-chromium.ts).
    afterAll(async () => {
      for (const p of providers) await p.close();
    });

    it('with its defaults: signs in by the button, consents, and catches the script navigation to the application', async () => {
      const provider = await start({ handover: 'navigate' });
      const config = provider.config();
      await playBoth(provider, config);
    }, 120_000);

    it('with a selector per step from the config: sign in, grant, then a "continue" button', async () => {
      const provider = await start({
        handover: 'continue',
        labels: { signIn: 'Enter', approve: 'Yes, share', deny: 'Not now', continue: 'Open the app' },
      });
      const config = provider.config({
        signInSelector: '#sign-in-button',
        approveSelector: '#approve-button',
        denySelector: '#deny-button',
        continueSelector: '#go',
      });
      await playBoth(provider, config);
    }, 120_000);

    describe('`run --suite grants` with driver.kind browser (one check per way a page ends)', () => {
      const dir = mkdtempSync(join(tmpdir(), 'idp-spa-'));
      let provider: SpaProvider;
      beforeAll(async () => {
        provider = await start({ handover: 'continue' });
      });

      it('names only checks of the grants suite', () => {
        const grants = allChecks()
          .filter((c) => c.suite === 'grants')
          .map((c) => c.id);
        expect(GRANTS_PER_PAGE_ENDING.filter((id) => !grants.includes(id))).toEqual([]);
      });

      it('passes every check, unaided, each rule seen by an assertion naming it', async () => {
        const configFile = join(dir, 'target.json');
        writeFileSync(configFile, JSON.stringify(provider.config()), { mode: 0o600 });
        const reportFile = join(dir, 'report.json');
        const watched = witness(allChecks().filter((c) => GRANTS_PER_PAGE_ENDING.includes(c.id)));
        const code = await executeRun(
          { config: configFile, suite: 'grants', runs: '1', seed: '1', report: `json=${reportFile}` },
          { out: () => undefined, err: () => undefined, checks: () => watched.checks },
          {},
        );
        const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
        const bad = report.checks
          .filter((c) => c.status === 'failed' || c.status === 'errored')
          .map((c) => `${c.id}: ${c.message}`);
        expect(bad, bad.join('\n')).toEqual([]);
        expect(unseenPasses(report, watched.named)).toEqual([]);
        // Each ran to a verdict on the provider: none skipped for want of something.
        expect(report.checks.map((c) => `${c.id} ${c.status}`).sort()).toEqual(
          [...GRANTS_PER_PAGE_ENDING].sort().map((id) => `${id} passed`),
        );
        expect(code).toBe(0);
        expect(provider.fetched).toContain('POST /oauth/authorize');
      }, 300_000);
    });
  },
);

describe('form driver on a sign-in application', () => {
  it('says the page has no form and to use the browser driver (a harness error, not a failure)', async () => {
    const provider = await spaProvider({ handover: 'navigate', shellFor: 'html' });
    try {
      const config = provider.config({ kind: 'form' });
      const http = createHttp(createHttpTarget(config), createRecorder(50), createRedactor());
      const driver = createFormDriver(http, config);
      const flows = createOAuthFlows(http, driver, config, createRedactor(), createRandom(3));
      const attempt = driver.authorize(flows.authorizeUrl('confidential', { state: 's' }), 'approve');
      await expect(attempt).rejects.toBeInstanceOf(HarnessError);
      await expect(attempt).rejects.toThrow(/no form.*use driver: browser/);
    } finally {
      await provider.close();
    }
  });

  // Authentik's and Zitadel's sign-in is such an application: one cause of the run, not of each check.
  it('in a run, says it once: the first check that meets the page errors, the others are skipped', async () => {
    const provider = await spaProvider({ handover: 'navigate', shellFor: 'html' });
    try {
      const run = await runWithDriver(provider, 'form', [
        'grants.token-response-fields',
        'grants.consent-denied',
        'device.token-response',
      ]);
      const why = expectSaidOnce(run, /has no form \(a script draws it\).*: use driver: browser$/, 3);
      // The device check meets the page on its way to the sign-in, after the code: skipped with the
      // run's one sentence, which names the page where the run first met it (seen earlier), not
      // a page the device check visited.
      const earlier =
        "the provider's page at /oauth/authorize has no form (a script draws it): seen earlier in this run; the form driver cannot play it, so it is not tried again";
      const skipped = run.report.checks.filter((c) => c.status === 'skipped');
      expect(
        skipped.map((c) => c.message),
        why,
      ).toEqual([earlier, earlier]);
      expect(
        skipped.map((c) => c.id),
        why,
      ).toContain('device.token-response');
    } finally {
      await provider.close();
    }
  });
});

/**
 * A script-drawn page that is not the sign-in is not every check's way in: no check that does not
 * meet it is skipped for it. Before, the first such page met before credentials went out in the
 * visit was said once for the run: a script-drawn /oauth/device alone (sign-in and consent plain
 * HTML) errored device.token-response and skipped both grants checks (exit 2), and a script-drawn
 * consent met with the session in the jar skipped the rest of the run. A consent drawn by a script
 * is met by every authorization, though: said once, on the first grants check, and the later one
 * that meets it skipped saying so (script-consent.test.ts); the device check passes.
 */
describe('form driver, a script-drawn page other than the sign-in', () => {
  const SHELL = '<!DOCTYPE html><html><body><div id="app">Loading…</div><script>/* draws it */</script></body></html>';
  const CHECKS = ['device.token-response', 'grants.token-response-fields', 'grants.consent-denied'];

  it.each([
    // The device page alone: the device check errors, the grants pass.
    ['/oauth/device', 'device.token-response', ['grants.consent-denied', 'grants.token-response-fields'], 0],
    // The consent once signed in (the session in the jar): said on one grants check, the other skipped; the device passes.
    ['/oauth/authorize', 'grants', ['device.token-response'], 1],
  ] as const)('%s drawn by a script: said by its own checks only', async (path, errs, passing, skips) => {
    const provider = await simulatorWith((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method !== 'GET' || url.pathname !== path || (path === '/oauth/authorize' && !req.headers.cookie))
        return false;
      res.writeHead(200, { 'content-type': 'text/html' }).end(SHELL);
      return true;
    });
    try {
      const { code, report, stderr } = await runWithDriver(provider, 'form', [...CHECKS]);
      const why = explain(report, stderr);
      expect(checksWith(report, 'passed'), why).toEqual(passing);
      expect(checksWith(report, 'failed', 'warned'), why).toEqual([]);
      const skipped = report.checks.filter((c) => c.status === 'skipped');
      expect(skipped.length, why).toBe(skips);
      for (const check of skipped) {
        expect(check.id, why).toMatch(/^grants\./);
        expect(check.message, why).toMatch(
          `the provider's page at ${path} has no form (a script draws it): seen earlier in this run`,
        );
      }
      const errored = report.checks.filter((c) => c.status === 'errored');
      expect(errored.length, why).toBe(1);
      expect(errored[0].id.startsWith(errs), why).toBe(true);
      expect(errored[0].message, why).toMatch(
        new RegExp(
          `the provider's page at ${path} has no form \\(a script draws it\\)(, so what needs the user's decision is not tested)?: use driver: browser`,
        ),
      );
      // An errored check is the harness's trouble: exit 2.
      expect(code, why).toBe(2);
    } finally {
      await provider.close();
    }
  });
});
