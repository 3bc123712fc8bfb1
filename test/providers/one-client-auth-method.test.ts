/**
 * Providers that take a confidential client's secret one way only (review 28, defects 5 and 6).
 *
 * Basic only, as Okta's client_secret_basic applications: a client_secret in the token request's
 * form body is answered 401 invalid_client with a Basic challenge, and discovery names
 * client_secret_basic alone. The source's sentence broken is AUTH-CLIENT-BODY's, once; the start-up
 * learns the body is refused and the Basic credentials taken, so every other check authenticates by
 * HTTP Basic and still judges its own rules (before: 35 failed checks, GRANT-CODE-REDIRECT-URI-MATCH,
 * GRANT-CODE-FLOW and GRANT-APP-REGISTRATION-FIELDS failed, ERR-TOKEN-STATUS and ERR-INVALID-GRANT
 * warned on invalid_client answers). Its device authorization and revocation endpoints refuse the
 * body alike: the device and revocation checks authenticate there by Basic too (before: the start-up
 * read the device grant as refused and skipped every device check, and the revocation checks failed
 * REV-* rules on invalid_client).
 *
 * Never Basic: any Authorization: Basic at the token and revocation endpoints is answered 401
 * invalid_client, and the password grant without client authentication works. AUTH-CLIENT-BASIC
 * fails, once, and the password checks run without client authentication (before: every password
 * check skipped, "a wrong password in the config", exit 0).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digest } from '../../simulator/digest.js';
import { targetConfig } from '../../simulator/control/config.js';
import { allChecks } from '../../suites/index.js';
import type { Sim } from '../../simulator/types.js';
import { bodyOf, sendAnswer, simulatorDocument, simulatorWith, type Loopback } from '../suites/loopback.js';
import { checksWith, explain, rulesWith, runChecks } from './provider.js';

const TOKEN = '/oauth/token';
const REVOKE = '/oauth/revoke';
const DEVICE = '/oauth/authorize_device';
/** Where a Basic-only provider refuses a client_secret in the body: each endpoint that authenticates clients. */
const CLIENT_ENDPOINTS = [TOKEN, DEVICE, REVOKE];
const DISCOVERY = '/.well-known/openid-configuration';

/**
 * `body`: a client_secret in the body, always, at the token, device and revocation endpoints
 * (Okta's client_secret_basic applications); `basic`: any HTTP Basic; `issued-code-body`:
 * a client_secret in the body beside a code it issued, the grant looked at before the client, so
 * that a code never issued (the start-up's probe) is refused invalid_grant and nothing tells the
 * harness to change how it authenticates: the checks' own fallbacks judge then.
 */
type Refuses = 'body' | 'basic' | 'issued-code-body';

const invalidClient = (description: string) =>
  new Response(JSON.stringify({ error: 'invalid_client', error_description: description }), {
    status: 401,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'www-authenticate': 'Basic realm="x"' },
  });

/** The simulator, refusing client secrets sent the way `refuses` names; `refusals` counts them. */
async function provider(refuses: Refuses): Promise<Loopback & { sim: Sim; refusals: () => number }> {
  let base = '';
  let refusals = 0;
  const served = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const basic = /^basic\s/i.test(req.headers.authorization ?? '');
    if (refuses === 'body' && req.method === 'GET' && url.pathname === DISCOVERY) {
      sendAnswer(
        res,
        simulatorDocument(served.sim, url).then((doc) =>
          Response.json({ ...doc, token_endpoint_auth_methods_supported: ['client_secret_basic'] }),
        ),
      );
      return true;
    }
    if (req.method !== 'POST') return false;
    if (refuses === 'basic' && basic && [TOKEN, REVOKE].includes(url.pathname)) {
      req.resume();
      refusals++;
      sendAnswer(res, Promise.resolve(invalidClient('client_secret_basic not allowed for this client')));
      return true;
    }
    if (refuses === 'basic' || !(refuses === 'body' ? CLIENT_ENDPOINTS : [TOKEN]).includes(url.pathname)) return false;
    sendAnswer(
      res,
      bodyOf(req).then((raw) => {
        const form = new URLSearchParams(raw.toString('utf8'));
        const issued = served.sim.store.codes.has(digest(form.get('code') ?? ''));
        if (!basic && form.get('client_secret') && (refuses === 'body' || issued)) {
          refusals++;
          return invalidClient('Client authentication failed');
        }
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
        headers.delete('content-length');
        return served.sim.handle(new Request(url, { method: 'POST', headers, body: new Uint8Array(raw) }));
      }),
    );
    return true;
  });
  base = served.url;
  return { ...served, refusals: () => refusals };
}

