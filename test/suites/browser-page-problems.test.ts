/**
 * A sign-in page that the real-browser driver cannot play is the provider's page, said once for
 * the run (one cause, one blame), each later visit skipped at once, the password not typed again:
 * never a crash of the harness, never the target's silence, never a refused password. Each case is
 * the simulator with its sign-in page (or the answer to its password) changed, one driver (one run)
 * each, on the worker's one Chromium.
 */
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import { createBrowserDriver, DEFAULT_CHROMIUM, type BrowserDriver } from '../../suites/drivers/browser.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { createOAuthFlows, type TrackedFlows } from '../../suites/runner/oauth.js';
import { createRandom } from '../../suites/runner/random.js';
import { CheckSkipped, HarnessError } from '../../suites/runner/errors.js';
import { SignInRefused } from '../../suites/drivers/sign-in.js';
import { createHttpTarget } from '../../suites/target/http.js';
import { sendAnswer, simulatorAnswerTo, simulatorWith, type Loopback } from './loopback.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const one of open.splice(0).reverse()) await one.close();
});

/**
 * The simulator with `script` before `</body>` of its pages at `at` (its sign-in's), and `answer`
 * taking the requests it wants (true) instead; the password's POSTs that reached the simulator counted.
 */
async function provider(
  script = '',
  answer: (req: IncomingMessage, res: ServerResponse) => boolean = () => false,
  at = '/users/sign_in',
) {
  const posts = { count: 0 };
  /** The pages at `at` asked for (a page stopped before its request went out is not). */
  const loads = { count: 0 };
  let base = '';
  const sim = await simulatorWith((req, res) => {
    if (req.method === 'GET' && req.url?.startsWith(at)) loads.count++;
    if (answer(req, res)) return true;
    if (req.method === 'POST' && req.url?.startsWith('/users/sign_in')) posts.count++;
    if (req.method !== 'GET' || !req.url?.startsWith(at) || !script) return false;
    const signIn = simulatorAnswerTo(sim.sim, req, new URL(req.url, base)).then(async (page) => {
      const headers = new Headers(page.headers);
      // The simulator's policy runs no inline script: the provider's own page would.
      for (const name of ['content-length', 'content-security-policy']) headers.delete(name);
      // A page, not a redirect or an error page (its consent's path answers both).
      const body = page.status === 200 ? (await page.text()).replace('</body>', `${script}</body>`) : await page.text();
      return new Response(page.status === 204 || page.status === 304 ? null : body, { status: page.status, headers });
    });
    sendAnswer(res, signIn);
    return true;
  });
  base = sim.url;
  return { sim, posts, loads };
}

async function driverFor(
  sim: Loopback & { sim: Parameters<typeof targetConfig>[0] },
  pageTimeoutMs = 5000,
  /** Set over the driver's defaults (a signInPath the provider's sign-in page is not at). */
  driverConfig: { signInPath?: string } = {},
) {
  open.push(sim);
  const config = { ...targetConfig(sim.sim, sim.url), driver: { kind: 'browser' as const, ...driverConfig } };
  const http = createHttp(createHttpTarget(config), createRecorder(20), createRedactor());
  const driver: BrowserDriver = await createBrowserDriver(http, config, { pageTimeoutMs });
  open.push(driver);
  const flows: TrackedFlows = createOAuthFlows(http, driver, config, createRedactor(), createRandom(17));
  const visit = (state: string) => driver.authorize(flows.authorizeUrl('confidential', { state }), 'approve');
  /** A device authorization of the public application: its user code. */
  const userCode = async () => {
    const app = config.applications!.public!;
    const form = { client_id: app.clientId, scope: app.scopes[0] };
    return (await http.post('/oauth/authorize_device', { form })).json<{ user_code: string }>().user_code;
  };
  return { driver, visit, flows, userCode };
}

