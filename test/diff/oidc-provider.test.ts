/**
 * `diff` against an independent provider (issue 22): panva's oidc-provider on loopback, set up as
 * test/independent/ sets it up, against the reference simulator. The differences linked to a rule
 * are the known deviations of test/independent/oidc-provider.test.ts (the rules the target run
 * broke); the others are allowed or not covered by any rule, and the README lists them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeDiff } from '../../cli/diff.js';
import type { Report } from '../../suites/report/model.js';
import { startOidcProvider, type IndependentProvider } from '../independent/oidc-provider-target.js';

let provider: IndependentProvider;
let report: Report;
let out = '';
let code: number;

beforeAll(async () => {
  provider = await startOidcProvider();
  const dir = mkdtempSync(join(tmpdir(), 'idp-diff-oidc-provider-'));
  const configFile = join(dir, 'target.json');
  writeFileSync(configFile, JSON.stringify(provider.config));
  code = await executeDiff(
    { config: configFile, seed: '20261123', runs: '1', suite: 'grants,device,tokens,oidc,cors' },
    { out: (t) => void (out += t), err: () => undefined, onReport: (r) => (report = r) },
    {},
  );
  if (process.env.DIFF_OUT) writeFileSync(process.env.DIFF_OUT, out);
}, 300_000);

afterAll(async () => {
  await provider?.close();
});

describe('diff against oidc-provider', () => {
  it('links only rules the target run broke, the known deviations among them, and judges every difference', () => {
    const broken = new Set(report.checks.flatMap((c) => c.broken ?? []));
    const { differences } = report.diff!;
    expect(differences.length).toBeGreaterThan(10);
    for (const d of differences) for (const r of d.rules) expect(broken, `${d.operation} ${d.subject}`).toContain(r);
    expect(code).toBe(1);
    // Discovery members the reference does not publish are allowed; the harness's oracle is not compared.
    expect(
      differences.filter((d) => d.operation === 'GET /.well-known/openid-configuration' && d.allowed).length,
    ).toBeGreaterThan(3);
    expect(differences.filter((d) => d.operation.includes('/-/simulator'))).toEqual([]);
    expect(out).toContain('Read from the target: device_authorization_grant on');
    const linked = (operation: string, subject: string) =>
      report
        .diff!.differences.filter((d) => d.operation === operation && d.subject === subject)
        .flatMap((d) => d.rules);
    // token_type "Bearer", no created_at (test/independent/oidc-provider.test.ts DEVIATIONS).
    expect(linked('POST /oauth/token', '$.token_type'), out).toContain('TOK-TYPE-LOWERCASE-BEARER');
    expect(linked('POST /oauth/token', '$.created_at'), out).toContain('TOK-CREATED-AT');
    // Revocation answers an empty text body, not {}.
    expect(linked('POST /oauth/revoke', '$'), out).toEqual(expect.arrayContaining(['REV-EMPTY-OBJECT']));
  });
});
