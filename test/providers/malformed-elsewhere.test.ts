/**
 * A provider that answers an authorization request without client_id with a redirect to an error
 * page on another origin (no code, error or state in it), before any sign-in. That request is one a
 * check malformed on purpose (it must be refused without a sign-in), but a page elsewhere cannot be
 * told from the sign-in going on there (Ory Hydra's login application): that request decides
 * nothing (NoVerdict), judging neither the redirect nor the run's sign-in, and the check's next
 * requests (no redirect_uri, no response_type) still run and decide it. Before, both drivers read
 * it as the sign-in and every later check that needed one was skipped for the whole run; later,
 * the redirect was judged (GRANT-AUTHORIZE-MISSING-PARAMS warned); later still, the whole check
 * was skipped, its other requests unsent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allChecks } from '../../suites/index.js';
import {
  checksWith,
  explain,
  PAGE_DRIVERS,
  rulesWith,
  runAgainst,
  runWithDriver,
  startProvider,
  type Provider,
} from './provider.js';

/** Another origin (RFC 6454: another host), where the provider shows its error pages. */
const ERROR_PAGE = 'http://127.0.0.2:9/oauth/error?reason=client_id';

/** The malforming check first, then two that need the configured user's sign-in. */
const CHECKS = ['grants.authorize-missing-parameters', 'grants.consent-denied', 'oidc.id-token'];

let provider: Provider;

beforeAll(async () => {
  provider = await startProvider((method, url) =>
    method === 'GET' && url.pathname === '/oauth/authorize' && !url.searchParams.has('client_id')
      ? () => ({ status: 302, headers: { location: ERROR_PAGE } })
      : undefined,
  );
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

describe('an off-origin redirect answering a request a check malformed', () => {
  it.each(PAGE_DRIVERS)(
    "%s driver: that request decides nothing, the check's other requests do; no sign-in refused for the run",
    async (kind) => {
      const run = await runWithDriver(provider, kind, CHECKS);
      const why = explain(run.report, run.stderr);
      expect(checksWith(run.report, 'errored', 'skipped', 'failed', 'warned'), why).toEqual([]);
      expect(checksWith(run.report, 'passed'), why).toEqual(CHECKS);
      // Passed on its other requests, the check still says which one decided nothing, and why.
      const check = run.report.checks.find((c) => c.id === 'grants.authorize-missing-parameters');
      expect(check?.message, why).toMatch(
        /^decided nothing: authorize without client_id \(the provider answered the request this check malformed with a redirect to http:\/\/127\.0\.0\.2:9\/oauth\/error, which leaves .*: nothing was sent there, and its error page cannot be told from its sign-in going on there\)$/,
      );
    },
    120_000,
  );
});

describe('an error page with a script and no form answering a request a check malformed', () => {
  // Analytics on the provider's error page: no sign-in application, and the request's own answer.
  let scripted: Provider;
  beforeAll(async () => {
    scripted = await startProvider((method, url) =>
      method === 'GET' && url.pathname === '/oauth/authorize' && !url.searchParams.has('client_id')
        ? () => ({
            status: 400,
            headers: { 'content-type': 'text/html' },
            body: '<html><head><script>window.dataLayer = []</script></head><body><h1>Client authentication failed</h1><p>client_id is missing.</p><a href="/">Home</a></body></html>',
          })
        : undefined,
    );
  }, 60_000);
  afterAll(async () => {
    await scripted?.close();
  });

  it('form driver: judged by that check alone (an error page, as the rule asks), no page said for the run', async () => {
    const run = await runWithDriver(scripted, 'form', CHECKS);
    const why = explain(run.report, run.stderr);
    expect(checksWith(run.report, 'errored', 'skipped', 'failed', 'warned'), why).toEqual([]);
    expect(checksWith(run.report, 'passed'), why).toEqual(CHECKS);
  }, 120_000);
});

describe('a 200 page with a script and no form answering a request a check malformed', () => {
  // May be the sign-in application itself: not judged as an error page, not said for the run.
  let drawn: Provider;
  beforeAll(async () => {
    drawn = await startProvider((method, url) =>
      method === 'GET' && url.pathname === '/oauth/authorize' && !url.searchParams.has('client_id')
        ? () => ({
            status: 200,
            headers: { 'content-type': 'text/html' },
            body: '<html><head><script src="/app.js"></script></head><body><div id="app"></div></body></html>',
          })
        : undefined,
    );
  }, 60_000);
  afterAll(async () => {
    await drawn?.close();
  });

  it('form driver: that check errs alone (the harness cannot read the page), nothing warned, the others pass', async () => {
    const run = await runWithDriver(drawn, 'form', CHECKS);
    const why = explain(run.report, run.stderr);
    expect(checksWith(run.report, 'warned', 'failed', 'skipped'), why).toEqual([]);
    expect(checksWith(run.report, 'errored'), why).toEqual(['grants.authorize-missing-parameters']);
    expect(checksWith(run.report, 'passed'), why).toEqual(['grants.consent-denied', 'oidc.id-token']);
  }, 120_000);
});

describe('off-origin error pages answering most unregistered redirect_uris', () => {
  // A provider that matches redirect_uri by prefix (GRANT-REDIRECT-URI-REGISTERED, a must) and sends
  // every other unregistered redirect_uri to its error page on another origin. Those answers decide
  // no case; the property goes on with the next, so the leak still fails the check. Before, the
  // first such answer ended the property and the check was skipped (exit 0).
  const REGISTERED = 'https://client.test/confidential/callback';
  let leaky = true;
  let unregistered: Provider;
  beforeAll(async () => {
    unregistered = await startProvider((method, url) => {
      const to = url.searchParams.get('redirect_uri');
      if (method !== 'GET' || url.pathname !== '/oauth/authorize' || !to || to === REGISTERED) return undefined;
      if (leaky && to.startsWith(REGISTERED)) {
        const leak = new URL(to);
        leak.searchParams.set('code', 'leaked');
        leak.searchParams.set('state', url.searchParams.get('state') ?? '');
        return () => ({ status: 302, headers: { location: leak.href } });
      }
      return () => ({ status: 302, headers: { location: `${ERROR_PAGE}&for=redirect_uri` } });
    });
  }, 60_000);
  afterAll(async () => {
    await unregistered?.close();
  });

  const unreg = (kind: 'form' | 'browser') =>
    runAgainst(
      unregistered,
      { runs: '10', seed: '2' },
      allChecks().filter((c) => c.id === 'grants.authorize-unregistered-redirect'),
      { driver: { kind } },
    );

  it.each(PAGE_DRIVERS)(
    '%s driver: the leak to a prefixed redirect_uri fails the check',
    async (kind) => {
      leaky = true;
      const run = await unreg(kind);
      const why = explain(run.report, run.stderr);
      expect(run.code, why).toBe(1);
      expect(rulesWith(run.report, 'failed'), why).toEqual(['GRANT-REDIRECT-URI-REGISTERED']);
    },
    120_000,
  );

  it('form driver: no case decidable, the check is skipped, saying why', async () => {
    leaky = false;
    const run = await unreg('form');
    const why = explain(run.report, run.stderr);
    // The run's one check skipped: nothing was tested, which is no pass (ERROR, exit 2).
    expect(run.code, why).toBe(2);
    const check = run.report.checks[0];
    expect(check?.status, why).toBe('skipped');
    expect(check?.message, why).toMatch(/request this check malformed with a redirect to http:\/\/127\.0\.0\.2:9/);
  }, 120_000);
});
