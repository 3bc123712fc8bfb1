/**
 * `idp-conformance report merge a.json b.json … --report kind=path,…`: the shard reports of one run
 * as one report (rule verdicts recomputed across shards), printed and written like a run's; the
 * exit code is the whole run's. Reports of another version, or naming rules or checks this one
 * does not know, are refused (exit code 2).
 */
import { ruleCatalogueEntries } from '../spec/catalogue.js';
import type { Command } from 'commander';
import { formatConsole, formatDiff, parseReportSpecs, readReport, writeReports } from '../reporters/index.js';
import { allChecks } from '../suites/index.js';
import { boundReport } from '../suites/report/bounded.js';
import { exitCodeOf } from '../suites/runner/report.js';
import { mergeReports, refuseUnknownIds } from '../suites/runner/merge.js';
import { ruleCatalogue } from '../suites/runner/rules.js';
import { usageExit } from './errors.js';
import { mergedRerun } from './merged-rerun.js';

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
    const order = allChecks().map((c) => c.id);
    refuseUnknownIds(reports, { rules: new Set(ruleCatalogue().map((r) => r.id)), checks: new Set(order) });
    const merged = mergeReports(reports, order);
    // Written first, so the console lists the files after the verdict, as `run` does.
    const catalogue = ruleCatalogueEntries(allChecks());
    const written = targets.length ? await writeReports(merged, targets, { catalogue }) : [];
    // A diff report's table first, as `diff` prints it; bounded as every rendering of a saved report is.
    if (merged.diff) io.out(formatDiff(boundReport(merged).diff!));
    const json = written.find((w) => w.kind === 'json')?.path;
    const rerun = mergedRerun(reports, merged, json);
    io.out(formatConsole(merged, { allRules: flags.verbose === true, written, catalogue, ...rerun }));
    return exitCodeOf(merged);
  } catch (error) {
    return usageExit(error, (text) => io.err(text));
  }
}

export function registerReport(program: Command): void {
  const report = program.command('report').description('work with saved JSON reports');
  report
    .command('merge')
    .description(
      'merge the JSON reports of the shards of one run (run --shard i/n) into one report; a diff or proxy report merges alone, shown again',
    )
    .argument('<reports...>', 'JSON reports written with --report json=FILE')
    .option('--report <specs>', 'reports to write: kind=path,... (json, junit, junit-rules, html, md)')
    .option('--verbose', 'list every rule in the per-rule table, passed ones too')
    .action(async (files: string[], flags: { report?: string; verbose?: boolean }) => {
      process.exitCode = await executeMerge(files, flags);
    });
}
