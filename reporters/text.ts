/**
 * What every human-readable format shares: counts per area, the verdict, and the plain-text
 * rendering of a failure (message, counterexample, exchanges, reproduce). Formats differ only in
 * how they wrap these.
 */
import type { CheckResult, CheckStatus, Exchange, Report, RuleResult, RuleStatus } from '../suites/report/model.js';
import { coverageOf, coverageShort, noCheckRan, nothingTested, verdict } from '../suites/report/verdict.js';
import { leftUnrevoked, plural } from '../suites/report/words.js';
import { SLOW_SHARE } from '../suites/target/types.js';

export type Counts = Record<CheckStatus, number>;

export const CHECK_STATUSES: readonly CheckStatus[] = ['failed', 'errored', 'warned', 'expected', 'skipped', 'passed'];
/** Worst first: the order in which tables list things. */
export const RULE_STATUS_ORDER: readonly RuleStatus[] = [
  'failed',
  'warned',
  'expected',
  'stale',
  'untested',
  'skipped',
  'passed',
];

/** The per-area table's columns: every check status, so each row adds up to its total. */
const COUNT_COLUMNS: readonly CheckStatus[] = ['passed', 'failed', 'warned', 'expected', 'errored', 'skipped'];

/**
 * The per-area counts table the console and Markdown print: a header, one row per area (its name
 * through `name`, the format's escaping) and the total row. Cells are strings, numbers right-aligned
 * by the format.
 */
export function areaCountsTable(report: Report, name: (area: string) => string): { head: string[]; rows: string[][] } {
  const title = (s: string) => s[0].toUpperCase() + s.slice(1);
  const row = (area: string, items: readonly CheckResult[]) => {
    const counts = countStatuses(items);
    return [area, ...COUNT_COLUMNS.map((s) => String(counts[s])), String(items.length)];
  };
  return {
    head: ['Area', ...COUNT_COLUMNS.map(title), 'Total'],
    rows: [...checksByArea(report).map(({ area, items }) => row(name(area), items)), row('all', report.checks)],
  };
}

export function countStatuses(checks: readonly CheckResult[]): Counts {
  const counts: Counts = { passed: 0, failed: 0, warned: 0, skipped: 0, errored: 0, expected: 0 };
  for (const check of checks) counts[check.status] += 1;
  return counts;
}

export interface AreaGroup<T> {
  area: string;
  items: T[];
}

/** Groups in order of first appearance, so reports follow the runner's order. */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): AreaGroup<T>[] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const area = key(item);
    const list = groups.get(area);
    if (list) list.push(item);
    else groups.set(area, [item]);
  }
  return [...groups].map(([area, list]) => ({ area, items: list }));
}

export function checksByArea(report: Report): AreaGroup<CheckResult>[] {
  return groupBy(report.checks, (check) => check.suite);
}

/** A rule's area is its id prefix: `PKCE-VERIFIER-LENGTH` belongs to PKCE. */
export function ruleArea(rule: RuleResult): string {
  return rule.id.split('-')[0];
}

export function rulesByArea(report: Report): AreaGroup<RuleResult>[] {
  return groupBy(report.rules, ruleArea).map(({ area, items }) => ({ area, items: sortRules(items) }));
}

/** Worst first, then by id; `infoLast` puts the info rules after the others (the HTML table). */
export function sortRules(rules: readonly RuleResult[], { infoLast = false } = {}): RuleResult[] {
  const rank = (status: RuleStatus) => RULE_STATUS_ORDER.indexOf(status);
  const last = (rule: RuleResult) => Number(infoLast && rule.level === 'info');
  return [...rules].sort((a, b) => last(a) - last(b) || rank(a.status) - rank(b.status) || a.id.localeCompare(b.id));
}

export { coverageOf, coverageShort, mustCoverage, verdict, type Verdict } from '../suites/report/verdict.js';

