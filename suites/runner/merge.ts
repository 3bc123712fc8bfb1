/**
 * `report merge`: the reports of the shards of one run combined into the report of the whole run.
 * Rule verdicts are not carried over but recomputed from every shard's checks by the runner's own
 * reading (report.ts), so a rule failed in any shard is failed in the merge; the same goes for
 * `--expect` (a listed rule passed in every shard that saw it is stale) and the must coverage. A
 * shard stopped by a signal leaves the merge interrupted; one stopped early, stopped. A `diff` or
 * `proxy` report merges alone, its section kept: one report merged is that report again.
 */
import { quoted } from '../report/words.js';
import { ruleOfProxyCheck } from '../proxy/tally.js';
import { ReportError } from '../errors.js';
import type { Report } from '../report/model.js';
import type { Expectation } from './expect.js';
import { buildReport, type ReportRule } from './report.js';

export interface NamedReport {
  /** Where it came from (a file name), for error messages. */
  name: string;
  report: Report;
}

/** The fields every shard of one run shares; a merge of different runs would mean nothing. */
const SAME = ['version', 'target', 'release', 'offering', 'seed'] as const;

/**
 * Throws a ReportError for no reports, reports of different runs, a check that two shards both
 * ran, or a shard of the run missing. `order` (check ids, e.g. the catalogue) orders the merged checks as one run would.
 */
// Stryker disable next-line ArrayDeclaration: a made-up id in the order changes no check's place
export function mergeReports(reports: readonly NamedReport[], order: readonly string[] = []): Report {
  if (!reports.length) throw new ReportError('report merge needs at least one report');
  const [first] = reports;
  const sections = ownSections(reports);
  for (const { name, report } of reports) {
    for (const field of SAME)
      if (report[field] !== first.report[field])
        throw new ReportError(
          `${name} is not a shard of the run of ${first.name}: ${field} ${String(report[field])} is not ${String(first.report[field])}` +
            // Runs made apart draw their own seeds (outside CI): say how to make them mergeable.
            (field === 'seed' ? ' (runs made apart merge when each was run with the same --seed)' : ''),
        );
  }
  const seen = new Map<string, string>();
  for (const { name, report } of reports)
    for (const check of report.checks) {
      const other = seen.get(check.id);
      if (other !== undefined) throw new ReportError(`check ${check.id} is in both ${other} and ${name}`);
      seen.set(check.id, name);
    }
  const shards = shardSet(reports);
  const position = new Map(order.map((id, i) => [id, i]));
  const checks = reports
    .flatMap(({ report }) => report.checks)
    .map((check, i) => ({ check, i }))
    .sort((a, b) => (position.get(a.check.id) ?? order.length + a.i) - (position.get(b.check.id) ?? order.length + b.i))
    .map(({ check }) => check);
  const rules = new Map<string, ReportRule>();
  for (const { report } of reports) for (const rule of report.rules) if (!rules.has(rule.id)) rules.set(rule.id, rule);
  // The shards read their checks against the expect file already; its rules come back from the
  // shards' rule rows (a listed rule seen passed or expected carries its reason there). `checks: []`
  // excuses no check a second time, it only names the rule for the stale and expected readings.
  const reasons = new Map<string, string>();
  for (const { report } of reports)
    for (const rule of report.rules) if (rule.expectedReason) reasons.set(rule.id, rule.expectedReason);
  const hadExpect = reports.some(({ report }) => report.summary.expected !== undefined);
  // Stryker disable next-line ArrayDeclaration: checks that name no real check excuse none, as [] does
  const expect: Expectation[] = [...reasons].map(([rule, reason]) => ({ rule, reason, checks: [] }));
  const required = reports.map(({ report }) => report.coverage?.required).find((r) => r !== undefined);
  const interrupted = reports.find(({ report }) => report.interrupted)?.report.interrupted;
  // A shard that stopped early (a silent target, --deadline) leaves the merge stopped too.
  const stopped = reports.find(({ report }) => report.stopped)?.report.stopped;
  const starts = reports.map(({ report }) => Date.parse(report.startedAt));
  const start = Math.min(...starts);
  const end = Math.max(...reports.map(({ report }, i) => starts[i] + report.durationMs));
  const merged = buildReport({
    target: first.report.target,
    release: first.report.release,
    offering: first.report.offering,
    seed: first.report.seed,
    startedAt: new Date(start),
    durationMs: end - start,
    checks,
    rules: [...rules.values()],
    ...(hadExpect ? { expect } : {}),
    requiredCoverage: required,
    ...(interrupted ? { interrupted } : {}),
    ...(stopped && !interrupted ? { stopped } : {}),
    rateLimited: reports.reduce((n, { report }) => n + (report.rateLimited ?? 0), 0),
    slowAnswers: reports.reduce((n, { report }) => n + (report.slowAnswers ?? 0), 0),
    unrevokedTokens: reports.reduce((n, { report }) => n + (report.unrevokedTokens ?? 0), 0),
    ...sharedInvocation(reports),
    ...(shards ? { shards } : {}),
  });
  return { ...merged, ...sections };
}

