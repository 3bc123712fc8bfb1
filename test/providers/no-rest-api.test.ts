/**
 * An OAuth provider without GitLab's REST API (Keycloak, Okta, Auth0): every path under /api/v4
 * answers 404 with an HTML page, the OAuth endpoints (token info included) answer as the source
 * says. The absent API is reported once, on ENC-API-PREFIX; token info is judged whole, its
 * resource_owner_id only where an API names the user to compare it with.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../suites/report/model.js';
import { checksWith, erroredText, explain, rulesWith, runAgainst, startProvider, type Provider } from './provider.js';

const noApi = (_method: string, url: URL) =>
  url.pathname.startsWith('/api/v4')
    ? () => ({ status: 404, headers: { 'content-type': 'text/html' }, body: '<h1>Not Found</h1>' })
    : undefined;

let provider: Provider;
let report: Report;
let code: number;
let stderr: string;

beforeAll(async () => {
  provider = await startProvider(noApi);
  ({ code, report, stderr } = await runAgainst(provider));
}, 300_000);

afterAll(async () => {
  await provider?.close();
});

describe('a provider with token info and no REST API', () => {
  it('fails ENC-API-PREFIX alone, once', () => {
    const why = explain(report, stderr);
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['ENC-API-PREFIX']);
    expect(checksWith(report, 'failed', 'warned'), why).toEqual(['versioning.api-prefix']);
    expect(checksWith(report, 'errored'), erroredText(report)).toEqual([]);
    expect(code).toBe(1);
  });

  it('judges token info without the user the absent API would name (review 28, defect 7)', () => {
    const status = new Map(report.rules.map((r) => [r.id, r.status]));
    for (const id of ['INFO-RESPONSE-FIELDS', 'INFO-TOKEN-PRESENTATION']) expect(status.get(id), id).toBe('passed');
    expect(report.checks.find((c) => c.id === 'tokens.info-presentations')?.status).toBe('passed');
  });
});