/** PASS, FAIL, ERROR, INTERRUPTED or STOPPED: the first word of every verdict. */
export function verdictHead(report: Report): string {
  if (report.interrupted) return 'INTERRUPTED';
  if (report.stopped) return 'STOPPED';
  return { fail: 'FAIL', error: 'ERROR', pass: 'PASS' }[verdict(report)];
}

/** `41 of 143 must rules tested`, `partial: ` in front when some were not. */
export function coverageText(report: Report): string {
  const { must, mustTested, required } = coverageOf(report);
  const share = `${mustTested} of ${must} must rules tested`;
  const below = coverageShort(report) ? `, below the required ${required}%` : '';
  return `${mustTested < must ? 'partial: ' : ''}${share}${below}`;
}

export function verdictLine(report: Report): string {
  // Whatever the verdict, even when no check ran (the start-up mints tokens too): live tokens of
  // the user's account left behind are worth a word in the saved report, not only on the console.
  const unrevoked = report.unrevokedTokens ? `; ${leftUnrevoked(report.unrevokedTokens)}` : '';
  return verdictWords(report) + unrevoked;
}

/** The verdict line up to what the run left behind: head, coverage, counts, time, what the target refused or slowed. */
function verdictWords(report: Report): string {
  const { passed, failed, warned, skipped, errored = 0 } = report.summary;
  const by = report.interrupted ? `by ${report.interrupted}; ` : report.stopped ? `${report.stopped.message}; ` : '';
  const erroredText = errored ? `${errored} errored, ` : '';
  const expectedText = report.summary.expected !== undefined ? `${report.summary.expected} expected, ` : '';
  const stale = report.rules.filter((r) => r.status === 'stale').length;
  const staleText = stale ? ` (${plural(stale, 'stale expectation')})` : '';
  if (noCheckRan(report) && !report.interrupted && !report.stopped)
    return `${verdictHead(report)} (${by}${coverageText(report)}): ${report.client ? 'no exchange was judged' : 'no check ran'}${report.shard ? ` in shard ${report.shard.index}/${report.shard.total}` : ''}, so nothing is passed`;
  if (nothingTested(report) && !report.interrupted && !report.stopped)
    return `${verdictHead(report)} (${coverageText(report)}): nothing was tested, ${plural(skipped, 'check')} skipped (${skipReasons(report)}), so nothing is passed`;
  // Said beside the errored count: which errors were the target's rate limit, not the harness.
  const limited =
    (report.rateLimited ? `; ${plural(report.rateLimited, 'request')} rate-limited by the target` : '') +
    (report.slowAnswers
      ? `; ${plural(report.slowAnswers, 'answer')} took ${SLOW_SHARE * 100} % of --timeout or more`
      : '');
  return `${verdictHead(report)} (${by}${coverageText(report)}): ${failed} failed, ${erroredText}${warned} warned, ${expectedText}${skipped} skipped, ${passed} passed in ${seconds(report.durationMs)}${staleText}${limited}`;
}

/** The skipped checks' reasons in one line, most frequent first: `reason A ×2; reason B`, at most three. */
function skipReasons(report: Report): string {
  const counts = new Map<string, number>();
  for (const check of report.checks)
    if (check.status === 'skipped') {
      const reason = firstLine(check.message) || 'no reason given';
      counts.set(reason, (counts.get(reason) ?? 0) + 1);
    }
  const shown = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 3);
  const more = counts.size - shown.length;
  return (
    shown.map(([reason, n]) => (n > 1 ? `${reason} ×${n}` : reason)).join('; ') +
    (more > 0 ? `; ${plural(more, 'other reason')}` : '')
  );
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** `check id — title [RULE-A, RULE-B]`: how a check is named in every format. */
export function checkLabel(check: CheckResult): string {
  const rules = check.rules.length > 0 ? ` [${check.rules.join(', ')}]` : '';
  return `${check.id} — ${check.title}${rules}`;
}

export function firstLine(text: string | undefined): string {
  return (text ?? '').split(/\r?\n/, 1)[0].trim();
}