/**
 * The merged report's `invocation`: the one its reports share (shards of one run all save the same,
 * their selection is no part of it), else none: reports that ran with different flags (another
 * `--runs`, `--config`, `--expect`) have no one command that redoes them, and the first's would
 * send a rerun off with the others' flags lost. `report merge` prints each one's then.
 */
function sharedInvocation(reports: readonly NamedReport[]): Pick<Report, 'invocation'> {
  const [first, ...others] = reports.map(({ report }) => report.invocation);
  const same = (i: Report['invocation']) => JSON.stringify(i?.args) === JSON.stringify(first?.args);
  return first && others.every(same) ? { invocation: first } : {};
}

/**
 * The `diff` or `client` section of a report that has one. Neither adds up across reports: a
 * diff's differences are grouped and bounded over one comparison, a proxy's checks are tallies of
 * one stretch of traffic (and neither command shards), so such a report merges only alone.
 */
function ownSections(reports: readonly NamedReport[]): Pick<Report, 'diff' | 'client'> {
  const own = reports.find(({ report }) => report.diff ?? report.client);
  if (!own) return {};
  const kind = own.report.client ? 'proxy' : 'diff';
  const other = reports.find((r) => r !== own);
  if (other)
    throw new ReportError(
      `${own.name} is a ${kind} report: its ${own.report.client ? 'client' : 'diff'} section cannot be merged with ${other.name} (report merge joins the shards of one run; give it alone)`,
    );
  const { diff, client } = own.report;
  return { ...(diff ? { diff } : {}), ...(client ? { client } : {}) };
}

/** What this version of the tool knows: its rule ids and check ids. */
export interface KnownIds {
  rules: ReadonlySet<string>;
  checks: ReadonlySet<string>;
}

/**
 * Throws a ReportError naming the first rule or check of a report that this version does not know
 * (renamed, removed, or made up): its verdict would be read against no sentence (a rule gone from
 * the catalogue showed as a failed must). A proxy's checks are `proxy.RULE-ID`, one per rule judged.
 */
export function refuseUnknownIds(reports: readonly NamedReport[], known: KnownIds): void {
  const knownCheck = (id: string) => {
    const rule = ruleOfProxyCheck(id);
    return known.checks.has(id) || (rule !== undefined && known.rules.has(rule));
  };
  for (const { name, report } of reports) {
    const rule = [
      ...report.rules.map((r) => r.id),
      ...report.checks.flatMap((c) => [...c.rules, ...(c.broken ?? [])]),
    ].find((id) => !known.rules.has(id));
    if (rule !== undefined)
      throw new ReportError(`${name} names the rule ${quoted(rule)}, which this version's catalogue does not have`);
    const check = report.checks.find((c) => !knownCheck(c.id));
    if (check) throw new ReportError(`${name} names the check ${quoted(check.id)}, which this version does not have`);
  }
}

/** The slices a report covers: its own shard, or the set a merged report joined. */
const slicesOf = (report: Report): Report['shards'] =>
  report.shard ? { indexes: [report.shard.index], total: report.shard.total } : report.shards;

/**
 * The shard set of the merge, when its reports are shards: every one a slice of the same total,
 * none twice, none missing (a merge without a slice would pass on what it never ran). Reports that
 * are no shards merge as before, with no set.
 */
function shardSet(reports: readonly NamedReport[]): Report['shards'] {
  const slices = reports.map(({ name, report }) => ({ name, slices: slicesOf(report) }));
  const sharded = slices.filter((s) => s.slices);
  if (!sharded.length) return undefined;
  const unsharded = slices.find((s) => !s.slices);
  if (unsharded) throw new ReportError(`${unsharded.name} is not a shard (run --shard i/n), unlike ${sharded[0].name}`);
  const total = sharded[0].slices!.total;
  const owner = new Map<number, string>();
  for (const { name, slices: s } of sharded) {
    if (s!.total !== total)
      throw new ReportError(`${name} is a shard of ${s!.total}, ${sharded[0].name} a shard of ${total}`);
    for (const index of s!.indexes) {
      const other = owner.get(index);
      if (other !== undefined) throw new ReportError(`shard ${index}/${total} is in both ${other} and ${name}`);
      owner.set(index, name);
    }
  }
  const missing = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !owner.has(i));
  if (missing.length)
    throw new ReportError(
      `shard${missing.length === 1 ? '' : 's'} ${missing.map((i) => `${i}/${total}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing: give every slice of the run`,
    );
  return { indexes: [...owner.keys()].sort((a, b) => a - b), total };
}
