/**
 * The browser driver through real Chromium against the simulator served over real HTTP on
 * 127.0.0.1: the code flow with PKCE (approve and deny), an error page, a device code approved on
 * the verification page, and `run --suite grants` with `driver.kind: browser` on one check per way
 * a page ends (page-endings.ts). One Chromium per vitest worker (test/setup/one-chromium.ts): the
 * driver opened here and the run's own driver share it, each in a context of its own.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSimulator } from '../../simulator/core.js';
import { serve, type Served } from '../../simulator/adapters/node.js';
import { targetConfig } from '../../simulator/control/config.js';
import { createHttpTarget } from '../../suites/target/http.js';
import { createEmbeddedTarget } from '../../suites/target/embedded.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { createOAuthFlows, type TrackedFlows } from '../../suites/runner/oauth.js';
import { createRandom } from '../../suites/runner/random.js';
import {
  borrowBrowser,
  createBrowserDriver,
  DEFAULT_CHROMIUM,
  holdBrowser,
  type BrowserDriver,
} from '../../suites/drivers/browser.js';
import { executeRun } from '../../cli/run.js';
import { ConfigError, DriverError } from '../../suites/errors.js';
import type { DriverConfig, Http, TargetConfig } from '../../suites/types.js';
import type { Report } from '../../suites/report/model.js';
import { allChecks } from '../../suites/index.js';
import { GRANTS_PER_PAGE_ENDING } from './page-endings.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
const hasChromium = existsSync(CHROMIUM);
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

describe('browser driver refuses what it cannot do, in one line', () => {
  it('a missing Chromium is a usage error naming the path; the embedded simulator is refused', async () => {
    // Nothing is contacted: both refusals come before any launch or request.
    const config: TargetConfig = { baseUrl: 'http://127.0.0.1:9', driver: { kind: 'browser' } };
    const http = createHttp(createHttpTarget(config), createRecorder(5), createRedactor());
    const missing = createBrowserDriver(http, config, { executablePath: '/nonexistent/chromium' });
    await expect(missing).rejects.toBeInstanceOf(DriverError);
    await expect(missing).rejects.toThrow(/needs Chromium at \/nonexistent\/chromium/);
    const target = await createEmbeddedTarget();
    const embedded = createHttp(target, createRecorder(5), createRedactor());
    await expect(createBrowserDriver(embedded, target.config)).rejects.toThrow(/needs a target served over HTTP/);
  });

  // The fence's refusal reaches the user as the config error the README promises (exit 2), not as
  // "could not open a browser context" (a DriverError).
  it.skipIf(!hasChromium)('a baseUrl whose host is no plain name or IP literal is a config error', async () => {
    for (const baseUrl of ['http://a,*:3000', 'http://*:3000']) {
      const config: TargetConfig = { baseUrl, driver: { kind: 'browser' } };
      const http = createHttp(createHttpTarget(config), createRecorder(5), createRedactor());
      const refused = createBrowserDriver(http, config);
      await expect(refused, baseUrl).rejects.toBeInstanceOf(ConfigError);
      await expect(refused, baseUrl).rejects.toThrow(/fenced only to a plain host name or IP literal/);
    }
  });
});

/**
 * A provider of a few lines (`answer`), played by a browser driver of its own with `driver`'s
 * settings: the code of the redirect to the application after approving, for `state`.
 */
async function codeFrom(
  answer: (req: IncomingMessage, res: ServerResponse) => void,
  driver: Partial<DriverConfig>,
  state: string,
  user?: TargetConfig['user'],
): Promise<string | null> {
  const provider = createServer(answer);
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  const config: TargetConfig = {
    baseUrl,
    ...(user ? { user } : {}),
    driver: { kind: 'browser', ...driver },
    applications: { confidential: { clientId: 'c', redirectUri: 'https://client.test/cb', scopes: ['api'] } },
  };
  const browser = await createBrowserDriver(
    createHttp(createHttpTarget(config), createRecorder(5), createRedactor()),
    config,
  );
  try {
    const { redirect } = await browser.authorize(`${baseUrl}/oauth/authorize?client_id=c&state=${state}`, 'approve');
    return redirect?.searchParams.get('code') ?? null;
  } finally {
    await browser.close();
    await new Promise((resolve) => provider.close(resolve));
  }
}

