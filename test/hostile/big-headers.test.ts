/**
 * Headers a target sends are bounded: past MAX_RESPONSE_HEADER_BYTES an answer is not read: the
 * first check that got it there errs, naming the limit, no rule blamed (no sentence bounds an
 * answer's size; runner/session.ts oversized), later ones there are untested (a 900 KB header on every answer used to run the harness out of
 * memory, exit 134); below it, a long header value is cut in the report's evidence, saying how
 * long it was (100 KB headers used to make 24 MB reports).
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_RESPONSE_HEADER_BYTES } from '../../suites/target/http.js';
import { KEPT_HEADERS, LEFT_OUT_HEADERS } from '../../suites/runner/redact.js';
import { executeMerge } from '../../cli/report.js';
import type { Report } from '../../suites/report/model.js';
import { runCli, simulatorWith } from '../suites/loopback.js';

const BIG = 900 * 1000;
const LONG = 100 * 1000;
/** Headers of 70 bytes on every answer of the last two tests: about 80 KB, below the limit. */
const MANY = 1000;

/** Every answer the simulator gives carries `x-filler` of `length` bytes (writeHead merges what was set before). */
function withHeader(res: ServerResponse, length: number): void {
  res.setHeader('x-filler', 'f'.repeat(length));
}

describe('response headers past the limit', () => {
  it('a 900 KB header on every answer: exit 2 with one line naming the limit', async () => {
    expect(BIG).toBeGreaterThan(MAX_RESPONSE_HEADER_BYTES);
    const served = await simulatorWith((_req, res) => (withHeader(res, BIG), false));
    try {
      const r = await runCli({ target: served.url, suite: 'tokens', runs: '2' });
      expect(r.code).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(/answers more than the harness reads: .*headers went past the 256 KiB a response may have/);
      expect(r.err).not.toMatch(/does not answer/);
    } finally {
      await served.close();
    }
  });

  it('a 900 KB header on some answers errs the first check that got them, with the reason, no rule blamed; 100 KB ones are cut in the report', async () => {
    const served = await simulatorWith((req, res) => {
      withHeader(res, req.url?.startsWith('/api/v4/user') && req.headers.authorization ? BIG : LONG);
      return false;
    });
    const file = join(mkdtempSync(join(tmpdir(), 'idp-headers-')), 'report.json');
    try {
      const r = await runCli({ target: served.url, suite: 'tokens', runs: '2', report: `json=${file}` });
      expect(r.code, r.err).toBe(2);
      const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
      const failed = report.checks.filter((c) => c.status === 'errored');
      expect(failed.length).toBeGreaterThan(0);
      expect(failed.every((c) => c.message?.includes('headers went past the 256 KiB'))).toBe(true);
      expect(report.checks.filter((c) => c.status === 'failed')).toEqual([]);
      const shown = failed.flatMap((c) => c.exchange ?? []).flatMap((e) => [e.request, e.response]);
      const fillers = shown.map((part) => part?.headers['x-filler']).filter((v) => v !== undefined);
      expect(fillers.length).toBeGreaterThan(0);
      for (const value of fillers) expect(value).toMatch(new RegExp(`^f{1,4000}… truncated, ${LONG} bytes$`));
      // Each shown exchange is a few kilobytes, whatever the target sent.
      expect(statSync(file).size).toBeLessThan(failed.length * 6 * 16 * 1024 + 512 * 1024);
    } finally {
      await served.close();
    }
  });

  it('a thousand headers on every answer: a shown exchange keeps KEPT_HEADERS of them and says what it left out; the report stays small and `report merge` reads it', async () => {
    const served = await simulatorWith(
      (_req, res) => {
        for (let i = 0; i < MANY; i++) res.setHeader(`a-h${i}`, 'A'.repeat(70));
        return false;
      },
      { faults: ['token-cacheable'] },
    );
    const file = join(mkdtempSync(join(tmpdir(), 'idp-headers-')), 'report.json');
    try {
      const r = await runCli({ target: served.url, check: 'grants.token-response-headers', report: `json=${file}` });
      expect(r.code, r.err).toBe(1);
      const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
      const failed = report.checks.filter((c) => c.broken?.includes('TOK-NO-STORE'));
      expect(failed.length).toBeGreaterThan(0);
      const shown = report.checks.flatMap((c) => c.exchange ?? []).flatMap((e) => (e.response ? [e.response] : []));
      expect(shown.length).toBeGreaterThan(0);
      for (const { headers } of shown) {
        const names = Object.keys(headers).filter((name) => name !== LEFT_OUT_HEADERS);
        expect(names.length).toBeLessThanOrEqual(KEPT_HEADERS.count);
        expect(headers[LEFT_OUT_HEADERS]).toMatch(/^\d+ more headers? \(\d+ bytes\) left out$/);
      }
      // A run records headers by name: the thousand `a-h…` come first, yet the failure's answers show
      // the Content-Type the check read (it was left out before review 19).
      const judged = failed
        .flatMap((c) => c.exchange ?? [])
        .flatMap((e) => (e.response && e.request.url.includes('/oauth/token') ? [e.response] : []));
      expect(judged.length).toBeGreaterThan(0);
      for (const { headers } of judged) expect(headers['content-type']).toMatch(/^application\/json/);
      // About 80 KB of headers an answer: 20 KB at most of each shown exchange, the rest of the report aside.
      expect(statSync(file).size).toBeLessThan(shown.length * 20 * 1024 + 256 * 1024);
      const said: string[] = [];
      const io = { out: (t: string) => void said.push(t), err: (t: string) => void said.push(t) };
      expect(await executeMerge([file], {}, io), said.join('')).toBe(1);
    } finally {
      await served.close();
    }
  });

  it('a thousand headers before the ones a check judges: the check reads them all (only the report’s copy is bounded)', async () => {
    const served = await simulatorWith((_req, res) => {
      for (let i = 0; i < MANY; i++) res.setHeader(`a-h${i}`, 'A'.repeat(70));
      return false;
    });
    try {
      // Its Cache-Control, Content-Type and Pragma sort after the thousand `a-h…`: the check reads them wherever they come.
      const r = await runCli({ target: served.url, check: 'grants.token-response-headers' });
      expect(r.code, r.out + r.err).toBe(0);
    } finally {
      await served.close();
    }
  });
});
