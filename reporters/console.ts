/**
 * The terminal summary `run` prints: per-area counts, each failure and warning with its message,
 * counterexample, exchanges (one line each) and reproduce command, the seed, and a final verdict
 * line. ANSI colour only when asked; control characters from the target never reach the terminal.
 */
import { ruleQuote, type CatalogueEntry } from '../spec/catalogue.js';
import { redact } from '../suites/report/redact.js';
import { boundReport } from '../suites/report/bounded.js';
import { inert, inertReport } from '../suites/report/inert.js';
import { CLIENT_HEADING, clientLines } from './client.js';
import { plural } from '../suites/report/words.js';
import {
  checkLabel,
  areaCountsTable,
  exchangeSummary,
  groupBy,
  ruleCountsLine,
  ruleTableLines,
  rulesToShow,
  seeded,
  verdict,
  verdictLine,
} from './text.js';
import type { CheckResult, Report } from '../suites/report/model.js';
import { commandLine } from '../suites/report/command.js';

export interface ConsoleOptions {
  color?: boolean;
  /** List every rule in the per-rule table, not only those not passed. */
  allRules?: boolean;
  /** The verdict line only (`run --quiet`). */
  quiet?: boolean;
  /** Report files written, listed after the verdict. */
  written?: { kind: string; path: string }[];
  /** The rule catalogue: each broken rule of a failure is shown with the source sentence it comes from. */
  catalogue?: readonly CatalogueEntry[];
  /** The command and arguments that redo this run, but its seed (`run --suite tokens --runs 3`): the footer's rerun. */
  rerun?: readonly string[];
  /** A merge of reports run with different flags: each one's files and rerun (none saved, or none a run writes: undefined), one line each. */
  reruns?: readonly { from: readonly string[]; rerun?: readonly string[] }[];
}

/** "PKCE-X, source L42: “…”" (or the rule's statement and origin where the source is silent). */
function sourceLines(check: CheckResult, catalogue: ReadonlyMap<string, CatalogueEntry>): string[] {
  const clip = (text: string) => (text.length > 160 ? `${text.slice(0, 159)}…` : text);
  return (check.broken ?? []).flatMap((id) => {
    const entry = catalogue.get(id);
    if (!entry) return [];
    const { where, text } = ruleQuote(entry);
    return [`${id}, ${where}: “${clip(text)}”`];
  });
}

/** Colour for a stream: a terminal, unless NO_COLOR is set; FORCE_COLOR (not "0") forces it. */
export function shouldColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0';
  return stream.isTTY === true;
}

const ANSI = { red: 31, green: 32, yellow: 33, grey: 90, bold: 1 } as const;
type Tint = keyof typeof ANSI;

/**
 * Control and bidi characters a hostile target could put in a message or body (they would rewrite
 * the terminal or reorder the text) written as visible escapes, as in every format (inert);
 * newlines and tabs stay.
 */
export function terminalSafe(text: string): string {
  return inert(text);
}

function painter(color: boolean) {
  return (tint: Tint, text: string) => (color ? `\u001b[${ANSI[tint]}m${text}\u001b[0m` : text);
}

const STATUS_TINT: Record<CheckResult['status'], Tint> = {
  passed: 'green',
  failed: 'red',
  warned: 'yellow',
  skipped: 'grey',
  errored: 'red',
  expected: 'yellow',
};

function countsTable(report: Report, paint: ReturnType<typeof painter>): string[] {
  const { head, rows } = areaCountsTable(report, terminalSafe);
  const widths = head.map((cell, i) => Math.max(cell.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  const total = rows.pop()!;
  return [paint('bold', line(head)), ...rows.map(line), paint('bold', line(total))];
}

/**
 * The per-rule verdicts, first: counts by level, then each rule not passed (failed, warned) with its
 * level, origin, checks and first failure; every rule with `allRules` (`--verbose`). One line a rule.
 */
function rulesTable(report: Report, paint: ReturnType<typeof painter>, all: boolean): string[] {
  const rules = rulesToShow(report, all);
  const out = [paint('bold', `Rules (${report.rules.length}) ${ruleCountsLine(report)}`)];
  // A proxy's table leaves out the rules its traffic did not exercise: counted under it.
  const rest = report.rules.length - rules.length;
  const untested =
    report.client && !all && rest ? [`${plural(rest, 'rule')} the traffic did not exercise (untested)`] : [];
  if (!rules.length) return [...out, ...untested];
  const [head, ...rows] = ruleTableLines(rules, report, terminalSafe);
  return [...out, paint('bold', head), ...rows, ...untested];
}

function problem(
  check: CheckResult,
  paint: ReturnType<typeof painter>,
  catalogue: ReadonlyMap<string, CatalogueEntry>,
): string[] {
  const tag = check.status.toUpperCase();
  const lines = [
    `${paint(STATUS_TINT[check.status], tag)} ${terminalSafe(check.suite)} ${terminalSafe(checkLabel(check))}`,
  ];
  const indented = (label: string, text: string) => {
    const [first, ...rest] = terminalSafe(text).split(/\r?\n/);
    // A continuation is indented under its first line; the next of several assertions, "(2/3) …", is its peer.
    lines.push(
      `  ${label}${first}`,
      ...rest.map((line) => (/^\(\d+\/\d+\) /.test(line) ? `  ${line}` : `    ${line}`)),
    );
  };
  if (check.message) indented('', check.message);
  for (const line of sourceLines(check, catalogue)) indented('rule ', line);
  if (check.counterexample) indented('counterexample: ', check.counterexample);
  for (const exchange of check.exchange ?? []) indented('exchange: ', exchangeSummary(exchange));
  if (check.reproduce) indented(paint('bold', 'reproduce: '), check.reproduce);
  return lines;
}

/** Skipped checks grouped by their reason: `SKIPPED (12) needs control: …` and the check ids under it. */
function skippedByReason(report: Report, paint: ReturnType<typeof painter>): string[] {
  const byReason = groupBy(
    report.checks.filter((check) => check.status === 'skipped'),
    (check) => terminalSafe(check.message ?? '').split(/\r?\n/, 1)[0] || 'no reason given',
  );
  return byReason.flatMap(({ area: reason, items }) => [
    paint('grey', `SKIPPED (${items.length}) ${reason}`),
    ...wrapIds(items.map((check) => terminalSafe(check.id))).map((line) => paint('grey', `  ${line}`)),
  ]);
}

/** Ids joined by ", " into lines of at most `width` characters. */
function wrapIds(ids: string[], width = 100): string[] {
  const lines: string[] = [];
  for (const id of ids) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + id.length + 2 <= width) lines[last] += `, ${id}`;
    else lines.push(id);
  }
  return lines;
}