/** Bodies beyond this are cut in human-readable formats (the JSON report keeps them whole). */
export const MAX_BODY_CHARS = 4000;

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}

function indent(text: string, prefix: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => (line === '' ? '' : prefix + line))
    .join('\n');
}

/** An exchange as readable HTTP: `→ METHOD url`, headers, body; then `← status`, headers, body. */
export function formatExchange(exchange: Exchange, maxBody = MAX_BODY_CHARS): string {
  const lines: string[] = [];
  const part = (headers: Record<string, string>, body?: string) => {
    for (const [name, value] of Object.entries(headers)) lines.push(`  ${name}: ${value}`);
    if (body !== undefined && body !== '') lines.push('', indent(truncate(body, maxBody), '  '));
  };
  lines.push(`→ ${exchange.request.method} ${exchange.request.url}`);
  part(exchange.request.headers, exchange.request.body);
  if (exchange.response) {
    lines.push(`← ${exchange.response.status}`);
    part(exchange.response.headers, exchange.response.body);
  } else {
    lines.push('← (no response)');
  }
  return lines.join('\n');
}

/** One line per exchange: `POST http://…/oauth/token → 400`. */
export function exchangeSummary(exchange: Exchange): string {
  const status = exchange.response ? String(exchange.response.status) : 'no response';
  return `${exchange.request.method} ${exchange.request.url} → ${status}`;
}

/** The detail sections of a non-passing check, each a heading and a plain-text body. */
export function detailSections(check: CheckResult, maxBody = MAX_BODY_CHARS): { heading: string; body: string }[] {
  const sections: { heading: string; body: string }[] = [];
  if (check.message) sections.push({ heading: 'Message', body: check.message });
  // Which sentence of the spec this failure breaks, when that is not simply every rule the check proves.
  const sameAsRules =
    check.broken?.length === check.rules.length && check.broken.every((id) => check.rules.includes(id));
  if (check.broken?.length && !sameAsRules) sections.push({ heading: 'Breaks', body: check.broken.join(', ') });
  if (check.counterexample) sections.push({ heading: 'Counterexample', body: check.counterexample });
  const exchanges = check.exchange ?? [];
  exchanges.forEach((exchange, i) => {
    const heading = exchanges.length > 1 ? `Exchange ${i + 1} of ${exchanges.length}` : 'Exchange';
    sections.push({ heading, body: formatExchange(exchange, maxBody) });
  });
  if (check.reproduce) sections.push({ heading: 'Reproduce', body: check.reproduce });
  return sections;
}

/** All detail sections as one plain-text block (JUnit failure bodies). */
export function detailText(check: CheckResult, maxBody = MAX_BODY_CHARS): string {
  return detailSections(check, maxBody)
    .map(({ heading, body }) => `${heading}:\n${indent(body, '  ')}`)
    .join('\n\n');
}

/** The first check that broke `rule`, with that failure's message. */
export function firstFailureOf(report: Report, rule: RuleResult): { check: CheckResult; message: string } | undefined {
  for (const check of report.checks) {
    if (check.status !== 'failed' && check.status !== 'warned') continue;
    const failures = check.failures ?? [{ message: check.message ?? '', broken: check.broken ?? check.rules }];
    const hit = failures.find((f) => f.broken.includes(rule.id));
    if (hit) return { check, message: hit.message };
  }
  return undefined;
}

/**
 * The first failure that broke `rule`: its check and message (first line), for the per-rule table;
 * for an untested rule, why: a check that carries it ended on another rule (or errored) before it.
 */
export function firstFailure(report: Report, rule: RuleResult): string {
  const hit = firstFailureOf(report, rule);
  if (hit) return `${hit.check.id}: ${firstLine(hit.message)}`;
  return rule.status === 'untested' ? untestedReason(report, rule) : '';
}

/** A proxy's report (its client section) judged traffic, not a seeded run: it shows no seed (its 0 would send a rerun astray). */
export const seeded = (report: Report): boolean => !report.client;

