/** The Report of suites/report/model.ts, built from check results; rule statuses derive from checks. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CheckResult, CheckStatus, Report, RuleResult, RuleStatus } from '../report/model.js';
import type { RuleInfo } from './rules.js';
import { mustCoverage, verdict } from '../report/verdict.js';

import { applyToCheck, reasonFor, type Expectation } from './expect.js';

/** The package's version, from sources (suites/runner) or compiled (dist/suites/runner). */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  // Stryker disable next-line EqualityOperator,UpdateOperator: package.json is two (sources) or three (dist) folders up; the bound only ends a walk that never gets that far
  for (let i = 0; i < 5; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    // The first package.json up from here is this package's own, in a checkout and an install alike.
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  // Stryker disable next-line StringLiteral: unreachable where the package is whole (its package.json ships with it)
  return '0.0.0';
}

/** Worst first: one failing check makes the rule fail. */
const ORDER: CheckStatus[] = ['failed', 'warned', 'expected', 'passed', 'skipped'];

export function ruleStatus(level: RuleInfo['level'], all: CheckStatus[]): RuleStatus {
  // An errored check saw nothing about the rule: it neither passes nor fails it.
  const statuses: CheckStatus[] = all.filter((s) => s !== 'errored');
  if (!statuses.length) return 'untested';
  const worst = ORDER.find((s) => statuses.includes(s))!;
  // A should or info rule is never failed, only warned: the source is silent or it is context.
  return worst === 'failed' && level !== 'must' ? 'warned' : worst;
}

/** What a report needs of a rule: a run hands in catalogue entries, `report merge` the shards' rule results. */
export type ReportRule = Pick<RuleInfo, 'id' | 'title' | 'level' | 'source' | 'origin'>;

export interface ReportInput {
  target: string;
  release: string;
  offering: string;
  seed: number;
  startedAt: Date;
  /** Wall-clock time of the run; measured from startedAt to now when not given (a merge gives the span). */
  durationMs?: number;
  checks: CheckResult[];
  /** The rules the report lists (in force, and within the run's filters). */
  rules: ReportRule[];
  /** Known deviations (`--expect`): their failures are `expected`, their passes `stale`. */
  expect?: Expectation[];
  /** `--require-coverage`: percentage of the listed must rules that must be tested. */
  requiredCoverage?: number;
  interrupted?: Report['interrupted'];
  stopped?: Report['stopped'];
  rateLimited?: number;
  slowAnswers?: number;
  unrevokedTokens?: number;
  invocation?: Report['invocation'];
  shard?: Report['shard'];
  shards?: Report['shards'];
}

/**
 * Each rule's status from the checks that judge it (already read against `expect`): the one
 * reading for a run and for a merge of shards.
 */
export function ruleResults(
  rules: readonly ReportRule[],
  checks: readonly CheckResult[],
  expect: Expectation[],
): RuleResult[] {
  const byRule = new Map<string, { check: CheckResult; status: CheckStatus }[]>();
  // A pass whose assertions named rules proves only those. A failure that names the rules it broke
  // fails those; of the check's other rules it passes the ones its held assertions named (proved)
  // and says nothing of the rest.
  const verdictOn = (c: CheckResult, id: string): CheckStatus | undefined => {
    if (c.status === 'passed') return !c.proved || c.proved.includes(id) ? 'passed' : undefined;
    if (!c.broken || c.broken.includes(id)) return c.status;
    return c.proved?.includes(id) ? 'passed' : undefined;
  };
  for (const c of checks) {
    for (const id of new Set(c.broken ? [...c.rules, ...c.broken] : c.rules)) {
      const status = verdictOn(c, id);
      if (status) byRule.set(id, [...(byRule.get(id) ?? []), { check: c, status }]);
    }
  }
  return rules.map((r) => {
    const judged = byRule.get(r.id) ?? [];
    const status = ruleStatus(
      r.level,
      judged.map((j) => j.status),
    );
    const expectedReason = reasonFor(expect, r.id);
    return {
      id: r.id,
      title: r.title,
      level: r.level,
      source: r.source,
      origin: r.origin,
      // A listed rule seen to hold is stale: the known deviation is gone, the entry can go too.
      status: expectedReason && status === 'passed' ? 'stale' : status,
      checks: judged.map((j) => j.check.id),
      ...(expectedReason && (status === 'passed' || status === 'expected') ? { expectedReason } : {}),
    };
  });
}

export function buildReport(input: ReportInput): Report {
  // Stryker disable next-line ArrayDeclaration: an entry naming no rule excuses nothing, as no entry does
  const expect = input.expect ?? [];
  const checks = input.checks.map((c) => applyToCheck(c, expect));
  const rules = ruleResults(input.rules, checks, expect);
  const summary: Report['summary'] = { passed: 0, failed: 0, warned: 0, skipped: 0, errored: 0 };
  if (input.expect) summary.expected = 0;
  for (const c of checks) summary[c.status] = (summary[c.status] ?? 0) + 1;
  return {
    tool: 'idp-conformance',
    version: packageVersion(),
    target: input.target,
    release: input.release,
    offering: input.offering,
    seed: input.seed,
    startedAt: input.startedAt.toISOString(),
    durationMs: input.durationMs ?? Date.now() - input.startedAt.getTime(),
    summary,
    coverage: mustCoverage(rules, input.requiredCoverage),
    ...(input.interrupted ? { interrupted: input.interrupted } : {}),
    ...(input.stopped ? { stopped: input.stopped } : {}),
    ...(input.rateLimited ? { rateLimited: input.rateLimited } : {}),
    ...(input.slowAnswers ? { slowAnswers: input.slowAnswers } : {}),
    ...(input.unrevokedTokens ? { unrevokedTokens: input.unrevokedTokens } : {}),
    ...(input.invocation ? { invocation: input.invocation } : {}),
    ...(input.shard ? { shard: input.shard } : {}),
    ...(input.shards ? { shards: input.shards } : {}),
    rules,
    checks,
  };
}

/** The exit code of a signal, as shells report it: 128 + its number. */
export const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/**
 * An interrupted run exits as its signal does; a run stopped early (a silent target, --deadline)
 * exits 2, whatever it saw before; else 1 when a `must` check failed or fewer must
 * rules were tested than required; else 2 when a check errored (the harness could not do its
 * part, so the run proves less than it claims to); else 0 (warnings keep 0).
 */
export function exitCodeOf(report: Report): number {
  if (report.interrupted) return SIGNAL_EXIT[report.interrupted];
  if (report.stopped) return 2;
  const v = verdict(report);
  return v === 'fail' ? 1 : v === 'error' ? 2 : 0;
}
