/**
 * Split origins, as Google's: the authorization endpoint, the sign-in pages and the REST API on
 * the base URL's origin, the token, revocation, device authorization, userinfo and key set
 * endpoints on another (another port of 127.0.0.1), as discovery says. Without `trustedOrigins`
 * naming it, nothing is sent there: the one verdict is discovery's warning (OIDC-DISCOVERY, an endpoint
 * off the target's origin, L3 and L104-L113 put every endpoint under `{base_url}`), and every check
 * that needs one of those endpoints is skipped, saying where it is and why it was not asked; none
 * fails. With `trustedOrigins` listing it, the same checks pass, their requests to those endpoints
 * sent there and only those. Before, each endpoint read as absent at the base URL: ten rules
 * failed or warned over four checks (GRANT-CODE-PARAMS, GRANT-CODE-FLOW, DEV-AVAILABILITY, OIDC-JWKS,
 * AUTH-CLIENT-BODY...), and with `trustedOrigins` nine over three.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** The endpoints Google serves on another origin than its authorization endpoint, by discovery member. */
const ELSEWHERE: Record<string, string> = {
  token_endpoint: '/oauth/token',
  revocation_endpoint: '/oauth/revoke',
  device_authorization_endpoint: '/oauth/authorize_device',
  userinfo_endpoint: '/oauth/userinfo',
  jwks_uri: '/oauth/discovery/keys',
};
/** The members moved in the running test (all of ELSEWHERE unless it says otherwise). */
let moving: Record<string, string> = ELSEWHERE;
/** Where the other origin serves a moved path, when not at the same path (Google's own paths). */
let onOther: Record<string, string> = {};
const GOOGLE_PATHS: Record<string, string> = {
  '/oauth/token': '/token',
  '/oauth/revoke': '/revoke',
  '/oauth/authorize_device': '/device/code',
  '/oauth/userinfo': '/v1/userinfo',
  '/oauth/discovery/keys': '/oauth2/v3/certs',
};
/** Source paths the other origin answers 404 to, though discovery names it there. */
let absentOnOther = new Set<string>();
/** The source path the other origin serves at `path`, if it serves one there. */
const servedAt = (path: string) => Object.values(moving).find((p) => (onOther[p] ?? p) === path);
const moved = {
  has: (path: string) => Object.values(moving).includes(path),
  get all() {
    return new Set(Object.values(moving));
  },
};

/** One check per moved endpoint at least, and discovery's. */
const CHECKS = [
  'grants.token-response-fields',
  'grants.pkce-valid-verifier',
  'tokens.revoke-access-token',
  'device.authorization-response',
  'oidc.discovery',
  'oidc.jwks',
  'oidc.id-token',
  'oidc.userinfo',
  'cors.preflight',
];

let front: Loopback & { sim: Sim };
let other: Loopback;
/** `METHOD /path` of every request the other origin received. */
const received: string[] = [];

beforeAll(async () => {
  let base = '';
  // The base URL's origin: the simulator, without the moved endpoints, its discovery naming them elsewhere.
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (moved.has(url.pathname)) {
      req.resume();
      res.writeHead(404, { 'content-type': 'text/html' }).end('<p>Not Found</p>');
      return true;
    }
    if (url.pathname !== '/.well-known/openid-configuration') return false;
    sendAnswer(
      res,
      (async () => {
        const doc = await simulatorDocument(front.sim, url);
        for (const [member, path] of Object.entries(moving)) doc[member] = `${other.url}${onOther[path] ?? path}`;
        return Response.json(doc);
      })(),
    );
    return true;
  });
  base = front.url;
  // The other origin: only the moved endpoints, answered by the same simulator as if asked at the front.
  other = await listen((req, res) => {
    const url = new URL(req.url ?? '/', front.url);
    received.push(`${req.method} ${url.pathname}`);
    const source = servedAt(url.pathname);
    if (!source || absentOnOther.has(source)) {
      everything404(req, res);
      return;
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    headers.set('host', new URL(front.url).host);
    url.pathname = source;
    sendAnswer(res, simulatorAnswerTo(front.sim, req, url, headers));
  });
}, 60_000);

afterAll(async () => {
  await Promise.all([front?.close(), other?.close()]);
});

/** `run` against the front, with the other origin trusted or not. */
function run(trusted: boolean, checks = CHECKS) {
  return runAgainst(
    front,
    { seed: '20261126', runs: '1' },
    allChecks().filter((c) => checks.includes(c.id)),
    trusted ? { trustedOrigins: [other.url] } : {},
  );
}

