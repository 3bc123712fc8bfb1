/**
 * A provider without token info, userinfo or REST API, but with an RFC 7662 introspection
 * endpoint that discovery advertises: the one oracle left to tell whether a token still works.
 * Built on the simulator: introspection answers `active` from the simulator's own token info.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { checksWith, erroredText, notFound, rulesWith, runAgainst, startProvider, type Deviation } from './provider.js';

const INTROSPECTION = '/oauth/introspect';
const json = (value: unknown) => ({
  status: 200,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  body: JSON.stringify(value),
});

const introspecting: Deviation = (method, url) => {
  const base = url.origin;
  if (url.pathname.startsWith('/api/v4') || ['/oauth/token/info', '/oauth/userinfo'].includes(url.pathname))
    return () => notFound;
  if (method === 'GET' && url.pathname === '/.well-known/openid-configuration')
    return async (_body, sim) => {
      const doc = (await (await sim.handle(new Request(url))).json()) as Record<string, unknown>;
      return json({ ...doc, introspection_endpoint: `${base}${INTROSPECTION}` });
    };
  if (method === 'POST' && url.pathname === INTROSPECTION)
    return async (body, sim) => {
      const form = new URLSearchParams(body);
      // RFC 7662 §2.1: the endpoint is protected; a caller without client credentials is refused.
      if (!form.get('client_id')) return { status: 401, headers: { 'www-authenticate': 'Basic' } };
      const info = await sim.handle(
        new Request(`${base}/oauth/token/info`, { headers: { authorization: `Bearer ${form.get('token') ?? ''}` } }),
      );
      if (info.status !== 200) return json({ active: false });
      const { scope } = (await info.json()) as { scope: string[] };
      return json({ active: true, scope: scope.join(' ') });
    };
  return undefined;
};

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
});
