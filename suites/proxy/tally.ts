/**
 * The proxy's verdicts, counted per rule, as the per-rule report of a run: a rule is passed only
 * when exchanges exercised it and none broke it; every other rule in force stays untested.
 */
import { rulesInForce, type Offering } from '../../spec/index.js';
import type { CheckResult, Report } from '../report/model.js';
import { buildReport } from '../runner/report.js';
import type { Verdict } from './recorder.js';
import { describeFailure, type Masker } from '../report/cut.js';
import { CLIENT_HABITS, type ClientHabit, type ClientNote } from './client.js';

/** Failure sentences kept per rule: enough to act on, bounded whatever the traffic. */
const MAX_MESSAGES = 5;

/** A habit as seen so far: how often, the first few places, and the first exchange (by its number) that showed it. */
export interface HabitSeen {
  count: number;
  where: string[];
  first?: { exchange: number; where: string };
}

interface Count {
  passed: number;
  failed: number;
  messages: string[];
}

export interface Tally {
  add(verdicts: readonly Verdict[]): void;
  /**
   * A habit of the client (its own section of the report, never a rule), shown by the exchange
   * numbered `exchange` (Observed.number), when known.
   */
  note(note: ClientNote, exchange?: number): void;
  habits(): ReadonlyMap<ClientHabit, HabitSeen>;
  /** Exchanges seen, judged or not. */
  exchanges: number;
  /** Exchanges some rule judged (the rest asked nothing the rules say anything of: a page's assets, say). */
  judged: number;
  counts(): ReadonlyMap<string, Count>;
}

/**
 * `mask`: the secrets the traffic taught (cli/proxy.ts keeps a redactor). Each sentence kept is
 * masked and cut as a run's failure is (describeFailure): a provider's 900 KB `error`, quoted
 * whole, made a 4.5 MB message of six exchanges (review 16).
 */
export function createTally(mask: Masker | ((text: string) => string) = (text) => text): Tally {
  const byRule = new Map<string, Count>();
  const byHabit = new Map<ClientHabit, HabitSeen>();
  return {
    exchanges: 0,
    judged: 0,
    note({ habit, where }, exchange) {
      const seen = byHabit.get(habit) ?? { count: 0, where: [] };
      seen.count++;
      if (seen.where.length < MAX_MESSAGES && !seen.where.includes(where)) seen.where.push(where);
      // Exchanges are judged as their answers end: a later number may be noted first.
      if (exchange !== undefined && !(seen.first && seen.first.exchange < exchange)) seen.first = { exchange, where };
      byHabit.set(habit, seen);
    },
    habits: () => byHabit,
    add(verdicts) {
      this.exchanges++;
      if (verdicts.length) this.judged++;
      // One exchange counts once per rule: broken when any of its assertions on it failed.
      const broken = new Set(verdicts.filter((v) => !v.ok).map((v) => v.rule));
      for (const rule of new Set(verdicts.map((v) => v.rule))) {
        const c = byRule.get(rule) ?? { passed: 0, failed: 0, messages: [] };
        if (broken.has(rule)) c.failed++;
        else c.passed++;
        byRule.set(rule, c);
      }
      for (const v of verdicts) {
        const c = byRule.get(v.rule)!;
        const message =
          !v.ok && v.message && c.messages.length < MAX_MESSAGES && describeFailure({ message: v.message }, mask);
        if (message && !c.messages.includes(message)) c.messages.push(message);
      }
    },
    counts: () => byRule,
  };
}

export interface ProxyReportInput {
  target: string;
  release: string;
  offering: Offering;
  startedAt: Date;
  /** The proxy's last line (cli/proxy.ts proxySummary), kept in the report. */
  traffic?: string;
}

/** The id of a proxy report's check of one rule, `proxy.RULE-ID`; ruleOfProxyCheck reads it back. */
const PROXY_CHECK = 'proxy.';
const proxyCheckId = (ruleId: string): string => `${PROXY_CHECK}${ruleId}`;
export const ruleOfProxyCheck = (id: string): string | undefined =>
  id.startsWith(PROXY_CHECK) ? id.slice(PROXY_CHECK.length) : undefined;

/** One check per rule judged (`proxy.RULE-ID`), so the report names exactly the broken sentence. */
export function proxyReport(tally: Tally, input: ProxyReportInput): Report {
  const rules = rulesInForce(input.release, input.offering);
  const checks: CheckResult[] = [];
  for (const rule of rules) {
    const c = tally.counts().get(rule.id);
    if (!c) continue;
    const failed = c.failed > 0;
    checks.push({
      id: proxyCheckId(rule.id),
      suite: 'proxy',
      title: `${rule.title} (seen in traffic)`,
      rules: [rule.id],
      // A should rule is warned, never failed, as in a run.
      status: failed ? (rule.level === 'must' ? 'failed' : 'warned') : 'passed',
      durationMs: 0,
      message: failed
        ? `${c.failed} of ${c.failed + c.passed} exchanges broke it: ${c.messages.join('; ')}`
        : `${c.passed} exchanges held to it`,
    });
  }
  const report = buildReport({
    target: input.target,
    release: input.release,
    offering: input.offering,
    seed: 0,
    startedAt: input.startedAt,
    checks,
    rules,
  });
  // In the order the habits are listed, so two reports of the same traffic read the same.
  const habits = (Object.keys(CLIENT_HABITS) as ClientHabit[]).flatMap((habit) => {
    const seen = tally.habits().get(habit);
    if (!seen) return [];
    const first = seen.first ? { first: seen.first } : {};
    return [{ habit, title: CLIENT_HABITS[habit], count: seen.count, where: seen.where, ...first }];
  });
  const traffic = input.traffic === undefined ? {} : { traffic: input.traffic };
  return { ...report, client: { exchanges: tally.exchanges, habits, ...traffic } };
}