describe('a provider whose token, revocation, device, userinfo and key endpoints are on another origin', () => {
  it('without trustedOrigins: OIDC-DISCOVERY warns once, nothing is sent there, what needs them is skipped', async () => {
    received.length = 0;
    const { report, stderr } = await run(false);
    const why = explain(report, stderr);
    expect(received, why).toEqual([]);
    expect(
      report.rules.filter((r) => r.status === 'failed' || r.status === 'warned').map((r) => r.id),
      why,
    ).toEqual(['OIDC-DISCOVERY']);
    expect(erroredText(report), why).toBe('');
    const skipped = report.checks.filter((c) => c.status === 'skipped');
    expect(skipped.map((c) => c.id).sort(), why).toEqual(checksWith(report, 'skipped'));
    expect(skipped.length, why).toBe(CHECKS.length - 1);
    for (const c of skipped) expect(c.message, why).toMatch(/leaves the target's origin.*trustedOrigins/);
  }, 120_000);

  it('with trustedOrigins listing it: every check passes, and only the moved endpoints were asked there', async () => {
    received.length = 0;
    const { code, report, stderr } = await run(true);
    const why = explain(report, stderr);
    expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual([]);
    expect(code, why).toBe(0);
    expect(received.length, why).toBeGreaterThan(0);
    expect(
      received.filter((r) => !moved.has(r.split(' ')[1])),
      why,
    ).toEqual([]);
    // Each moved endpoint was asked there.
    expect(new Set(received.map((r) => r.split(' ')[1])), why).toEqual(moved.all);
  }, 120_000);

  it('only the device authorization endpoint elsewhere, untrusted: oidc.discovery says so, the device checks are skipped', async () => {
    received.length = 0;
    moving = { device_authorization_endpoint: ELSEWHERE.device_authorization_endpoint };
    try {
      const { report, stderr } = await run(false);
      const why = explain(report, stderr);
      expect(received, why).toEqual([]);
      const discovery = report.checks.find((c) => c.id === 'oidc.discovery');
      expect(`${discovery?.status} ${discovery?.message}`, why).toMatch(/^warned device_authorization_endpoint leaves/);
      expect(checksWith(report, 'failed', 'warned', 'errored'), why).toEqual(['oidc.discovery']);
      const device = report.checks.find((c) => c.id === 'device.authorization-response');
      expect(`${device?.status} ${device?.message}`, why).toMatch(
        /^skipped .*discovery's device_authorization_endpoint/,
      );
    } finally {
      moving = ELSEWHERE;
    }
  }, 120_000);

  it("at Google's own paths, trusted: asked there; only OIDC-DISCOVERY warns (the source's paths)", async () => {
    received.length = 0;
    onOther = GOOGLE_PATHS;
    const live = () => [...front.sim.store.accessTokens.values()].filter((t) => t.revokedAt === null).length;
    const before = live();
    try {
      const { code, report, stderr } = await run(true);
      const why = explain(report, stderr);
      expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual(['oidc.discovery']);
      expect(report.checks.find((c) => c.id === 'oidc.discovery')?.message, why).toMatch(
        /^token_endpoint must be the absolute URL of \/oauth\/token/,
      );
      expect(code, why).toBe(0);
      expect(new Set(received.map((r) => r.split(' ')[1])), why).toEqual(new Set(Object.values(GOOGLE_PATHS)));
      // Every token the run got at /token was revoked at its end, at /revoke.
      expect(live(), why).toBe(before);
    } finally {
      onOther = {};
    }
  }, 120_000);

  it('at its own path and absent there: reported once by its reporter, the others skipped', async () => {
    onOther = GOOGLE_PATHS;
    absentOnOther = new Set(['/oauth/revoke']);
    try {
      const { report, stderr } = await run(true, ['tokens.revoke-access-token', 'tokens.revoke-unknown-token']);
      const why = explain(report, stderr);
      expect(checksWith(report, 'failed', 'warned', 'errored'), why).toEqual(['tokens.revoke-access-token']);
      const other = report.checks.find((c) => c.id === 'tokens.revoke-unknown-token');
      // It names where the start-up asked, not the source's path.
      expect(`${other?.status} ${other?.message}`, why).toMatch(
        /^skipped the target has no revocation endpoint: an empty POST http:\/\/127\.0\.0\.1:\d+\/revoke answered/,
      );
    } finally {
      onOther = {};
      absentOnOther = new Set();
    }
  }, 120_000);
});