function verdictPainted(report: Report, paint: ReturnType<typeof painter>): string {
  return paint('bold', paint(verdict(report) === 'pass' ? 'green' : 'red', verdictLine(report)));
}

export function formatConsole(input: Report, options: ConsoleOptions = {}): string {
  const report = inertReport(redact(boundReport(input)));
  const paint = painter(options.color === true);
  const catalogue = new Map((options.catalogue ?? []).map((entry) => [entry.id as string, entry]));
  const written = (options.written ?? []).map(
    ({ kind, path }) => `${kind === 'catalogue' ? 'rule catalogue' : `${kind} report`}: ${terminalSafe(path)}`,
  );
  if (options.quiet) return `${[verdictPainted(report, paint), ...written].join('\n')}\n`;
  const out: string[] = [
    `${terminalSafe(report.tool)} ${terminalSafe(report.version)}: ${terminalSafe(report.target)} (release ${terminalSafe(report.release)}, ${terminalSafe(report.offering)})`,
    '',
    ...rulesTable(report, paint, options.allRules === true),
    '',
    ...countsTable(report, paint),
  ];
  for (const status of ['failed', 'errored', 'warned'] as const) {
    const checks = report.checks.filter((check) => check.status === status);
    if (checks.length === 0) continue;
    out.push('');
    for (const check of checks) out.push(...problem(check, paint, catalogue));
  }
  const skipped = skippedByReason(report, paint);
  if (skipped.length > 0) out.push('', ...skipped);
  if (report.client)
    out.push('', `${CLIENT_HEADING}:`, ...clientLines(report.client, terminalSafe).map((line) => `  ${line}`));
  // Known deviations (--expect): excused failures, and listed rules that now pass (remove them).
  const expected = report.checks.filter((check) => check.status === 'expected');
  const stale = report.rules.filter((rule) => rule.status === 'stale');
  if (expected.length + stale.length > 0) out.push('');
  for (const check of expected) {
    const why = terminalSafe(check.expectedReason ?? '').split(/\r?\n/, 1)[0];
    out.push(paint('yellow', `EXPECTED ${terminalSafe(check.suite)} ${terminalSafe(checkLabel(check))}: ${why}`));
  }
  for (const rule of stale) {
    const why = terminalSafe(rule.expectedReason ?? '').split(/\r?\n/, 1)[0];
    out.push(
      paint('yellow', `STALE ${terminalSafe(rule.id)}: listed in --expect (${why}) but passed; remove the entry`),
    );
  }
  // A proxy's report (its client section) judged traffic: no seed, nothing to rerun.
  // "A failure prints the command that reproduces it": the run's own arguments, with its seed.
  const command = (args: readonly string[]) => terminalSafe(commandLine([...args, '--seed', String(report.seed)]));
  const rerun = options.reruns
    ? 'its reports ran with different flags, rerun each as its own:'
    : options.rerun
      ? `rerun: ${command(options.rerun)}`
      : `rerun with --seed ${report.seed}`;
  const each = (options.reruns ?? []).map(
    ({ from, rerun: args }) =>
      `  ${terminalSafe(from.join(', '))}: ${args ? command(args) : `no flags to show, rerun with --seed ${report.seed}`}`,
  );
  out.push('', ...(seeded(report) ? [`seed: ${report.seed} (${rerun})`, ...each] : []));
  out.push(verdictPainted(report, paint), ...written);
  return `${out.join('\n')}\n`;
}
