/**
 * One cause, one blame: a provider whose code responses carry no refresh token (panva's
 * oidc-provider issues one only for offline_access, as Ory Hydra, Okta and Entra ID do) breaks
 * TOK-REFRESH-TOKEN-PRESENT once. The checks that judge the code response's fields fail on it; every
 * check that needs a refresh token to refresh or revoke is then skipped, naming the rule, instead of
 * failing again on it (before, four more checks failed, each saying its own rules were untested).
 * Run alone, a check that needs one still fails on the rule: the premise is never left unsaid.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeRun } from '../../cli/run.js';
import type { Report } from '../../suites/report/model.js';
import { startOidcProvider, type IndependentProvider } from './oidc-provider-target.js';

/** The checks that need a refresh token of a code response (suites/shared/oauth.ts refreshTokenOf). */
const NEED_ONE = [
  'grants.refresh-rotation',
  'grants.refresh-client-bound',
  'tokens.revoke-access-token',
  'tokens.revoke-refresh-token',
];
/** The checks whose own subject is the code response's fields. */
const JUDGE_FIELDS = ['grants.pkce-valid-verifier', 'grants.token-response-fields'];

let provider: IndependentProvider;
let dir: string;
let configFile: string;

async function run(args: Record<string, string>): Promise<{ report: Report; exitCode: number; stderr: string }> {
  const file = join(dir, `report-${Object.values(args).join('-').replace(/\W+/g, '_')}.json`);
  let stderr = '';
  const exitCode = await executeRun(
    { config: configFile, seed: '20261127', runs: '3', report: `json=${file}`, ...args },
    { out: () => undefined, err: (t) => void (stderr += t) },
    {},
  );
  return { report: JSON.parse(readFileSync(file, 'utf8')) as Report, exitCode, stderr };
}

const blames = (report: Report, rule: string) =>
  report.checks
    .filter((c) => (c.failures ?? [{ broken: c.broken ?? [] }]).some((f) => f.broken.includes(rule)))
    .map((c) => c.id);

beforeAll(async () => {
  provider = await startOidcProvider(undefined, { refreshTokens: false });
  dir = mkdtempSync(join(tmpdir(), 'idp-refresh-premise-'));
  configFile = join(dir, 'target.json');
  writeFileSync(configFile, JSON.stringify(provider.config));
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

describe('a provider without refresh tokens in its code responses', () => {
  it('fails TOK-REFRESH-TOKEN-PRESENT where the fields are judged and skips what needs a refresh token', async () => {
    const { report, stderr } = await run({ suite: 'grants,tokens' });
    expect(report.rules.find((r) => r.id === 'TOK-REFRESH-TOKEN-PRESENT')?.status, stderr.slice(-2000)).toBe('failed');
    const blamed = blames(report, 'TOK-REFRESH-TOKEN-PRESENT');
    expect(blamed.length).toBeGreaterThan(0);
    for (const id of blamed) expect(JUDGE_FIELDS, `${id} failed on the missing refresh token again`).toContain(id);
    for (const id of NEED_ONE) {
      const check = report.checks.find((c) => c.id === id);
      expect(check?.status, `${id}: ${check?.message}`).toBe('skipped');
      expect(check?.message).toMatch(/no refresh_token.*TOK-REFRESH-TOKEN-PRESENT failed/);
    }
  }, 300_000);

  it('run alone, a check that needs a refresh token fails on the rule: the premise is said', async () => {
    const { report, exitCode } = await run({ check: 'grants.refresh-rotation' });
    const check = report.checks.find((c) => c.id === 'grants.refresh-rotation');
    expect(check?.status, check?.message).toBe('failed');
    expect(blames(report, 'TOK-REFRESH-TOKEN-PRESENT')).toEqual(['grants.refresh-rotation']);
    expect(exitCode).toBe(1);
  }, 120_000);
});
