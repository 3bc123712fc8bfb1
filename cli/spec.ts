/** `idp-conformance spec lint|coverage` (owner: spec). Thin: options in, library calls, text out. */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { makeDirectories } from '../reporters/directories.js';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { specDir, validateSpec } from '../spec/index.js';
import { coverage, type CheckRef, type Coverage } from '../spec/coverage.js';
import { ruleCatalogueEntries } from '../spec/catalogue.js';
import { CATALOGUE_FORMATS } from '../reporters/catalogue.js';
import { CATALOGUE_FILES } from '../reporters/rule-links.js';
import { EXIT, UsageError } from './errors.js';

export interface SpecCommandOptions {
  /** The suites' check list, for the rules-to-checks view of `spec coverage`. */
  checks?: () => CheckRef[] | Promise<CheckRef[]>;
}

const out = (line = ''): void => void process.stdout.write(`${line}\n`);

/** Problems print as `file:line: message`, the file relative to the working folder (editors jump there). */
export function lint(dir: string): number {
  const problems = validateSpec({ dir });
  const base = relative(process.cwd(), dir) || '.';
  for (const p of problems) out(`${base}/${p.file}:${p.line}: ${p.message}`);
  if (problems.length) {
    process.stderr.write(`spec lint: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n`);
    return EXIT.failed;
  }
  out(`spec lint: OK (${base})`);
  return EXIT.ok;
}

export function printCoverage(report: Coverage): void {
  out('Source rows, list items and mapped sentences -> rules');
  let section = '';
  for (const item of report.items) {
    if (item.section !== section) {
      section = item.section;
      out(`  ${section}`);
    }
    const text = item.text.length > 72 ? `${item.text.slice(0, 71)}…` : item.text;
    out(`    L${item.line} ${{ row: 'row ', bullet: 'item', sentence: 'text' }[item.kind]} ${text}`);
    out(`         -> ${item.rules.length ? item.rules.join(', ') : '(no rule)'}`);
  }
  out();
  out(`Rows and items with no rule: ${report.unmapped.length || 'none'}`);
  for (const item of report.unmapped) out(`  source-spec.md:${item.line}: ${item.text}`);
  out();
  out(
    `Rules named by no source row or item (from RFCs where the source is silent, or context): ${report.rulesWithoutSourceRow.length}`,
  );
  for (const rule of report.rulesWithoutSourceRow) out(`  ${rule.id} [${rule.level}] ${rule.origin}`);
  out();
  out('Rules by level and origin');
  for (const level of ['must', 'should', 'info'] as const) {
    const groups = report.byLevel.filter((g) => g.level === level);
    out(`  ${level}: ${groups.reduce((n, g) => n + g.rules.length, 0)}`);
    for (const g of groups) out(`    ${g.origin} (${g.rules.length}): ${g.rules.join(', ')}`);
  }
  if (report.checks) {
    out();
    out(`Rules with no check: ${report.checks.rulesWithoutCheck.length}`);
    for (const rule of report.checks.rulesWithoutCheck) out(`  ${rule.id} [${rule.level}] ${rule.title}`);
    if (report.checks.unknownRuleRefs.length) {
      out();
      out('Checks naming unknown rules:');
      for (const ref of report.checks.unknownRuleRefs) out(`  ${ref.check} -> ${ref.rule}`);
    }
  }
}

function directory(value: string | undefined): string {
  if (!value) return specDir();
  const dir = resolve(value);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--dir ${value}: not a folder`);
  return dir;
}

export function registerSpec(program: Command, options: SpecCommandOptions = {}): void {
  const spec = program.command('spec').description('inspect the spec data (lint, coverage, catalogue)');

  spec
    .command('lint')
    .description('validate the spec files (schemas, references, machines, source map); exit 1 on problems')
    .option('--dir <folder>', 'spec folder to lint (default: the package spec/)')
    .action((opts: { dir?: string }) => {
      process.exitCode = lint(directory(opts.dir));
    });

  spec
    .command('coverage')
    .description('map of source rows and list items to rules, the rows with none, and rules with no check')
    .option('--json', 'print the coverage as JSON')
    .action(async (opts: { json?: boolean }) => {
      const checks = options.checks ? await options.checks() : undefined;
      const report = coverage(checks);
      if (opts.json) out(JSON.stringify(report, null, 2));
      else printCoverage(report);
      process.exitCode = report.unmapped.length ? EXIT.failed : EXIT.ok;
    });

  spec
    .command('catalogue')
    .description(`write the rule catalogue (${CATALOGUE_FILES.html}, ${CATALOGUE_FILES.md}) that reports link to`)
    .requiredOption('--out <folder>', 'folder to write into (created if missing)')
    .action(async (opts: { out: string }) => {
      const entries = ruleCatalogueEntries(options.checks ? await options.checks() : []);
      const written = writeCatalogue(opts.out, entries);
      for (const file of written) out(`wrote ${file}`);
    });
}

/** Write both catalogue files into `dir`; returns their paths. Used by `spec catalogue` and beside reports. */
export function writeCatalogue(dir: string, entries: ReturnType<typeof ruleCatalogueEntries>): string[] {
  try {
    makeDirectories(dir);
    return Object.values(CATALOGUE_FORMATS).map(({ file, render }) => {
      writeFileSync(join(dir, file), render(entries));
      return join(dir, file);
    });
  } catch (error) {
    throw new UsageError(
      `--out ${dir}: cannot write (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}
