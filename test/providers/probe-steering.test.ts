/**
 * A target that refuses only the start-up's questions (review 24): an empty POST to the token,
 * revocation and device authorization endpoints, the bare GET /oauth/authorize and the first GET
 * of the key set answer 404, every real request is served. The start-up takes those endpoints for
 * absent, so the checks that need them are skipped naming a reporter; before, those reporters
 * passed on their own (served) requests and the run ended PASS, exit 0, the absence reported by
 * nobody. Each reporter must judge the start-up's answer on its rule, once, naming both answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../suites/report/model.js';
import { simulatorWith, type Loopback } from '../suites/loopback.js';
import { targetConfig } from '../../simulator/control/config.js';
import { explain, notFound, runChecks, startProvider } from './provider.js';
import type { Sim } from '../../simulator/types.js';

/** Each endpoint the start-up asks, the check that reports its absence, and the rule it fails. */
const OWNERS = [
  { reporter: 'grants.sign-in-required', rule: 'GRANT-CODE-FLOW', served: 302 },
  // These two need the authorization endpoint first: skipped on it, they still report their own.
  { reporter: 'grants.token-response-fields', rule: 'GRANT-CODE-PARAMS' },
  { reporter: 'tokens.revoke-access-token', rule: 'REV-PARAMS' },
  { reporter: 'device.authorization-response', rule: 'DEV-AVAILABILITY', served: 200 },
  { reporter: 'oidc.jwks', rule: 'OIDC-JWKS', served: 200 },
];
/** Checks that need the steered endpoints, and the one whose skip said the device grant was offered. */
const DEPENDENTS = ['grants.refresh-rotation', 'device.authorization-timings', 'oidc.id-token', 'device.unavailable'];

/** The start-up's questions, told from real requests by their shape alone. */
function steered(): (req: { method?: string; url?: string; headers: Record<string, unknown> }) => boolean {
  const keysAsked = new Set<string>();
  return (req) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const empty = !req.headers['content-length'] || req.headers['content-length'] === '0';
    if (req.method === 'POST' && /^\/oauth\/(token|revoke|authorize_device)$/.test(url.pathname)) return empty;
    if (req.method === 'GET' && url.pathname === '/oauth/authorize') return url.search === '';
    if (req.method === 'GET' && url.pathname === '/oauth/discovery/keys' && !keysAsked.has(url.pathname))
      return keysAsked.add(url.pathname) !== undefined;
    return false;
  };
}

let server: Loopback & { sim: Sim };
let report: Report;
let code: number;
let why: string;