/** The checks the review saw blame another rule for the refused body credentials, and the one that judges them. */
const BASIC_ONLY_CHECKS = [
  'grants.token-response-fields',
  'grants.token-response-headers',
  'grants.redirect-uri-mismatch',
  'grants.application-registration',
  'grants.code-unknown',
  'grants.code-client-bound',
  'grants.code-single-use',
  'grants.unsupported-grant-type',
  'grants.missing-parameter',
  'grants.client-authentication-failures',
  'tokens.revoke-access-token',
];

/** The checks that exchange a code it issued with the secret in the body, or present one another way. */
const ISSUED_CODE_CHECKS = [
  'grants.token-response-fields',
  'grants.token-response-headers',
  'grants.redirect-uri-mismatch',
  'grants.application-registration',
  'grants.code-single-use',
  'grants.code-client-bound',
  'grants.code-unknown',
];

/** The password checks the review saw skipped, and the one that judges HTTP Basic client authentication. */
const NEVER_BASIC_CHECKS = [
  'grants.password-response',
  'grants.password-bad-credentials',
  'grants.password-without-client',
  'grants.password-git-setting',
  'grants.password-git-setting-off',
  'grants.password-client-credentials-setting',
  'grants.client-authentication-failures',
];

describe('a provider that takes the client secret by HTTP Basic only (Okta-style)', () => {
  let front: Awaited<ReturnType<typeof provider>>;
  beforeAll(async () => {
    front = await provider('body');
  }, 60_000);
  afterAll(async () => {
    await front?.close();
  });

  it('fails AUTH-CLIENT-BODY alone, the other checks authenticate by Basic and judge their own rules, exit 1', async () => {
    const { code, report, stderr } = await runChecks(front, BASIC_ONLY_CHECKS);
    const why = explain(report, stderr);
    expect(front.refusals(), why).toBeGreaterThan(0);
    expect(rulesWith(report, 'failed', 'errored'), why).toEqual(['AUTH-CLIENT-BODY']);
    expect(rulesWith(report, 'warned'), why).toEqual([]);
    expect(checksWith(report, 'failed'), why).toEqual(['grants.token-response-fields']);
    expect(checksWith(report, 'warned', 'errored', 'skipped'), why).toEqual([]);
    // Tested the way the provider allows, not left untested behind the premise.
    const passed = rulesWith(report, 'passed');
    for (const rule of [
      'GRANT-CODE-REDIRECT-URI-MATCH',
      'GRANT-CODE-FLOW',
      'GRANT-APP-REGISTRATION-FIELDS',
      'GRANT-CODE-UNKNOWN',
      'ERR-TOKEN-STATUS',
      'TOK-NO-STORE',
      'REV-REVOKES-TOKEN',
    ])
      expect(passed, `${rule}\n${why}`).toContain(rule);
    expect(code, why).toBe(1);
  }, 120_000);
});

/**
 * The device checks (every one but device.unavailable, which judges a target without the grant),
 * the revocation checks, and the one that judges AUTH-CLIENT-BODY.
 */
const DEVICE_AND_REVOCATION_CHECKS = [
  'grants.token-response-fields',
  'device.state-machine',
  'device.expired-token',
  'device.slow-down',
  'device.slow-down-interval-grows',
  'device.single-use',
  'device.authorization-response',
  'device.authorization-timings',
  'device.authorize-refusals',
  'device.token-response',
  'device.unknown-device-code',
  'device.client-bound',
  'device.unknown-user-code',
  'device.verification-page',
  'tokens.revoke-access-token',
  'tokens.revoke-refresh-token',
  'tokens.revoke-unknown-token',
  'tokens.revoke-client-bound',
  'tokens.revoke-client-auth',
];

