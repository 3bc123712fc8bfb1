/**
 * An OAuth-only provider: the simulator with no REST API and no token information endpoint (both
 * answer 404 text/plain, as a server without those routes does). Each absent endpoint is reported
 * once, on the rule that says it exists; what depends on it is skipped with that reason; and the
 * token oracles still judge rotation, revocation and code reuse through /oauth/userinfo.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../suites/report/model.js';
import { checksWith, erroredText, notFound, rulesWith, runAgainst, startProvider, type Provider } from './provider.js';

const oauthOnly = (_method: string, url: URL) =>
  url.pathname.startsWith('/api/v4') || url.pathname === '/oauth/token/info' ? () => notFound : undefined;

let provider: Provider;
let report: Report;
let code: number;
let stderr: string;

beforeAll(async () => {
  provider = await startProvider(oauthOnly);
  ({ code, report, stderr } = await runAgainst(provider));
}, 300_000);

afterAll(async () => {
  await provider?.close();
});

describe('an OAuth-only provider (no /api/v4, no /oauth/token/info)', () => {
  it('fails only the two rules that say the endpoints exist, once each', () => {
    expect(rulesWith(report, 'failed', 'warned'), stderr.slice(-2000)).toEqual([
      'ENC-API-PREFIX',
      'INFO-TOKEN-PRESENTATION',
    ]);
    expect(checksWith(report, 'failed', 'warned')).toEqual(['tokens.info-presentations', 'versioning.api-prefix']);
    expect(checksWith(report, 'errored'), erroredText(report)).toEqual([]);
    expect(code).toBe(1);
  });

  it('skips what depends on an absent endpoint, naming it and the rule that reports it', () => {
    const skipped = new Map(report.checks.filter((c) => c.status === 'skipped').map((c) => [c.id, c.message ?? '']));
    for (const id of [
      'encoding.uri-too-long-414',
      'pagination.keyset-list-projects',
      'scopes.presentation-bearer',
      'versioning.unknown-route-404',
    ])
      expect(skipped.get(id), id).toMatch(/no REST API: GET \/api\/v4\/user answered 404 .*ENC-API-PREFIX/);
    for (const id of ['tokens.info-deprecated-aliases', 'tokens.info-invalid-token', 'tokens.info-expires-in-null'])
      expect(skipped.get(id), id).toMatch(/no token information endpoint.*INFO-TOKEN-PRESENTATION/);
    // ENC-JSON-CONTENT-TYPE judged the JSON answers the target gives, not a 404 of an absent endpoint.
    expect(report.rules.find((r) => r.id === 'ENC-JSON-CONTENT-TYPE')?.status).toBe('passed');
  });

  it('judges rotation, revocation and code reuse through /oauth/userinfo', () => {
    const status = new Map(report.rules.map((r) => [r.id, r.status]));
    for (const id of [
      'TOK-REFRESH-ROTATION',
      'REV-REVOKES-TOKEN',
      'GRANT-CODE-REUSE-REVOKES',
      'REV-REFRESH-REVOKES-PAIR',
    ])
      expect(status.get(id), id).toBe('passed');
  });
});

describe('an OAuth-only provider whose old access token still works after a refresh', () => {
  it('fails TOK-REFRESH-ROTATION: userinfo is the oracle (source L92)', async () => {
    const faulty = await startProvider(oauthOnly, { faults: ['old-access-token-valid'] });
    try {
      const { report: r } = await runAgainst(faulty, { check: 'grants.refresh-rotation' });
      expect(checksWith(r, 'errored'), erroredText(r)).toEqual([]);
      expect(rulesWith(r, 'failed', 'warned')).toEqual(['TOK-REFRESH-ROTATION']);
      expect(r.checks[0].message).toMatch(/GET \/oauth\/userinfo still accepts the access token/);
    } finally {
      await faulty.close();
    }
  }, 120_000);
});
