/**
 * A target's JSON nested 4,000 levels (8 KB) used to end the run with a RangeError in the
 * redaction (exit 70, no report). Now it is past what the harness reads, said as an answer past
 * --max-body is (once per endpoint, failing only the check about that answer), and every walk over
 * target data (redaction, learning secrets, rendering) survives it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatConsole,
  readReport,
  renderHtml,
  renderJson,
  renderJunit,
  renderMarkdown,
} from '../../reporters/index.js';
import { MAX_JSON_DEPTH, jsonDepth, tooDeep } from '../../suites/report/json-depth.js';
import type { Report } from '../../suites/report/model.js';
import { redact, redactBody } from '../../suites/report/redact.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { SECRETS, fixtureReport, leakedSecrets } from '../reporters/fixture.js';
import { allChecks } from '../../suites/index.js';
import { runCli, simulatorWith } from '../suites/loopback.js';

const DEPTH = 4000;
const nested = (inner: string, depth = DEPTH) => '['.repeat(depth) + inner + ']'.repeat(depth);
const deepWithSecret = nested(`{"access_token":"${SECRETS.accessToken}"}`);

describe('jsonDepth', () => {
  it('counts brackets outside strings only, escapes included', () => {
    expect(jsonDepth('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(jsonDepth('["[[[[", "\\"[[[", {}]')).toBe(2);
    expect(jsonDepth('plain text')).toBe(0);
  });
  it('agrees with the depth of what JSON.parse reads, for any JSON text (escapes, quotes, brackets in strings)', () => {
    const parsedDepth = (v: unknown): number =>
      v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(parsedDepth)) : 0;
    const text = fc.string({ unit: fc.constantFrom('"', '\\', '[', ']', '{', '}', 'a', ' ') });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.array(tie('node')),
        fc.dictionary(text, tie('node')),
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => jsonDepth(JSON.stringify(v)) === parsedDepth(v)),
      { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: 500 },
    );
  });
  it('stops counting past its limit', () => {
    expect(jsonDepth(nested(''), 10)).toBe(11);
  });
  it('calls too deep only what passes the bound and looks like JSON', () => {
    expect(tooDeep(nested('', MAX_JSON_DEPTH))).toBe(false);
    expect(tooDeep(nested('', MAX_JSON_DEPTH + 1))).toBe(true);
    expect(tooDeep(`<p>${nested('')}`, 'text/html')).toBe(false);
  });
});

describe('walks over a 4,000-deep body', () => {
  it('redactBody masks its secrets as text', () => {
    const out = redactBody(deepWithSecret, 'application/json');
    expect(out).not.toContain(SECRETS.accessToken);
    expect(out.length).toBeGreaterThan(2 * DEPTH);
  });

  it('the run redactor learns nothing from it and does not throw', () => {
    const redactor = createRedactor();
    const exchange = {
      request: { method: 'GET', url: 'http://127.0.0.1:1/api/v4/user', headers: {} },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: deepWithSecret },
    };
    expect(() => redactor.learn(exchange)).not.toThrow();
    expect(redactor.exchange(exchange).response?.body).not.toContain(SECRETS.accessToken);
  });

  it('every format renders a report whose exchange carries it', () => {
    const report = fixtureReport();
    const failed = report.checks.find((c) => c.exchange?.length)!;
    failed.exchange![0].response = { status: 200, headers: {}, body: deepWithSecret };
    for (const render of [renderJson, renderJunit, renderHtml, renderMarkdown, (r: Report) => formatConsole(r)])
      expect(leakedSecrets(render(report))).toEqual([]);
  });

  it('redact leaves out what a report nests too deep', () => {
    let deep: unknown = SECRETS.password;
    for (let i = 0; i < DEPTH; i++) deep = [deep];
    const out = redact({ ...fixtureReport(), extra: deep } as Report);
    expect(JSON.stringify(out)).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it('a saved report nested that deep is refused with one line', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'idp-deep-')), 'r.json');
    writeFileSync(file, JSON.stringify({ ...fixtureReport(), extra: 0 }).replace('"extra":0', `"extra":${nested('')}`));
    await expect(readReport(file)).rejects.toThrow(`nests deeper than ${MAX_JSON_DEPTH} levels`);
  });
});

describe('a target answering /api/v4/user with JSON nested 4,000 levels', () => {
  it('fails ENC-API-PREFIX alone, in the check about that answer; the first other check that met it errs, the rest are untested', async () => {
    const served = await simulatorWith((req, res) => {
      // Whatever the credential: the OAuth token (the token oracle), the personal access token.
      if (!req.url?.startsWith('/api/v4/user')) return false;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(deepWithSecret);
      return true;
    });
    const file = join(mkdtempSync(join(tmpdir(), 'idp-deep-')), 'report.json');
    // The tokens checks meet it through the token oracle before versioning.api-prefix runs.
    const checks = allChecks().filter((c) => c.suite === 'tokens' || c.id === 'versioning.api-prefix');
    try {
      const r = await runCli({ target: served.url, runs: '2', report: `json=${file}` }, { checks });
      expect(r.err).not.toMatch(/RangeError|internal error/);
      const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
      const why = report.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`).join('\n');
      const tooDeepThere = `/api/v4/user answered 200 with JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
      // Before (review 28), each check that met it failed every rule it holds.
      const blamed = report.checks.filter((c) => c.status === 'failed' || c.status === 'warned');
      expect(
        blamed.map((c) => [c.id, c.broken]),
        why,
      ).toEqual([['versioning.api-prefix', ['ENC-API-PREFIX']]]);
      const errored = report.checks.filter((c) => c.status === 'errored');
      expect(errored, why).toHaveLength(1);
      expect(errored[0].message, why).toContain(tooDeepThere);
      const untested = report.checks.filter((c) => c.status === 'skipped');
      expect(untested.length, why).toBeGreaterThan(0);
      for (const c of untested) expect(c.message, why).toContain(`(${errored[0].id} reports it, once)`);
      expect(r.code, why).toBe(1);
      expect(readFileSync(file, 'utf8')).not.toContain(SECRETS.accessToken);
    } finally {
      await served.close();
    }
  });
});
