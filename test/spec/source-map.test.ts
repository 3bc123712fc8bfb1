/**
 * The source map against the source text itself: the vendored copy equals the shared source, every
 * table row and list item has exactly one map entry, and every entry matches exactly one of them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchSourceMap, parseSourceText, rules, sectionMatches, sourceMap, specDir } from '../../spec/index.js';
import { coverage } from '../../spec/coverage.js';
import { specText } from './helpers.js';

describe('the vendored source', () => {
  const shared = join(specDir(), '..', '..', 'shared', 'source-spec.md');
  it.skipIf(!existsSync(shared))('equals ../shared/source-spec.md (drift is caught)', () => {
    expect(specText('source-spec.md')).toBe(readFileSync(shared, 'utf8'));
  });
});

describe('source-map.yaml', () => {
  const source = parseSourceText(specText('source-spec.md'));
  const entries = sourceMap();
  const { byEntry, byItem } = matchSourceMap(source.items, entries);
  // Sentence entries match prose paragraphs; rows and bullets must all be mapped, prose need not.
  const all = [...source.items, ...source.prose];
  const { byEntry: byEntryAll } = matchSourceMap(all, entries);

  it('reads the tables and lists the issue names', () => {
    const sections = new Set(source.items.map((i) => i.section));
    for (const name of [
      'Endpoints',
      'Endpoints > POST /oauth/token',
      'Errors',
      'Limits',
      'Endpoints > Pagination',
      'Versioning',
      'States and transitions > Device authorization (device code states)',
      'Endpoints > REST request conventions',
      'Authentication',
      'Endpoints > CORS',
    ]) {
      expect(sections, name).toContain(name);
    }
    // Spot counts from the source: 9 endpoints, 6 grant rows, 9 error rows, 8 limit rows, 5 device states.
    const rowsIn = (section: string) =>
      source.items.filter((i) => i.kind === 'row' && sectionMatches(section, i.section)).length;
    expect(rowsIn('Endpoints')).toBe(9);
    expect(source.items.filter((i) => i.kind === 'row' && i.section === 'Endpoints > POST /oauth/token')).toHaveLength(
      6,
    );
    expect(rowsIn('Errors')).toBe(9);
    expect(rowsIn('Limits')).toBe(8);
    expect(rowsIn('States and transitions > Device authorization')).toBe(5);
  });

  it('has an entry for every row and list item of the source', () => {
    const missing = source.items
      .filter((_, i) => byItem[i].length === 0)
      .map((i) => `${i.section} (line ${i.line}): ${i.text}`);
    expect(missing).toEqual([]);
  });

  it('has no item matched by two entries', () => {
    const doubled = source.items.filter((_, i) => byItem[i].length > 1).map((i) => `line ${i.line}`);
    expect(doubled).toEqual([]);
  });

  it('has no entry that matches no row (or several)', () => {
    const bad = entries
      .filter((_, i) => byEntryAll[i].length !== 1)
      .map((e) => `${e.section}: ${e.row ?? e.bullet ?? e.sentence}`);
    expect(bad).toEqual([]);
    // byEntry (rows and items only) leaves exactly the sentence entries unmatched.
    expect(entries.filter((_, i) => byEntry[i].length === 0).every((e) => e.sentence !== undefined)).toBe(true);
  });

  it("maps the audit's normative prose sentences (issue 21), so coverage shows them", () => {
    const mapped = coverage()
      .items.filter((i) => i.kind === 'sentence')
      .map((i) => i.line);
    expect(mapped).toEqual([65, 86, 96, 130, 132, 154, 158, 162, 166, 182]);
    expect(coverage().unmapped).toEqual([]);
  });

  it('names only rules that exist', () => {
    const ids = new Set(rules().map((r) => r.id));
    expect(entries.flatMap((e) => e.rules).filter((id) => !ids.has(id))).toEqual([]);
  });
});

describe('parseSourceText', () => {
  const md = [
    '# Title',
    '',
    '## Section',
    '',
    '- first item',
    '  - nested `code` item',
    '- wrapped item',
    '  that continues here',
    '',
    '1. numbered item',
    '',
    '```',
    '- not an item inside a fence',
    '| not | a row |',
    '```',
    '',
    '### Table (with a tail)',
    '',
    '| A | B |',
    '|---|---|',
    '| `x` | 1 |',
    '| y |  |',
    'A paragraph of prose',
    'on two lines.',
    '',
    'Another one.',
    '- item ending the prose',
  ].join('\n');
  const parsed = parseSourceText(md);

  it('reads headings without the document title', () => {
    expect(parsed.headings.map((h) => [h.path, h.line])).toEqual([
      ['Section', 3],
      ['Section > Table (with a tail)', 17],
    ]);
  });

  it('reads list items, nested and wrapped, and skips fenced code', () => {
    expect(parsed.items.filter((i) => i.kind === 'bullet').map((i) => [i.text, i.line])).toEqual([
      ['first item', 5],
      ['nested code item', 6],
      ['wrapped item that continues here', 7],
      ['numbered item', 10],
      ['item ending the prose', 27],
    ]);
  });

  it('reads table rows without header and separator, cells joined', () => {
    expect(parsed.items.filter((i) => i.kind === 'row').map((i) => [i.section, i.text, i.line])).toEqual([
      ['Section > Table (with a tail)', 'x | 1', 21],
      ['Section > Table (with a tail)', 'y |', 22],
    ]);
  });

  it('reads prose paragraphs as sentences, one per paragraph, outside fences, lists and tables', () => {
    expect(parsed.prose.map((i) => [i.section, i.text, i.line])).toEqual([
      ['Section > Table (with a tail)', 'A paragraph of prose on two lines.', 23],
      ['Section > Table (with a tail)', 'Another one.', 26],
    ]);
    expect(parsed.items.some((i) => i.kind === 'sentence')).toBe(false);
  });

  it('matches a section reference with or without the heading tail', () => {
    expect(sectionMatches('Section > Table', 'Section > Table (with a tail)')).toBe(true);
    expect(sectionMatches('Section > Table (with a tail)', 'Section > Table (with a tail)')).toBe(true);
    expect(sectionMatches('Section > Tab', 'Section > Table (with a tail)')).toBe(false);
    expect(sectionMatches('Section', 'Section > Table (with a tail)')).toBe(false);
  });
});
