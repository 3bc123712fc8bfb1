/**
 * One cause, one blame (review 21): grants.token-response-headers reaches a token error response
 * by exchanging a code twice. A provider that answers the reuse with tokens produced no error
 * response: that answer is not judged as one (before, its missing no-store was charged to
 * TOK-NO-STORE a second time as "token error response").
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './loopback.js';
import type { Report } from '../../suites/report/model.js';

describe('grants.token-response-headers judges an error response only when one was produced', () => {
  it('a reused code answered with tokens: one failure, TOK-NO-STORE once, the premise said', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'token-error-premise-')), 'r.json');
    const r = await runCli({
      check: 'grants.token-response-headers',
      seed: '5',
      fault: ['code-reusable', 'token-cacheable'],
      report: `json=${path}`,
    });
    expect(r.code).toBe(1);
    const report = JSON.parse(readFileSync(path, 'utf8')) as Report;
    const [check] = report.checks;
    expect(check.status).toBe('failed');
    expect(check.broken).toEqual(['TOK-NO-STORE']);
    expect(check.failures).toBeUndefined();
    expect(check.message).toMatch(/^token response: Cache-Control must contain no-store/);
    expect(check.message).not.toMatch(/token error response: /);
    expect(check.message).toMatch(/no token error response was produced, so TOK-ERROR-NO-STORE is not judged here/);
    expect(report.rules.find((x) => x.id === 'TOK-ERROR-NO-STORE')?.status).toBe('untested');
  });

  it('a reused code refused: the error response is judged (the token-cacheable fault leaves its no-store)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'token-error-premise-')), 'r.json');
    const r = await runCli({
      check: 'grants.token-response-headers',
      seed: '5',
      fault: ['token-cacheable'],
      report: `json=${path}`,
    });
    expect(r.code).toBe(1);
    const report = JSON.parse(readFileSync(path, 'utf8')) as Report;
    expect(report.checks[0].broken).toEqual(['TOK-NO-STORE']);
    // Judged, and held: no premise note; the check broke only a leaf (TOK-NO-STORE, Cache-Control,
    // which nothing else reads), so what held passes (rules.yaml `leaf`; untested after 69d99bf).
    expect(report.checks[0].message).not.toMatch(/no token error response was produced/);
    expect(report.rules.find((x) => x.id === 'TOK-ERROR-NO-STORE')?.status).toBe('passed');
  });
});
