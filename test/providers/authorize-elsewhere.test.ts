/**
 * The authorization endpoint itself on another origin, as Google's (accounts.google.com beside
 * oauth2.googleapis.com): the base URL serves the token endpoint, the key set and the REST API;
 * the authorization endpoint and the sign-in and consent pages that follow it are on another
 * origin (another port of 127.0.0.1), which discovery's authorization_endpoint names. With
 * `trustedOrigins` listing it, the drivers open the authorization request there, sign in there and
 * the checks pass; without, nothing is sent there, OIDC-DISCOVERY warns once and what needs an
 * authorization is skipped, saying why. Before, the flows built every authorization request on the
 * base URL whatever discovery said: a 404 there, and each check that needed a code errored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import {
  everything404,
  listen,
  sendAnswer,
  simulatorAnswerTo,
  simulatorDocument,
  simulatorWith,
  type Loopback,
} from '../suites/loopback.js';
import { allChecks } from '../../suites/index.js';
import { checksWith, erroredText, explain, runAgainst } from './provider.js';
import type { Sim } from '../../simulator/types.js';

/**
 * The pages that live with the authorization endpoint (Google's accounts.google.com), absent at the
 * base URL: the device verification page too, which the device authorization response names there.
 */
const WITH_AUTHORIZE = /^\/(oauth\/authorize|oauth\/device|users\/sign_in)(\/|$)/;
/** Google's own path of its authorization endpoint, answered as the simulator's /oauth/authorize. */
const GOOGLE_AUTHORIZE = '/o/oauth2/v2/auth';

/** Checks that need an authorization (a code, a denial, the sign-in redirect), and discovery's. */
const CHECKS = [
  'oidc.discovery',
  'grants.pkce-valid-verifier',
  'grants.consent-denied',
  'grants.sign-in-required',
  'grants.state-unchanged',
  'oidc.id-token',
];

let front: Loopback & { sim: Sim };
let other: Loopback;
/** Discovery's authorization_endpoint path on the other origin. */
let authorizeAt = '/oauth/authorize';
/** `METHOD /path` of every request the other origin received. */
const received: string[] = [];
/** The query of each authorization request the other origin received. */
const queries: string[] = [];

beforeAll(async () => {
  let base = '';
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (WITH_AUTHORIZE.test(url.pathname)) {
      req.resume();
      res.writeHead(404, { 'content-type': 'text/html' }).end('<p>Not Found</p>');
      return true;
    }
    if (req.method === 'POST' && url.pathname === '/oauth/authorize_device') {
      sendAnswer(
        res,
        simulatorAnswerTo(front.sim, req, url).then(async (answer) => {
          const text = (await answer.text()).replaceAll(`${front.url}/oauth/device`, `${other.url}/oauth/device`);
          return new Response(text, { status: answer.status, headers: answer.headers });
        }),
      );
      return true;
    }
    if (url.pathname !== '/.well-known/openid-configuration') return false;
    sendAnswer(
      res,
      (async () => {
        const doc = await simulatorDocument(front.sim, url);
        doc.authorization_endpoint = `${other.url}${authorizeAt}`;
        return Response.json(doc);
      })(),
    );
    return true;
  });
  base = front.url;
  // The other origin: the authorization endpoint and its pages, the simulator's (its Locations are
  // relative, so the journey stays here); anything else is not served here.
  other = await listen((req, res) => {
    const url = new URL(req.url ?? '/', other.url);
    received.push(`${req.method} ${url.pathname}`);
    if (url.pathname === '/oauth/authorize') queries.push(url.search.slice(1));
    if (url.pathname === GOOGLE_AUTHORIZE) url.pathname = '/oauth/authorize';
    if (!WITH_AUTHORIZE.test(url.pathname)) {
      everything404(req, res);
      return;
    }
    sendAnswer(res, simulatorAnswerTo(front.sim, req, url));
  });
}, 60_000);

afterAll(async () => {
  await Promise.all([front?.close(), other?.close()]);
});

