/**
 * `idp-conformance report merge a.json b.json … --report kind=path,…`: the shard reports of one run
 * as one report (rule verdicts recomputed across shards), printed and written like a run's; the
 * exit code is the whole run's.
 */
import { ruleCatalogueEntries } from '../spec/catalogue.js';
import type { Command } from 'commander';
import { formatConsole, parseReportSpecs, readReport, writeReports } from '../reporters/index.js';
import { allChecks } from '../suites/index.js';
import { exitCodeOf } from '../suites/runner/report.js';
import { mergeReports } from '../suites/runner/merge.js';
import { usageExit } from './errors.js';

export interface MergeIo {
  out(text: string): void;
  err(text: string): void;
}

const stdio: MergeIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

export async function executeMerge(
  files: string[],
  flags: { report?: string; verbose?: boolean },
  io: MergeIo = stdio,
): Promise<number> {
  try {
    const targets = flags.report === undefined ? [] : parseReportSpecs(flags.report);
    const reports = await Promise.all(files.map(async (name) => ({ name, report: await readReport(name) })));
    const merged = mergeReports(
      reports,
      allChecks().map((c) => c.id),
    );
    // Written first, so the console lists the files after the verdict, as `run` does.
    const catalogue = ruleCatalogueEntries(allChecks());
    const written = targets.length ? await writeReports(merged, targets, { catalogue }) : [];
    io.out(formatConsole(merged, { allRules: flags.verbose === true, written, catalogue }));
    return exitCodeOf(merged);
  } catch (error) {
    return usageExit(error, (text) => io.err(text));
  }
}

export function registerReport(program: Command): void {
  const report = program.command('report').description('work with saved JSON reports');
  report
    .command('merge')
    .description('merge the JSON reports of the shards of one run (run --shard i/n) into one report')
    .argument('<reports...>', 'JSON reports written with --report json=FILE')
    .option('--report <specs>', 'reports to write: kind=path,... (json, junit, junit-rules, html, md)')
    .option('--verbose', 'list every rule in the per-rule table, passed ones too')
    .action(async (files: string[], flags: { report?: string; verbose?: boolean }) => {
      process.exitCode = await executeMerge(files, flags);
    });
}
