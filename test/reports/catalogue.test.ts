/**
 * The rule catalogue (issue 23): generated from spec/, never written by hand. docs/rules.md is the
 * repository's copy and must equal what `spec catalogue` writes now; every rule id in the HTML and
 * Markdown reports links to an entry that exists in the catalogue written beside them; the console
 * names the source sentence of a failed rule.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { executeRun } from '../../cli/run.js';
import { executeMerge } from '../../cli/report.js';
import { renderCatalogueHtml, renderCatalogueMarkdown } from '../../reporters/catalogue.js';
import { ruleCatalogueEntries, ruleQuote } from '../../spec/catalogue.js';
import { rules } from '../../spec/index.js';
import { allChecks } from '../../suites/index.js';

const entries = ruleCatalogueEntries(allChecks());
const anchorsIn = (text: string, pattern: RegExp) => new Set([...text.matchAll(pattern)].map((m) => m[1]));

describe('the rule catalogue', () => {
  it('docs/rules.md is up to date (regenerate: npx idp-conformance spec catalogue --out docs)', () => {
    const committed = readFileSync(new URL('../../docs/rules.md', import.meta.url), 'utf8');
    expect(committed === renderCatalogueMarkdown(entries), 'docs/rules.md is stale').toBe(true);
  });

  it('has one entry per rule, with its checks, its faults and the source lines that carry it', () => {
    expect(entries.map((e) => e.id)).toEqual(rules().map((r) => r.id));
    const pkce = entries.find((e) => e.id === 'PKCE-VERIFIER-MISMATCH')!;
    expect(pkce.checks.length).toBeGreaterThan(0);
    expect(entries.some((e) => e.faults.length > 0)).toBe(true);
    const token = entries.find((e) => e.id === 'TOK-ACCESS-TOKEN')!;
    expect(token.sentences[0].section).toMatch(/Token response/);
    const html = renderCatalogueHtml(entries);
    const md = renderCatalogueMarkdown(entries);
    for (const e of entries) {
      expect(html).toContain(`<section id="${e.id}">`);
      expect(md).toContain(`<a id="${e.id}"></a>`);
    }
    // Offline: nothing loaded from anywhere.
    expect(html).not.toMatch(/<(script|link|img)\b/i);
  });

  it('a failure quotes the source sentence only for a rule the source states; else the RFC and the statement (review 21)', () => {
    const entries = ruleCatalogueEntries(allChecks());
    const silent = entries.filter((e) => /\(not shown\)/.test(e.source));
    // The case the review found: silent rules mapped to a source row for coverage's sake.
    expect(silent.filter((e) => e.sentences.length > 0).length).toBeGreaterThan(10);
    for (const e of silent) expect(ruleQuote(e), e.id).toEqual({ where: e.origin, text: e.statement });
    const stated = entries.find((e) => e.source.startsWith('Endpoints') && e.sentences.length > 0)!;
    expect(ruleQuote(stated).where).toBe(`source L${stated.sentences[0].line}`);
  });

  it('every rule link of the HTML and Markdown reports resolves in the catalogue written beside them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-catalogue-'));
    const out: string[] = [];
    const code = await executeRun(
      {
        suite: 'grants',
        runs: '2',
        seed: '5',
        fault: ['code-reusable'],
        verbose: true,
        report: `html=${join(dir, 'r.html')},md=${join(dir, 'sub', 'r.md')}`,
      },
      { out: (t) => void out.push(t), err: () => undefined },
      {},
    );
    expect(code).toBe(1);
    const text = out.join('');
    expect(text).toContain(`rule catalogue: ${join(dir, 'rules.html')}`);
    expect(text).toContain(`rule catalogue: ${join(dir, 'sub', 'rules.md')}`);
    // The console names the source (or the RFC and statement) of each broken rule: the source is
    // silent on a reused code, so the RFC and the rule's statement, never a mapped table row (review 21).
    expect(text).toMatch(/^ {2}rule GRANT-CODE-SINGLE-USE, RFC 6749 §4\.1\.2: “A code can be exchanged once; /m);

    const html = readFileSync(join(dir, 'r.html'), 'utf8');
    const htmlLinks = anchorsIn(html, /href="rules\.html#([^"]+)"/g);
    const htmlTargets = anchorsIn(readFileSync(join(dir, 'rules.html'), 'utf8'), /<section id="([^"]+)"/g);
    expect(htmlLinks.size).toBeGreaterThan(10);
    expect([...htmlLinks].filter((id) => !htmlTargets.has(decodeURIComponent(id)))).toEqual([]);

    const md = readFileSync(join(dir, 'sub', 'r.md'), 'utf8');
    const mdLinks = anchorsIn(md, /\]\(rules\.md#([^)]+)\)/g);
    const mdTargets = anchorsIn(readFileSync(join(dir, 'sub', 'rules.md'), 'utf8'), /<a id="([^"]+)"><\/a>/g);
    expect(mdLinks.size).toBeGreaterThan(0);
    expect([...mdLinks].filter((id) => !mdTargets.has(decodeURIComponent(id)))).toEqual([]);
  });

  it('a catalogue that cannot be written beside a report is a report error, named (exit 2 on the command line)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-catalogue-blocked-'));
    mkdirSync(join(dir, 'rules.html'));
    const err: string[] = [];
    const code = await executeRun(
      { check: 'grants.state-unchanged', runs: '1', seed: '3', report: `html=${join(dir, 'r.html')}` },
      { out: () => undefined, err: (t) => void err.push(t) },
      {},
    );
    expect(code).toBe(2);
    expect(err.join('')).toMatch(/cannot write the rule catalogue to .*rules\.html: /);
  });

  it('report merge lists the files it wrote', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-merge-'));
    const json = join(dir, 'one.json');
    await executeRun(
      { check: 'grants.state-unchanged', runs: '1', seed: '3', report: `json=${json}` },
      { out: () => undefined, err: () => undefined },
      {},
    );
    const out: string[] = [];
    const code = await executeMerge([json], { report: `html=${join(dir, 'm.html')}` }, {
      out: (t) => void out.push(t),
      err: (t) => void out.push(t),
    });
    expect(code).toBe(0);
    expect(out.join('')).toContain(`html report: ${join(dir, 'm.html')}`);
    expect(out.join('')).toContain(`rule catalogue: ${join(dir, 'rules.html')}`);
  });
});