/** `run` against the front, with the other origin trusted or not, played by `driver`. */
function run(trusted: boolean, driver?: 'browser' | 'form', checks = CHECKS) {
  const seeded = targetConfig(front.sim, front.url);
  return runAgainst(
    front,
    { seed: '20261126', runs: '1' },
    allChecks().filter((c) => checks.includes(c.id)),
    {
      ...(driver ? { driver: { ...seeded.driver, kind: driver } } : {}),
      ...(trusted ? { trustedOrigins: [other.url] } : {}),
    },
  );
}

describe('a provider whose authorization endpoint and sign-in pages are on another origin', () => {
  it('trusted: the drivers sign in there and every check passes', async () => {
    received.length = 0;
    const { code, report, stderr } = await run(true);
    const why = explain(report, stderr);
    expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual([]);
    expect(code, why).toBe(0);
    // The credentials went there, and only what lives there was asked there.
    expect(received, why).toContain('POST /users/sign_in');
    expect(
      received.filter((r) => !WITH_AUTHORIZE.test(r.split(' ')[1])),
      why,
    ).toEqual([]);
  }, 120_000);

  it('not trusted: OIDC-DISCOVERY warns once, nothing is sent there, what needs an authorization is skipped', async () => {
    received.length = 0;
    const { report, stderr } = await run(false);
    const why = explain(report, stderr);
    expect(received, why).toEqual([]);
    expect(checksWith(report, 'failed', 'warned', 'errored'), why).toEqual(['oidc.discovery']);
    expect(report.checks.find((c) => c.id === 'oidc.discovery')?.message, why).toMatch(
      /^authorization_endpoint leaves/,
    );
    expect(erroredText(report), why).toBe('');
    const skipped = report.checks.filter((c) => c.status === 'skipped');
    expect(skipped.length, why).toBe(CHECKS.length - 1);
    for (const c of skipped) expect(c.message, why).toMatch(/authorization_endpoint .*trustedOrigins/);
  }, 120_000);

  it('the device verification page there too, trusted (driver: form): the driver approves on it', async () => {
    received.length = 0;
    const device = ['device.token-response', 'device.verification-page'];
    const { report, stderr } = await run(true, 'form', device);
    const why = explain(report, stderr);
    expect(
      report.checks.map((c) => `${c.status} ${c.id}`),
      why,
    ).toEqual(device.map((id) => `passed ${id}`));
    expect(received, why).toContain('GET /oauth/device');
    expect(received, why).toContain('POST /users/sign_in');
  }, 120_000);

  it("with a query of its own (Azure AD B2C's policy, ?p=…), trusted: asked with it, the run's parameters after", async () => {
    received.length = 0;
    authorizeAt = '/oauth/authorize?p=b2c_1_signin';
    try {
      const { report, stderr } = await run(true, 'form', [
        'oidc.discovery',
        'grants.pkce-valid-verifier',
        'grants.sign-in-required',
      ]);
      const why = explain(report, stderr);
      expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual([]);
      expect(
        queries.some((q) => q.startsWith('p=b2c_1_signin&client_id=')),
        why,
      ).toBe(true);
    } finally {
      authorizeAt = '/oauth/authorize';
    }
  }, 120_000);

  it("at Google's own path, trusted, with the browser driver: signed in there; only OIDC-DISCOVERY warns (the source's path)", async () => {
    received.length = 0;
    authorizeAt = GOOGLE_AUTHORIZE;
    try {
      // Two checks: the browser's pages are the point, the rest is the form driver's case above.
      const { code, report, stderr } = await run(true, 'browser', ['oidc.discovery', 'grants.pkce-valid-verifier']);
      const why = explain(report, stderr);
      expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual(['oidc.discovery']);
      expect(report.checks.find((c) => c.id === 'oidc.discovery')?.message, why).toMatch(
        /^authorization_endpoint must be the absolute URL of \/oauth\/authorize/,
      );
      expect(code, why).toBe(0);
      expect(received, why).toContain(`GET ${GOOGLE_AUTHORIZE}`);
      expect(received, why).toContain('POST /users/sign_in');
    } finally {
      authorizeAt = '/oauth/authorize';
    }
  }, 120_000);
});