/** A socket on 127.0.0.2 (another origin) counting the connections that reach it. */
async function sink() {
  const reached = { count: 0 };
  const server = createTcpServer((socket) => {
    reached.count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  const { port } = server.address() as { port: number };
  open.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  return { origin: `http://127.0.0.2:${port}`, reached };
}

/** The rejection of `outcome`. */
async function rejection(outcome: Promise<unknown>): Promise<{ error: Error }> {
  const error = await outcome.then(
    () => new Error('the visit went through'),
    (thrown: Error) => thrown,
  );
  return { error };
}

describe.skipIf(!existsSync(CHROMIUM))(
  "a sign-in page the driver cannot play, said once as the provider's page",
  () => {
    it('a box to tick whose click the page cancels: the page did not let the driver tick it, no password sent', async () => {
      const { sim, posts } = await provider(
        `<script>(()=>{const p=document.querySelector('input[type=password]');const b=document.createElement('input');b.type='checkbox';b.name='terms';b.required=true;b.addEventListener('click',e=>e.preventDefault());p.form.append(b)})()</script>`,
      );
      const { visit } = await driverFor(sim);
      const first = await rejection(visit('untick'));
      expect(first.error).toBeInstanceOf(HarnessError);
      expect(first.error.name).toBe('HarnessError');
      expect(first.error.message).toMatch(
        /^the provider's page did not let the driver tick a box \(at \/users\/sign_in: locator\.check: [^\n]+\); what needs a signed-in user is not tested$/,
      );
      // Said once: the next visit is skipped, nothing typed or sent.
      const second = await rejection(visit('again'));
      expect(second.error).toBeInstanceOf(CheckSkipped);
      expect(second.error.message).toMatch(
        /sign-in page could not be played earlier in this run \(the provider's page did not let the driver tick a box/,
      );
      expect(posts.count).toBe(0);
    }, 60_000);

    it("a script that never yields: the page did not respond, before the check's own limit; the next visit skipped at once", async () => {
      const { sim, loads } = await provider('<script>setTimeout(() => { for (;;) {} }, 200)</script>');
      const { driver, visit } = await driverFor(sim);
      // The check's limit, 8 s, is shorter than twice the page's (10 s): the watchdog comes first.
      const due = Date.now() + 8000;
      driver.timedBy?.({ leftMs: () => due - Date.now() });
      const first = await rejection(visit('busy'));
      expect(first.error).toBeInstanceOf(HarnessError);
      // The page's own stop, armed within the check's time left: the N it names is below the check's
      // 8 s (twice the page's limit, 10 s, without it). Playwright's own limit on the action (5 s, its
      // line after the path) may come first on a loaded machine; either is the page not responding.
      const [, stall] =
        /^the provider's page did not respond within (\d+) ms of the driver's last step \(at \/users\/sign_in(?:: [^)]*)?\);/.exec(
          first.error.message,
        ) ?? [];
      expect(Number(stall), first.error.message).toBeLessThan(8000);
      const loaded = loads.count;
      driver.timedBy?.({ leftMs: () => 60_000 });
      const second = await rejection(visit('again'));
      expect(second.error).toBeInstanceOf(CheckSkipped);
      expect(second.error.message).toMatch(
        /could not be played earlier in this run \(the provider's page did not respond/,
      );
      // Skipped at once: the sign-in page was not asked for again (a wait on it would have been).
      expect(loads.count).toBe(loaded);
    }, 60_000);

    it.each([
      { page: 'consent', at: '/oauth/authorize' },
      { page: 'device', at: '/oauth/device' },
    ])(
      'a $page page whose script never yields: said once; the next visit answered there with a page is stopped and skipped naming it',
      async ({ page, at }) => {
        const { sim } = await provider('<script>setTimeout(() => { for (;;) {} }, 200)</script>', undefined, at);
        const { visit, flows, driver, userCode } = await driverFor(sim, 3000);
        const meet = async (state: string) =>
          page === 'consent' ? visit(state) : driver.approveDevice(await userCode());
        // Signed in first, through the other page: a page that hangs right after the password is
        // another case (the password accepted, below).
        await (page === 'consent' ? driver.approveDevice(await userCode()) : visit('signed-in'));
        const first = await rejection(meet('busy'));
        expect(first.error).toBeInstanceOf(HarnessError);
        // Its own page's, not the run's sign-in ("what needs a signed-in user is not tested").
        const [, where] =
          /^the provider's page did not respond within \d+ ms of the driver's last step \(at ([^:)\s]+)(?:: [^)]*)?\)$/.exec(
            first.error.message,
          ) ?? [];
        expect(where, first.error.message).toBe(at);
        const second = await rejection(meet('again'));
        expect(second.error).toBeInstanceOf(CheckSkipped);
        expect(second.error.message).toBe(
          `the provider's page at ${at} did not respond earlier in this run (${first.error.message}); it is not loaded again`,
        );
        if (page !== 'consent') return;
        // A page of another kind at that path (the error page of an unregistered redirect_uri) is read as before.
        const refused = await driver.authorize(
          flows.authorizeUrl('confidential', { redirect_uri: 'https://elsewhere.test/cb', state: 'st-bad' }),
          'approve',
        );
        expect(refused.response.status).toBeGreaterThanOrEqual(400);
      },
      60_000,
    );

    it.each([
      { what: 'a consent page whose script never yields', script: true },
      { what: 'an authorization endpoint that never answers', script: false },
    ])(
      'the password accepted (redirected off the sign-in), then $what: blamed there, never on the sign-in (hform22)',
      async ({ script }) => {
        const held: ServerResponse[] = [];
        open.push({ close: async () => void held.forEach((res) => res.destroy()) });
        /** The authorization requests: the first (signed out) is sent to the sign-in, a later one is held when `script` is not. */
        let asked = 0;
        const { sim, posts } = await provider(
          script ? '<script>for (;;) {}</script>' : '',
          (req, res) => {
            if (script || req.method !== 'GET' || !req.url?.startsWith('/oauth/authorize') || ++asked === 1)
              return false;
            held.push(res);
            return true;
          },
          '/oauth/authorize',
        );
        const { visit } = await driverFor(sim, 3000);
        const first = await rejection(visit('accepted'));
        expect(first.error).toBeInstanceOf(HarnessError);
        expect(first.error).not.toBeInstanceOf(SignInRefused);
        // The page that hung, not the run's sign-in ("what needs a signed-in user is not tested").
        expect(first.error.message).toMatch(
          /^the provider's page did not respond within \d+ ms of the driver's last step \(at \/oauth\/authorize(?:: [^)]*)?\)$/,
        );
        expect(posts.count).toBe(1);
        if (!script) return;
        // Said once, as that page's: the next visit (the session kept) is answered there with it,
        // stopped and skipped naming it; the password is not typed again.
        const second = await rejection(visit('again'));
        expect(second.error).toBeInstanceOf(CheckSkipped);
        expect(second.error.message).toBe(
          `the provider's page at /oauth/authorize did not respond earlier in this run (${first.error.message}); it is not loaded again`,
        );
        expect(posts.count).toBe(1);
      },
      60_000,
    );

    it("a password refused by a redirect back to the page it was typed on, which then hangs: the sign-in's still, whatever signInPath says (hform22)", async () => {
      const { sim } = await provider('', (req, res) => {
        if (req.method === 'POST' && req.url?.startsWith('/users/sign_in')) {
          req.resume();
          res.writeHead(302, { location: '/users/sign_in?error=1' });
          res.end();
          return true;
        }
        if (req.method !== 'GET' || req.url !== '/users/sign_in?error=1') return false;
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          '<form method="post"><input name="user[login]"><input type="password" name="user[password]"><button>Sign in</button></form><script>for (;;) {}</script>',
        );
        return true;
      });
      const { visit } = await driverFor(sim, 3000, { signInPath: '/login' });
      const first = await rejection(visit('refused'));
      expect(first.error.message).toMatch(
        /^the provider's page did not respond within \d+ ms of the driver's last step \(at \/users\/sign_in(?:: [^)]*)?\); what needs a signed-in user is not tested$/,
      );
    }, 60_000);

    it('a sign-in form sent into a new window at another origin: said so, nothing sent there, never a refused password', async () => {
      const away = await sink();
      const { sim } = await provider(
        `<script>const f=document.querySelector('form');f.action='${away.origin}/login';f.target='_blank'</script>`,
      );
      const { visit } = await driverFor(sim);
      const first = await rejection(visit('popup'));
      expect(first.error).toBeInstanceOf(HarnessError);
      expect(first.error).not.toBeInstanceOf(SignInRefused);
      expect(first.error.message).toBe(
        `the page sent the sign-in to a new window at ${away.origin}: nothing was sent there; what needs a signed-in user is not tested`,
      );
      expect(away.reached.count).toBe(0);
    }, 60_000);

    it("a submit handler opening the sign-in in a new window on the provider's origin: the driver does not follow it", async () => {
      const { sim, posts } = await provider(
        `<script>const f=document.querySelector('form');f.addEventListener('submit',e=>{e.preventDefault();open('/users/sign_in?again=1')})</script>`,
      );
      const { visit } = await driverFor(sim);
      const first = await rejection(visit('open'));
      expect(first.error).not.toBeInstanceOf(SignInRefused);
      expect(first.error.message).toMatch(
        /^the page opened the sign-in in a new window, which the driver does not follow;/,
      );
      expect(posts.count).toBe(0);
    }, 60_000);

    it('a password answered with a file download: said so, never a refused password', async () => {
      const { sim } = await provider('', (req, res) => {
        if (req.method !== 'POST' || !req.url?.startsWith('/users/sign_in')) return false;
        req.resume();
        res.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-disposition': 'attachment; filename=x.bin',
        });
        res.end('not a page');
        return true;
      });
      const { visit } = await driverFor(sim);
      const first = await rejection(visit('download'));
      expect(first.error).not.toBeInstanceOf(SignInRefused);
      expect(first.error.message).toMatch(/^the provider answered the sign-in with a file download;/);
    }, 60_000);

    it('a password redirected (307) to another origin is the sign-in going on there, not the consent', async () => {
      const away = await sink();
      const { sim } = await provider('', (req, res) => {
        if (req.method !== 'POST' || !req.url?.startsWith('/users/sign_in')) return false;
        req.resume();
        res.writeHead(307, { location: `${away.origin}/session` });
        res.end();
        return true;
      });
      const { visit } = await driverFor(sim);
      const first = await rejection(visit('elsewhere'));
      expect(first.error.message).toMatch(
        /^the provider's sign-in goes on at http:\/\/127\.0\.0\.2:\d+\/session, which /,
      );
      expect(away.reached.count).toBe(0);
    }, 60_000);
  },
);
