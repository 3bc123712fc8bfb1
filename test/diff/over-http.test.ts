/**
 * `diff --config` against a simulator served on loopback, as against a live deployment: the
 * reference (embedded) differs from a clean one in nothing, from a faulty one where the fault is;
 * and no secret of the target's config reaches the report or the console.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startSimulation, type Simulation } from '../../cli/simulate.js';
import { executeDiff, type DiffFlags } from '../../cli/diff.js';
import type { TargetConfig } from '../../spec/target-config.js';
import type { DiffSection } from '../../suites/report/model.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-diff-http-'));
const clean = join(dir, 'clean.yaml');
const faulty = join(dir, 'faulty.yaml');
let simulations: Simulation[] = [];

beforeAll(async () => {
  simulations = [
    await startSimulation(
      { writeConfig: clean },
      () => undefined,
      () => undefined,
    ),
    await startSimulation(
      { writeConfig: faulty, fault: ['token-cacheable'] },
      () => undefined,
      () => undefined,
    ),
  ];
});
afterAll(async () => {
  for (const s of simulations) await s.served.close();
});

async function diff(flags: DiffFlags, name: string) {
  const file = join(dir, `${name}.json`);
  const out: string[] = [];
  const err: string[] = [];
  const code = await executeDiff(
    { seed: '11', runs: '3', report: `json=${file}`, ...flags },
    { out: (t) => void out.push(t), err: (t) => void err.push(t) },
    {},
  );
  expect(code, err.join('')).not.toBe(2);
  const text = readFileSync(file, 'utf8');
  return { code, text, out: out.join(''), report: JSON.parse(text) as { diff: DiffSection } };
}

function secretsOf(file: string): string[] {
  const config = parse(readFileSync(file, 'utf8')) as TargetConfig;
  return [
    config.personalAccessToken,
    config.user?.password,
    ...Object.values(config.applications ?? {}).map((a) => a?.clientSecret),
  ].filter((s): s is string => typeof s === 'string' && s.length > 0);
}

describe('diff over real HTTP', () => {
  it('finds no difference between a clean served simulator and the reference', { timeout: 300_000 }, async () => {
    const { report, out } = await diff({ config: clean, suite: 'tokens,grants,cors' }, 'clean');
    expect(report.diff.exchanges.paired).toBeGreaterThan(100);
    expect(report.diff.differences, out).toEqual([]);
  });

  it('names the fault of a served simulator, and shows no secret of its config', { timeout: 300_000 }, async () => {
    const { report, text, out } = await diff({ config: faulty, rule: 'TOK-NO-STORE' }, 'faulty');
    expect(report.diff.differences).toContainEqual(
      expect.objectContaining({
        operation: 'POST /oauth/token',
        kind: 'header',
        subject: 'cache-control',
        target: 'absent',
        reference: 'no-store',
        rules: ['TOK-NO-STORE'],
      }),
    );
    const secrets = secretsOf(faulty);
    expect(secrets.length).toBeGreaterThan(2);
    for (const secret of secrets) {
      expect(text).not.toContain(secret);
      expect(out).not.toContain(secret);
    }
  });
});
