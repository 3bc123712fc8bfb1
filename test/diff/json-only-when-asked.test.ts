/**
 * `diff` against a provider that answers JSON only when asked (GitHub's token and device
 * endpoints, test/independent/json-only-when-asked.ts): the harness asks those endpoints for JSON
 * as clients do, so the two targets differ only in the two exchanges sent without Accept, and
 * each difference is linked to the JSON rule that answer breaks.
 */
import { expect, it } from 'vitest';
import { executeDiff } from '../../cli/diff.js';
import { allChecks } from '../../suites/index.js';
import type { Report } from '../../suites/report/model.js';
import { proxyForTests } from '../independent/oauth-proxy.js';
import { JSON_READERS, jsonOnlyWhenAsked } from '../independent/json-only-when-asked.js';

const proxy = proxyForTests();

it('differs only where the harness asked without Accept, each difference on a JSON rule', async () => {
  proxy().use(jsonOnlyWhenAsked);
  let report: Report | undefined;
  const out: string[] = [];
  const code = await executeDiff(
    { config: proxy().configFile, seed: '20261125', runs: '2' },
    {
      out: (t) => void out.push(t),
      err: (t) => void out.push(t),
      checks: () => allChecks().filter((c) => JSON_READERS.includes(c.id)),
      onReport: (r) => (report = r),
    },
    {},
  );
  proxy().use(undefined);
  const why = out.join('').slice(-3000);
  const rows = report!.diff!.differences.map((d) => ({ operation: d.operation, checks: d.checks, rules: d.rules }));
  expect(rows.length, why).toBeGreaterThan(0);
  for (const row of rows) {
    expect(['POST /oauth/token', 'POST /oauth/authorize_device'], why).toContain(row.operation);
    expect(row.checks, why).toEqual([
      row.operation === 'POST /oauth/token' ? 'grants.token-response-fields' : 'device.authorization-response',
    ]);
    expect(row.rules.length, why).toBeGreaterThan(0);
    for (const rule of row.rules)
      expect(['TOK-RESPONSE-JSON', 'DEV-AUTHORIZE-RESPONSE', 'ENC-RESPONSE-JSON']).toContain(rule);
  }
  expect(new Set(rows.map((r) => r.operation)).size, why).toBe(2);
  expect(code, why).toBe(1);
}, 300_000);