describe('a Basic-only provider whose device authorization and revocation endpoints refuse the body too', () => {
  let front: Awaited<ReturnType<typeof provider>>;
  beforeAll(async () => {
    front = await provider('body');
  }, 60_000);
  afterAll(async () => {
    await front?.close();
  });

  it('fails AUTH-CLIENT-BODY alone; the device and revocation checks authenticate by Basic and pass, exit 1', async () => {
    // No public application: the device flow is the confidential one's, whose secret is refused in the body.
    const { public: _none, ...applications } = targetConfig(front.sim, front.url).applications!;
    const { code, report, stderr } = await runChecks(front, DEVICE_AND_REVOCATION_CHECKS, {}, { applications });
    const why = explain(report, stderr);
    expect(front.refusals(), why).toBeGreaterThan(0);
    expect(rulesWith(report, 'failed', 'errored', 'warned'), why).toEqual(['AUTH-CLIENT-BODY']);
    expect(checksWith(report, 'failed'), why).toEqual(['grants.token-response-fields']);
    expect(checksWith(report, 'warned', 'errored', 'skipped'), why).toEqual([]);
    // Tested, not skipped or left untested behind the refused body.
    const judged = new Set(
      allChecks()
        .filter((c) => DEVICE_AND_REVOCATION_CHECKS.includes(c.id))
        .flatMap((c) => c.rules.filter((r) => /^(DEV|REV)-/.test(r))),
    );
    const ruled = report.rules.filter((r) => judged.has(r.id as never));
    for (const rule of ['DEV-AVAILABILITY', 'DEV-SUCCESS', 'DEV-CLIENT-BOUND', 'REV-REVOKES-TOKEN', 'REV-CLIENT-AUTH'])
      expect(
        ruled.map((r) => r.id),
        `${rule}\n${why}`,
      ).toContain(rule);
    // DEV-ACCESS-DENIED: no denial in this seed's one run, against the simulator alone too.
    for (const rule of ruled.filter((r) => r.id !== 'DEV-ACCESS-DENIED'))
      expect(`${rule.id} ${rule.status}`, why).toBe(`${rule.id} passed`);
    expect(code, why).toBe(1);
  }, 180_000);
});

describe('a provider that refuses the body secret beside a code it issued, the grant looked at first', () => {
  let front: Awaited<ReturnType<typeof provider>>;
  beforeAll(async () => {
    front = await provider('issued-code-body');
  }, 60_000);
  afterAll(async () => {
    await front?.close();
  });

  it('blames AUTH-CLIENT-BODY alone: the checks that met the refusal leave their own rules untested, exit 1', async () => {
    const { code, report, stderr } = await runChecks(front, ISSUED_CODE_CHECKS);
    const why = explain(report, stderr);
    expect(front.refusals(), why).toBeGreaterThan(0);
    expect(rulesWith(report, 'failed', 'errored'), why).toEqual(['AUTH-CLIENT-BODY']);
    expect(rulesWith(report, 'warned'), why).toEqual([]);
    expect(checksWith(report, 'warned', 'errored', 'skipped'), why).toEqual([]);
    // A code never issued meets no refusal of the client: judged as ever.
    expect(rulesWith(report, 'passed'), why).toContain('GRANT-CODE-UNKNOWN');
    for (const rule of ['GRANT-CODE-REDIRECT-URI-MATCH', 'GRANT-APP-REGISTRATION-FIELDS', 'TOK-NO-STORE'])
      expect(rulesWith(report, 'untested'), `${rule}\n${why}`).toContain(rule);
    expect(code, why).toBe(1);
  }, 120_000);
});

describe('a provider that refuses HTTP Basic client authentication', () => {
  let front: Awaited<ReturnType<typeof provider>>;
  beforeAll(async () => {
    front = await provider('basic');
  }, 60_000);
  afterAll(async () => {
    await front?.close();
  });

  it('fails AUTH-CLIENT-BASIC alone; the password checks run without client authentication, exit 1', async () => {
    const { code, report, stderr } = await runChecks(front, NEVER_BASIC_CHECKS);
    const why = explain(report, stderr);
    expect(front.refusals(), why).toBeGreaterThan(0);
    expect(rulesWith(report, 'failed', 'errored'), why).toEqual(['AUTH-CLIENT-BASIC']);
    expect(rulesWith(report, 'warned'), why).toEqual([]);
    expect(checksWith(report, 'failed'), why).toEqual(['grants.password-response']);
    expect(checksWith(report, 'warned', 'errored', 'skipped'), why).toEqual([]);
    const passed = rulesWith(report, 'passed');
    for (const rule of ['GRANT-PASSWORD-PARAMS', 'GRANT-PASSWORD-BAD-CREDENTIALS', 'GRANT-PASSWORD-GIT-SETTING'])
      expect(passed, `${rule}\n${why}`).toContain(rule);
    // No message blames the config's password for an invalid_client.
    expect(report.checks.map((c) => c.message ?? '').join('\n'), why).not.toMatch(/wrong password/);
    expect(code, why).toBe(1);
  }, 120_000);
});
