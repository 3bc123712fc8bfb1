/**
 * A provider without token info, userinfo or REST API, but with an RFC 7662 introspection
 * endpoint that discovery advertises: the one oracle left to tell whether a token still works.
 * Built on the simulator: introspection answers `active` from the simulator's own token info.
 * The endpoint on another origin the config trusts (Okta's and Auth0's custom domains beside their
 * own) is asked there; before, only one on the base URL's origin was, and the checks that needed an
 * oracle were skipped.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { listen, bodyOf, simulatorDocument } from '../suites/loopback.js';
import { introspectionAt } from '../../suites/runner/capabilities.js';
import type { Http } from '../../suites/types.js';
import {
  checksWith,
  erroredText,
  notFound,
  rulesWith,
  runAgainst,
  startProvider,
  type Deviation,
  type Reply,
} from './provider.js';

const INTROSPECTION = '/oauth/introspect';
const json = (value: unknown) => ({
  status: 200,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  body: JSON.stringify(value),
});

/** RFC 7662 §2.1-2.2: `active` (and `scope`) from the simulator's own token info at `base`. */
async function introspection(body: string, sim: Sim, base: string): Promise<Reply> {
  const form = new URLSearchParams(body);
  // RFC 7662 §2.1: the endpoint is protected; a caller without client credentials is refused.
  if (!form.get('client_id')) return { status: 401, headers: { 'www-authenticate': 'Basic' } };
  const info = await sim.handle(
    new Request(`${base}/oauth/token/info`, { headers: { authorization: `Bearer ${form.get('token') ?? ''}` } }),
  );
  if (info.status !== 200) return json({ active: false });
  const { scope } = (await info.json()) as { scope: string[] };
  return json({ active: true, scope: scope.join(' ') });
}

/** The provider, its discovery naming the introspection endpoint at `elsewhere` (else on its own origin). */
const introspectingAt =
  (elsewhere?: () => string): Deviation =>
  (method, url) => {
    const base = url.origin;
    if (url.pathname.startsWith('/api/v4') || ['/oauth/token/info', '/oauth/userinfo'].includes(url.pathname))
      return () => notFound;
    if (method === 'GET' && url.pathname === '/.well-known/openid-configuration')
      return async (_body, sim) => {
        const doc = await simulatorDocument(sim, url);
        return json({ ...doc, introspection_endpoint: elsewhere?.() ?? `${base}${INTROSPECTION}` });
      };
    if (method === 'POST' && url.pathname === INTROSPECTION && !elsewhere)
      return (body, sim) => introspection(body, sim, base);
    return undefined;
  };
const introspecting = introspectingAt();

const started: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const p of started) await p.close();
});

describe('a provider whose only token oracle is its advertised introspection endpoint', () => {
  it('judges rotation, revocation and code reuse by introspection; only the absent endpoints fail', async () => {
    const provider = await startProvider(introspecting);
    started.push(provider);
    const { code, report, stderr } = await runAgainst(provider);
    expect(rulesWith(report, 'failed', 'warned'), stderr.slice(-2000)).toEqual([
      'ENC-API-PREFIX',
      'INFO-TOKEN-PRESENTATION',
      'OIDC-USERINFO',
    ]);
    expect(checksWith(report, 'errored'), erroredText(report)).toEqual([]);
    const status = new Map(report.rules.map((r) => [r.id, r.status]));
    for (const id of ['TOK-REFRESH-ROTATION', 'REV-REVOKES-TOKEN', 'GRANT-CODE-REUSE-REVOKES'])
      expect(status.get(id), id).toBe('passed');
    expect(provider.answered.filter((a) => a === `POST ${INTROSPECTION}`).length).toBeGreaterThan(5);
    expect(code).toBe(1);
  }, 300_000);

  it('fails TOK-REFRESH-ROTATION when the old access token stays active after a refresh', async () => {
    const provider = await startProvider(introspecting, { faults: ['old-access-token-valid'] });
    started.push(provider);
    const { report } = await runAgainst(provider, { check: 'grants.refresh-rotation' });
    expect(checksWith(report, 'errored'), erroredText(report)).toEqual([]);
    expect(rulesWith(report, 'failed', 'warned')).toEqual(['TOK-REFRESH-ROTATION']);
    expect(report.checks[0].message).toMatch(/POST \/oauth\/introspect still accepts the access token/);
  }, 120_000);

  it('asks one on another origin the config trusts there, and one on an untrusted origin never', async () => {
    const asked: string[] = [];
    const at: { url?: string; sim?: Sim } = {};
    const other = await listen((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      void bodyOf(req).then(async (body) => {
        const { status, headers = {}, body: text = '' } = await introspection(body.toString('utf8'), at.sim!, at.url!);
        res.writeHead(status, headers).end(text);
      });
    });
    started.push(other);
    const provider = await startProvider(introspectingAt(() => `${other.url}/oauth2/v1/introspect`));
    started.push(provider);
    Object.assign(at, { url: provider.url, sim: provider.sim });
    const check = { check: 'grants.refresh-rotation', runs: '1' };
    const trusted = await runAgainst(provider, check, undefined, { trustedOrigins: [other.url] });
    expect(checksWith(trusted.report, 'failed', 'warned', 'errored', 'skipped'), erroredText(trusted.report)).toEqual(
      [],
    );
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked)).toEqual(new Set(['POST /oauth2/v1/introspect']));
    asked.length = 0;
    const untrusted = await runAgainst(provider, check);
    expect(asked).toEqual([]);
    // No rule is blamed: with no oracle left, the harness cannot judge (as before).
    expect(rulesWith(untrusted.report, 'failed', 'warned')).toEqual([]);
    expect(`${untrusted.report.checks[0].status} ${untrusted.report.checks[0].message}`).toMatch(
      /^errored .*no oracle.*; discovery's introspection_endpoint is http:\/\/127\.0\.0\.1:\d+\/oauth2\/v1\/introspect, which leaves the target's origin .*: nothing was sent there \(trustedOrigins/,
    );
  }, 120_000);
});

describe('where the introspection endpoint discovery advertises is asked', () => {
  const http = (baseUrl: string) => ({ baseUrl, leaves: () => undefined }) as unknown as Http;
  it('under a base URL with a path prefix: its path there, the prefix not put before it twice', () => {
    const base = 'https://h.example/gitlab';
    expect(introspectionAt(http(base), { introspection_endpoint: `${base}/oauth/introspect` })).toEqual({
      path: '/oauth/introspect',
    });
    // On the origin but outside the base URL: its URL, as follow takes it.
    expect(introspectionAt(http(base), { introspection_endpoint: 'https://h.example/other/introspect' })).toEqual({
      path: 'https://h.example/other/introspect',
    });
  });
});
