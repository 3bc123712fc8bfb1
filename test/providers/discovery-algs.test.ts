/**
 * A discovery document without id_token_signing_alg_values_supported (REQUIRED, OIDC Discovery §3):
 * oidc.discovery warns OIDC-DISCOVERY for it, once, and oidc.discovery-rs256, which judges what the
 * list holds, is skipped saying so. Before, no check read the member: both passed or skipped, and
 * the skip named a verdict oidc.discovery never gave.
 */
import { describe, expect, it } from 'vitest';
import { allChecks } from '../../suites/index.js';
import { simulatorDocument } from '../suites/loopback.js';
import { explain, runAgainst, startProvider } from './provider.js';

describe('a discovery document without id_token_signing_alg_values_supported', () => {
  it('warns OIDC-DISCOVERY once; the RS256 check is skipped, naming it', async () => {
    const provider = await startProvider((method, url, sim) =>
      method === 'GET' && url.pathname === '/.well-known/openid-configuration'
        ? async () => {
            const doc = await simulatorDocument(sim, url);
            delete doc.id_token_signing_alg_values_supported;
            return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(doc) };
          }
        : undefined,
    );
    try {
      const ids = ['oidc.discovery', 'oidc.discovery-rs256'];
      const { report, stderr, code } = await runAgainst(
        provider,
        { runs: '1' },
        allChecks().filter((c) => ids.includes(c.id)),
      );
      const why = explain(report, stderr);
      const [discovery, rs256] = ids.map((id) => report.checks.find((c) => c.id === id));
      expect(discovery?.status, why).toBe('warned');
      expect(discovery?.message, why).toMatch(/id_token_signing_alg_values_supported must be a list/);
      expect(rs256?.status, why).toBe('skipped');
      expect(rs256?.message, why).toMatch(/oidc\.discovery judges the document \(OIDC-DISCOVERY\)/);
      expect(code).toBe(0);
    } finally {
      await provider.close();
    }
  });
});