beforeAll(async () => {
  const probe = steered();
  server = await simulatorWith((req, res) => {
    if (!probe(req)) return false;
    req.resume();
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not_found"}');
    return true;
  });
  let stderr: string;
  ({ code, report, stderr } = await runChecks(server, [...OWNERS.map((o) => o.reporter), ...DEPENDENTS]));
  why = explain(report, stderr);
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe('a target that answers 404 only to the start-up probes', () => {
  it('does not pass: the run fails (exit 1)', () => {
    expect(code, why).toBe(1);
  });

  it.each(OWNERS)('$reporter fails $rule once, on the start-up answer', ({ reporter, rule, served }) => {
    const result = report.checks.find((c) => c.id === reporter);
    expect(result?.status, why).toBe('failed');
    expect(result?.broken, why).toContain(rule);
    expect(report.rules.find((r) => r.id === rule)?.status, why).toBe('failed');
    // One cause, one blame: no other check breaks that rule.
    expect(report.checks.filter((c) => c.broken?.includes(rule)).map((c) => c.id)).toEqual([reporter]);
    expect(result?.message, why).toMatch(/answered 404 at start-up/);
    // Its own request served: both answers named, the target's two ways with one endpoint.
    if (served)
      expect(result?.message, why).toMatch(new RegExp(`404 at start-up.* this check's .* answered ${served}`));
    else expect(result?.message, why).toMatch(/the rest of this check is untested: .*no authorization endpoint/);
  });

  it('skips what needs the steered endpoints, naming the reporter that failed', () => {
    for (const id of DEPENDENTS.filter((d) => d !== 'device.unavailable')) {
      const result = report.checks.find((c) => c.id === id);
      expect(result?.status, `${id}\n${why}`).toBe('skipped');
      expect(result?.message, id).toMatch(/reports it on (GRANT-CODE-FLOW|DEV-AVAILABILITY|OIDC-JWKS)\)/);
    }
  });

  it('says no contradictory line about the device grant beside its absence', () => {
    const unavailable = report.checks.find((c) => c.id === 'device.unavailable');
    expect(unavailable?.status).toBe('skipped');
    expect(unavailable?.message).not.toMatch(/offered by this target/);
    expect(unavailable?.message).toMatch(/device\.authorization-response/);
  });
});

/**
 * The same for the other start-up premises a reporter says: the endpoint families (the REST API,
 * token information, userinfo: 404 to the start-up's questions only, the first two GET
 * /api/v4/user, without and with the token) and a device grant declared yet refused (the
 * start-up's two device authorizations answered unauthorized_client). Token information and
 * userinfo were asked without credentials, as a provider hiding them from anonymous callers
 * answers: their reporters blame no rule and pass nothing (errored); the others fail their rule.
 */
describe('a target that refuses only the start-up questions of the endpoint families and the device grant', () => {
  const FAMILY_OWNERS = [
    {
      reporter: 'versioning.api-prefix',
      rule: 'ENC-API-PREFIX',
      status: 'failed',
      said: /two ways: GET \/api\/v4\/user answered 404 at start-up.* answered 200/,
    },
    {
      reporter: 'tokens.info-presentations',
      rule: 'INFO-TOKEN-PRESENTATION',
      status: 'errored',
      said: /without credentials \(GET \/oauth\/token\/info answered 404 at start-up\).* answered 200/,
    },
    {
      reporter: 'oidc.userinfo',
      rule: 'OIDC-USERINFO',
      status: 'errored',
      said: /without credentials \(GET \/oauth\/userinfo answered 404 at start-up\).* answered 200/,
    },
    {
      reporter: 'device.authorization-response',
      rule: 'DEV-AVAILABILITY',
      status: 'failed',
      said: /refused to the configured application at start-up \(400 unauthorized_client\).*two ways/,
    },
  ];
  const NEEDING = ['versioning.unknown-route-404', 'tokens.info-deprecated-aliases', 'device.authorization-timings'];
  let families: Loopback & { sim: Sim };
  let familyReport: Report;
  let familyCode: number;
  let familyWhy: string;

  beforeAll(async () => {
    const asked = { rest: 0, device: 0 };
    families = await simulatorWith((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const anonymous = !req.headers.authorization && !url.searchParams.has('access_token');
      const family =
        (req.method === 'GET' && url.pathname === '/api/v4/user' && asked.rest++ < 2) ||
        (req.method === 'GET' && anonymous && ['/oauth/token/info', '/oauth/userinfo'].includes(url.pathname));
      const device =
        req.method === 'POST' && url.pathname === '/oauth/authorize_device' && req.headers['content-length'] !== '0';
      if (!family && !(device && asked.device++ < 2)) return false;
      req.resume();
      res.writeHead(family ? 404 : 400, { 'content-type': 'application/json' });
      res.end(family ? '{"error":"not_found"}' : '{"error":"unauthorized_client"}');
      return true;
    });
    let stderr: string;
    ({
      code: familyCode,
      report: familyReport,
      stderr,
    } = await runChecks(families, [...FAMILY_OWNERS.map((o) => o.reporter), ...NEEDING]));
    familyWhy = explain(familyReport, stderr);
  }, 120_000);

  afterAll(async () => {
    await families?.close();
  });

  it('does not pass: each reporter says it once, naming both answers; what needs it is skipped', () => {
    expect(familyCode, familyWhy).toBe(1);
    for (const { reporter, rule, status, said } of FAMILY_OWNERS) {
      const result = familyReport.checks.find((c) => c.id === reporter);
      expect(result?.status, `${reporter}\n${familyWhy}`).toBe(status);
      expect(result?.message, familyWhy).toMatch(said);
      expect(familyReport.checks.filter((c) => c.broken?.includes(rule)).map((c) => c.id)).toEqual(
        status === 'failed' ? [reporter] : [],
      );
    }
    for (const id of NEEDING)
      expect(familyReport.checks.find((c) => c.id === id)?.status, `${id}\n${familyWhy}`).toBe('skipped');
  });
});

describe('a reporter the gate stops', () => {
  it('judges nothing, the start-up answer neither: oidc.userinfo without an openid application stays skipped', async () => {
    const provider = await startProvider((method, url) =>
      method === 'GET' && url.pathname === '/oauth/userinfo' ? () => notFound : undefined,
    );
    try {
      const { applications } = targetConfig(provider.sim, provider.url);
      const withoutOpenid = Object.fromEntries(
        Object.entries(applications ?? {}).map(([role, app]) => [
          role,
          { ...app, scopes: app.scopes.filter((s) => s !== 'openid') },
        ]),
      );
      const { report, stderr } = await runChecks(provider, ['oidc.userinfo'], {}, { applications: withoutOpenid });
      expect(
        report.checks.map((c) => `${c.status} ${c.id}`),
        explain(report, stderr),
      ).toEqual(['skipped oidc.userinfo']);
    } finally {
      await provider.close();
    }
  }, 60_000);
});