describe.skipIf(!hasChromium)(
  hasChromium
    ? 'browser driver through real Chromium'
    : `browser driver: skipped, no Chromium at ${CHROMIUM} (apt-get install chromium)`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-browser-'));
    let served: Served;
    let config: TargetConfig;
    let http: Http;
    let driver: BrowserDriver;
    let flows: TrackedFlows;

    beforeAll(async () => {
      const sim = createSimulator();
      served = await serve(sim);
      config = { ...targetConfig(sim, served.url), driver: { kind: 'browser' } };
      http = createHttp(createHttpTarget(config), createRecorder(50), createRedactor());
      driver = await createBrowserDriver(http, config, { hasControl: true });
      flows = createOAuthFlows(http, driver, config, createRedactor(), createRandom(7));
    });
    afterAll(async () => {
      await flows?.revokeAll();
      await driver?.close();
      await served?.close();
    });

    it('approves: signs in, consents, captures the redirect with code and state, and the code (PKCE) buys a token', async () => {
      const app = config.applications!.public!;
      const { verifier, challenge } = flows.pkce();
      const url = flows.authorizeUrl('public', {
        state: 'st-approve',
        scope: app.scopes.join(' '),
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      const { redirect, response } = await driver.authorize(url, 'approve');
      expect(redirect?.href.startsWith(app.redirectUri)).toBe(true);
      expect(redirect?.searchParams.get('state')).toBe('st-approve');
      const code = redirect?.searchParams.get('code');
      expect(code).toBeTruthy();
      // The hand-over is the provider's redirect response, not a page of the (never loaded) client.
      expect(response.status).toBeGreaterThanOrEqual(300);
      expect(response.status).toBeLessThan(400);
      expect(response.headers.get('location')).toBe(redirect?.href);
      const token = await flows.tokenRequest(
        { grant_type: 'authorization_code', code: code!, redirect_uri: app.redirectUri, code_verifier: verifier },
        { app: 'public' },
      );
      expect(token.status).toBe(200);
      const body = token.json<{ access_token?: string }>();
      expect(body.access_token).toBeTruthy();
      flows.track(body.access_token, 'public');
    });

    it('denies: the redirect carries error=access_denied with the state and no code', async () => {
      const url = flows.authorizeUrl('confidential', { state: 'st-deny' });
      const { redirect } = await driver.authorize(url, 'deny');
      expect(redirect?.searchParams.get('error')).toBe('access_denied');
      expect(redirect?.searchParams.get('state')).toBe('st-deny');
      expect(redirect?.searchParams.has('code')).toBe(false);
    });

    it('never loads the redirect URI: an application listening on loopback gets no request', async () => {
      let hits = 0;
      const client = createServer((_, res) => void (hits++, res.end('client page')));
      await new Promise<void>((resolve) => client.listen(0, '127.0.0.1', resolve));
      try {
        const redirectUri = `http://127.0.0.1:${(client.address() as AddressInfo).port}/cb`;
        const created = await http.post('/-/simulator/applications', {
          json: { name: 'loopback client', redirectUri, scopes: ['api'], confidential: true },
        });
        const app = created.json<{ clientId: string; clientSecret: string }>();
        const url = flows.authorizeUrl('confidential', {
          client_id: app.clientId,
          redirect_uri: redirectUri,
          scope: 'api',
          state: 'st-loop',
        });
        const { redirect } = await driver.authorize(url, 'approve');
        expect(redirect?.href.startsWith(`${redirectUri}?`)).toBe(true);
        expect(redirect?.searchParams.get('code')).toBeTruthy();
        expect(hits).toBe(0);
      } finally {
        await new Promise((resolve) => client.close(resolve));
      }
    });

    it('acts on a page whose script draws the consent form after load (what the form driver cannot do)', async () => {
      // A provider of a few lines: its consent form exists only once a script has run.
      const form = `<form method="post" action="/decide"><button id="yes" name="decision" value="approve">Allow</button></form>`;
      expect(
        await codeFrom(
          (req, res) => {
            if (req.method === 'POST')
              return void res
                .writeHead(302, { location: 'https://client.test/cb?code=drawn-by-script&state=s1' })
                .end();
            res
              .writeHead(200, { 'content-type': 'text/html' })
              .end(
                `<!DOCTYPE html><body><script>setTimeout(() => { document.body.innerHTML = ${JSON.stringify(form)}; }, 300);</script></body>`,
              );
          },
          { approveSelector: '#yes' },
          's1',
        ),
      ).toBe('drawn-by-script');
    });

    it('approving ticks the scope boxes a consent page leaves unticked (Spring Authorization Server), not its remember box', async () => {
      const form = `<form method="post" action="/oauth/authorize">
<input type="hidden" name="state" value="s2">
<label><input type="checkbox" name="scope" value="api"> api</label>
<label><input type="checkbox" name="scope" value="read_user"> read_user</label>
<label><input type="checkbox" name="remember" value="true"> Remember my decision</label>
<button id="submit-consent" type="submit">Submit Consent</button></form>`;
      expect(
        await codeFrom(
          (req, res) => {
            if (req.method !== 'POST') return void res.writeHead(200, { 'content-type': 'text/html' }).end(form);
            let body = '';
            req.on('data', (c: Buffer) => (body += c.toString()));
            req.on('end', () => {
              // The code says what came: the ticked scopes and whether remember went too.
              const posted = new URLSearchParams(body);
              const code = `${posted.getAll('scope').join('+')}${posted.has('remember') ? '-remembered' : ''}`;
              res.writeHead(302, { location: `https://client.test/cb?code=${code}&state=s2` }).end();
            });
          },
          { approveSelector: '#submit-consent' },
          's2',
        ),
      ).toBe('api read_user');
    });

    it('waits for a sign-in that goes out late (a busy page, a script step before the post): no refusal before the answer', async () => {
      // The page sends nothing for 3.5 s after the submit (its own step first): past the quiet moment
      // and the script allowance the driver waits before judging a page, once taken for a refusal.
      const page = `<!DOCTYPE html><form method="post" action="/session">
<input name="username"><input type="password" name="password"><button>Sign in</button></form>
<script>document.forms[0].addEventListener('submit', (e) => { e.preventDefault(); setTimeout(() => e.target.submit(), 3500); });</script>`;
      expect(
        await codeFrom(
          (req, res) => {
            if (req.method !== 'POST') return void res.writeHead(200, { 'content-type': 'text/html' }).end(page);
            req.resume();
            res.writeHead(302, { location: 'https://client.test/cb?code=late-but-signed-in&state=s3' }).end();
          },
          {},
          's3',
          { username: 'u', password: 'p' },
        ),
      ).toBe('late-but-signed-in');
    });

    it('returns the error page when the provider refuses to redirect (unregistered redirect_uri)', async () => {
      const url = flows.authorizeUrl('confidential', { redirect_uri: 'https://elsewhere.test/cb', state: 'st-bad' });
      const { redirect, response } = await driver.authorize(url, 'approve');
      expect(redirect).toBeUndefined();
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(response.headers.get('content-type')).toMatch(/html/);
      expect(response.text).toMatch(/<html/i);
    });

    it('approves a device code on the verification page, and the device gets its token', async () => {
      const app = config.applications!.public!;
      const start = (
        await http.post('/oauth/authorize_device', { form: { client_id: app.clientId, scope: app.scopes[0] } })
      ).json<{ device_code: string; user_code: string }>();
      const pending = await flows.tokenRequest(
        { grant_type: DEVICE_GRANT, device_code: start.device_code },
        { app: 'public' },
      );
      expect(pending.json<{ error?: string }>().error).toBe('authorization_pending');
      await driver.approveDevice(start.user_code);
      const token = await flows.tokenRequest(
        { grant_type: DEVICE_GRANT, device_code: start.device_code },
        { app: 'public' },
      );
      expect(token.status).toBe(200);
      const body = token.json<{ access_token?: string }>();
      expect(body.access_token).toBeTruthy();
      flows.track(body.access_token, 'public');
    });

    it('`run --suite grants --config` with driver.kind browser passes', async () => {
      const configFile = join(dir, 'target.json');
      writeFileSync(configFile, JSON.stringify(config), { mode: 0o600 });
      const reportFile = join(dir, 'report.json');
      const err: string[] = [];
      // One property run of one check per way a page ends: the inputs, and the other grants checks
      // (which end their pages one of these ways again), are explored in process (the release
      // sweep, the fault matrix), where a run costs no browser.
      const code = await executeRun(
        { config: configFile, suite: 'grants', runs: '1', seed: '1', report: `json=${reportFile}` },
        {
          out: () => undefined,
          err: (t) => void err.push(t),
          checks: () => allChecks().filter((c) => GRANTS_PER_PAGE_ENDING.includes(c.id)),
        },
        {},
      );
      const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
      const failed = report.checks
        .filter((c) => c.status === 'failed' || c.status === 'errored')
        .map((c) => `${c.id}: ${c.message}`);
      expect(failed).toEqual([]);
      expect(code).toBe(0);
      // Each ran to a verdict through Chromium: none skipped for want of something.
      expect(report.checks.map((c) => `${c.id} ${c.status}`).sort()).toEqual(
        [...GRANTS_PER_PAGE_ENDING].sort().map((id) => `${id} passed`),
      );
      // The password never reaches the log.
      expect(err.join('')).not.toContain(config.user!.password);
    }, 300_000);

    it('a missing Chromium makes `run` exit 2 with one line', async () => {
      vi.stubEnv('IDP_CHROMIUM', '/nonexistent/chromium');
      try {
        const configFile = join(dir, 'target.json');
        writeFileSync(configFile, JSON.stringify(config), { mode: 0o600 });
        const err: string[] = [];
        const code = await executeRun(
          { config: configFile, suite: 'grants' },
          { out: () => undefined, err: (t) => void err.push(t) },
          {},
        );
        expect(code).toBe(2);
        expect(err.join('')).toMatch(
          /^idp-conformance: driver "browser" needs Chromium at \/nonexistent\/chromium[^\n]*\n$/,
        );
      } finally {
        vi.unstubAllEnvs();
      }
    });
  },
);

describe.skipIf(!hasChromium)('one Chromium between drivers', () => {
  it('a hold keeps it open when its last user is done; one closed under its users is not handed out again', async () => {
    const release = holdBrowser();
    try {
      const first = await borrowBrowser({ executablePath: CHROMIUM });
      await first.release();
      expect(first.browser.isConnected()).toBe(true);
      const again = await borrowBrowser({ executablePath: CHROMIUM });
      expect(again.browser).toBe(first.browser);
      // Gone while borrowed (closed, or crashed): the next borrower gets a new one.
      await again.browser.close();
      await again.release();
      const fresh = await borrowBrowser({ executablePath: CHROMIUM });
      expect(fresh.browser).not.toBe(first.browser);
      expect(fresh.browser.isConnected()).toBe(true);
      await fresh.release();
    } finally {
      await release();
    }
  });
});