function untestedReason(report: Report, rule: RuleResult): string {
  const carrier = report.checks.find((c) => c.rules.includes(rule.id) && c.status !== 'passed');
  if (carrier?.broken?.length)
    return `not judged: ${carrier.id} ${carrier.status} on ${carrier.broken.join(', ')} first`;
  if (carrier) return `not judged: ${carrier.id} ${carrier.status}: ${firstLine(carrier.message)}`;
  const asserted = report.checks.some((c) => c.rules.includes(rule.id));
  if (asserted) return 'not judged: no assertion of its checks named it';
  // A proxy's report (its client section) selected no checks: its traffic judged what it exercised.
  return report.client ? 'the traffic did not exercise it' : 'no selected check proves it';
}

/**
 * A rule worth a line in a compact table: failed, warned or errored, and an untested `must` rule
 * (with its reason: review 21 found must rules untested with no word); not passed or skipped ones.
 */
export const shownRule = (rule: RuleResult): boolean =>
  rule.status === 'failed' ||
  rule.status === 'warned' ||
  rule.status === 'errored' ||
  (rule.status === 'untested' && rule.level === 'must');

/**
 * Rules worth a line in a compact table (shownRule), worst first. A proxy's report (its client
 * section): the rules its traffic judged, passed ones too; most rules in force are untested there
 * (257 rows of them before).
 */
export function rulesToShow(report: Report, all = false): RuleResult[] {
  const shown = report.client ? (rule: RuleResult) => rule.status !== 'untested' : shownRule;
  return sortRules(report.rules).filter((rule) => all || shown(rule));
}

/**
 * The per-rule table as plain-text lines (rule, level, origin, verdict, checks, first failure), a
 * header first; columns padded to their widest cell (at most 48), the last cut at 100 characters.
 * `clean` makes target-supplied text safe for the medium (the terminal strips control characters).
 */
/**
 * A rule's checks in one short cell: the first two (those that failed or warned first) and how many
 * more, e.g. `grants.a, grants.b +5`, so a rule proved by many checks keeps its table line readable.
 */
function checksCell(rule: RuleResult, bad: ReadonlySet<string>): string {
  const ordered = [...rule.checks.filter((id) => bad.has(id)), ...rule.checks.filter((id) => !bad.has(id))];
  const more = ordered.length - 2;
  return ordered.slice(0, 2).join(', ') + (more > 0 ? ` +${more}` : '');
}

export function ruleTableLines(rules: readonly RuleResult[], report: Report, clean = (text: string) => text): string[] {
  const head = ['Rule', 'Level', 'Origin', 'Verdict', 'Checks', 'First failure'];
  const bad = new Set(report.checks.filter((c) => c.status !== 'passed' && c.status !== 'skipped').map((c) => c.id));
  const rows = rules.map((rule) => [
    clean(rule.id),
    rule.level,
    clean(rule.origin ?? ''),
    rule.status,
    clean(checksCell(rule, bad)) || '—',
    clean(firstFailure(report, rule)),
  ]);
  const widths = head.map((cell, i) => Math.min(48, Math.max(cell.length, ...rows.map((r) => r[i].length))));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) =>
        i === cells.length - 1 ? (cell.length > 100 ? `${cell.slice(0, 99)}…` : cell) : cell.padEnd(widths[i]),
      )
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)];
}

/** "must 120 passed, 3 failed; should …": the per-rule counts by level in one line. */
export function ruleCountsLine(report: Report): string {
  const byLevel = new Map<string, Map<string, number>>();
  for (const rule of report.rules) {
    const counts = byLevel.get(rule.level) ?? new Map<string, number>();
    counts.set(rule.status, (counts.get(rule.status) ?? 0) + 1);
    byLevel.set(rule.level, counts);
  }
  return [...byLevel]
    .map(([level, counts]) => `${level}: ${[...counts].map(([status, n]) => `${n} ${status}`).join(', ')}`)
    .join('; ');
}
