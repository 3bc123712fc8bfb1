/**
 * A target that answers every refused token request with a new, long `error` (red team, round 7,
 * m-errflood.js) made one failure a request, each quoting its answer whole: a 120 MB JSON report,
 * a 60 MB HTML one and 1.35 GB of memory for one check. A check now keeps MAX_FAILURES failures
 * and counts the rest, and each value it quotes from the target is cut, so every report format
 * and the console stay small.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checks as grantsChecks } from '../../suites/grants/index.js';
import type { Report } from '../../suites/report/model.js';
import { MAX_FAILURES } from '../../suites/runner/context.js';
import { runCli } from '../suites/loopback.js';
import { proxiedSimulator } from './collector.js';

/** Characters of each `error`: far beyond anything a report should quote. */
const LONG = 20_000;
const RUNS = 20;

const dir = mkdtempSync(join(tmpdir(), 'idp-hostile-flood-'));
let front: Awaited<ReturnType<typeof proxiedSimulator>>;

beforeAll(async () => {
  let n = 0;
  front = await proxiedSimulator(dir, (req, answer) => {
    if (req.method !== 'POST' || !(req.url ?? '').startsWith('/oauth/token') || answer.status < 400) return answer;
    const body = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
    n++;
    return {
      ...answer,
      body: Buffer.from(JSON.stringify({ ...body, error: `invalid_grant_${n}_${'x'.repeat(LONG)}` })),
    };
  });
});

afterAll(() => front?.close());

it('a fresh long error on every answer: the failures are bounded in count and length, in every format and on stdout', async () => {
  const files = { json: 'r.json', junit: 'r.xml', html: 'r.html', md: 'r.md' };
  const report = Object.entries(files)
    .map(([kind, name]) => `${kind}=${join(dir, name)}`)
    .join(',');
  const checks = grantsChecks.filter((c) => c.id === 'grants.pkce-invalid-verifier');
  const { out } = await runCli({ config: front.config, seed: '5', runs: String(RUNS), report }, { checks });
  const [check] = (JSON.parse(readFileSync(join(dir, files.json), 'utf8')) as Report).checks;
  expect(check.status).toBe('failed');
  expect(check.failures?.length).toBeLessThanOrEqual(MAX_FAILURES + 1);
  expect(check.message).toMatch(/\n\(\+\d+ more failures of this check not shown\)$/);
  expect(check.message).toMatch(/invalid_grant_\d+_x+…" \(\+\d+ more characters\)/);
  // Unbounded, JSON, JUnit and HTML held RUNS times LONG characters at least (the exchanges alone take about 100 KB).
  for (const name of Object.values(files))
    expect([name, statSync(join(dir, name)).size < 250_000]).toEqual([name, true]);
  expect(out.length).toBeLessThan(50_000);
}, 120_000);
