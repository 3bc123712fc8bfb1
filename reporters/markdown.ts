/**
 * Markdown for CI job summaries and PR comments (GitHub flavour): verdict and summary table, the
 * rules table folded, failures first with their details folded in <details>, warnings, per-area
 * counts and skipped reasons, within a size budget (renderMarkdown).
 */
import { plural } from '../suites/report/words.js';
import { CATALOGUE_FILES, ruleHref } from './rule-links.js';
import { CLIENT_HEADING, clientLines, trafficLines } from './client.js';
import escapeHtml from 'escape-html';
import { redact } from '../suites/report/redact.js';
import { boundReport } from '../suites/report/bounded.js';
import { inertReport } from '../suites/report/inert.js';
import {
  firstFailure,
  checkLabel,
  areaCountsTable,
  detailSections,
  firstLine,
  MAX_BODY_CHARS,
  rulesByArea,
  seconds,
  seeded,
  shownRule,
  verdict,
  verdictHead,
  verdictLine,
} from './text.js';
import type { CheckResult, DiffSection, Report } from '../suites/report/model.js';
import { atStatus, checksCell, diffHead, diffTally, judgementOf, noDifference, notComparedLines } from './diff.js';
import { cut } from '../suites/report/cut.js';

/** Text in Markdown prose or a table cell: no HTML, no table breaks, one line. */
/** A rule id linked to its entry in the rule catalogue written beside the report (rules.md). */
const ruleLink = (id: string): string => `[${code(id)}](${ruleHref(id, CATALOGUE_FILES.md)})`;

export function md(text: string): string {
  return unreferenced(
    text
      .replace(/([\\`*_[\]#])/g, '\\$1')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/\|/g, '\\|')
      .replace(/\r?\n/g, ' '),
  );
}

/**
 * Text inside raw HTML (a <summary>): Markdown is not interpreted there, only entities are; its
 * brackets are entities too, so a renderer that reads Markdown inside HTML makes no link or image.
 */
function html(text: string): string {
  return unreferenced(escapeHtml(text.replace(/\r?\n/g, ' ')).replace(/\[/g, '&#91;').replace(/\]/g, '&#93;'));
}

/**
 * Escaped text with no live `@name` or `#123`: the report is posted as a PR comment, where the code
 * host links them in text (escaped or not), notifies whoever `@name` names and adds a back-reference
 * to issue 123, so a target's words could ping a team or spam issues. A <wbr> (invisible) after the
 * sign splits the text the host reads them in (an entity's `&#39;` stays whole); code spans and
 * fenced blocks are never linked. The same for a bare URL (`https://…`, `www.…`), which GitHub
 * links on its own (GFM autolinks): a URL the target chose (a Location, a Link, a verification_uri)
 * stays text, never a live link in a job summary or comment. The `@` split spoils an e-mail autolink.
 * GitHub reads `GH-123` as issue 123 too (any case): split after its `GH`.
 */
const unreferenced = (escaped: string): string =>
  escaped.replace(/(@|(?<!&)#)(?=\w)|(:)(?=\/\/)|\b(www)(?=\.)|\b(gh)(?=-\d)/gi, '$&<wbr>');

/** Length of the longest match (no spread: a hostile body may hold more runs than arguments fit). */
function longestRun(text: string, pattern: RegExp): number {
  let longest = 0;
  for (const run of text.match(pattern) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/**
 * Inline code that survives backticks inside the value, and a table cell it is in: a `|` is
 * escaped, and a backslash before one first (GitHub splits a row where `\\|` is left, its `\\`
 * read as one escaped backslash); elsewhere a backslash stays one, as code shows it.
 */
function code(text: string): string {
  // Each run of backslashes matched whole (linear): doubled when a `|` follows it.
  const oneLine = text
    .replace(/\r?\n/g, ' ')
    .replace(/\\+\|?|\|/g, (run) => (run.endsWith('|') ? `${run.slice(0, -1).repeat(2)}\\|` : run));
  const fence = '`'.repeat(longestRun(oneLine, /`+/g) + 1);
  const pad = oneLine.startsWith('`') || oneLine.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${oneLine}${pad}${fence}`;
}

/** A fenced block whose fence is longer than any backtick run in the body (so bodies cannot escape it). */
function fenced(body: string, lang = 'text'): string {
  const fence = '`'.repeat(Math.max(3, longestRun(body, /`{3,}/g) + 1));
  return `${fence}${lang}\n${body}\n${fence}`;
}

const ICON: Record<string, string> = {
  passed: '✅',
  failed: '❌',
  warned: '⚠️',
  skipped: '⏭️',
  errored: '🛑',
  expected: '🟡',
  stale: '♻️',
  untested: '❔',
};
const icon = (status: string) => ICON[status] ?? '❔';

function problem(check: CheckResult, maxBody: number): string {
  // An exchange's bodies are cut to maxBody already; a message of a merged or hand-written report may not be.
  const sections = detailSections(check, maxBody)
    .map(({ heading, body }) => ({ heading, body: heading.startsWith('Exchange') ? body : cut(body, maxBody) }))
    .map(({ heading, body }) => `**${md(heading)}**\n\n${fenced(body, heading === 'Reproduce' ? 'sh' : 'text')}`)
    .join('\n\n');
  const summary = `${icon(check.status)} <code>${html(check.suite)}</code> ${html(checkLabel(check))}: ${html(short(check.message))}`;
  return `<details><summary>${summary}</summary>\n\n${sections}\n\n</details>`;
}

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(head),
    line(
      head.map((cell) => (/^(Passed|Failed|Warned|Expected|Errored|Skipped|Total|Rules)$/.test(cell) ? '---:' : '---')),
    ),
    ...rows.map(line),
  ].join('\n');
}

export interface MarkdownOptions {
  /**
   * Size budget: a GitHub PR comment holds 65,536 characters. Over budget, the report sheds detail
   * in steps (passed rules, long bodies, rules that did not fail, warn or err, the skipped checks'
   * reasons, then the details of the last problems, then the rules table); what is still over is
   * cut at a line, failures first, saying so; the verdict stays last. The output never passes it.
   */
  maxChars?: number;
}

export const DEFAULT_MARKDOWN_BUDGET = 60_000;
/** Body length once the budget bites. */
const SHORT_BODY_CHARS = 500;
/**
 * Characters of a message's first line (or a check's label) on a one-line entry or in a table
 * cell, a failure's <summary>, and the report's target, release and offering in the line before the
 * failures: 147 one-line failures quoting 2,000 characters each made 1.4 MB (review 16); a summary
 * of 60,000 characters or a target of 70,000 left no room for any failure's details (review 19).
 */
const ONE_LINE_CHARS = 200;
const short = (text: string | undefined): string => cut(firstLine(text), ONE_LINE_CHARS);
/** Where a reader finds what the Markdown left out. */
const WHOLE_REPORT = 'the JSON and HTML reports';

interface Layout {
  /** The rules table: every rule, those not passed, those failed, warned or errored (as the console), or none. */
  rules: 'all' | 'unpassed' | 'problems' | 'none';
  maxBody: number;
  /** How many failures and warnings (failures first) get their <details>; the rest one line each. */
  detailed: number;
  /** The skipped checks: each with its reason, counted by reason, or only counted. */
  skipped: 'listed' | 'grouped' | 'counted';
}

function oneLiner(check: CheckResult): string {
  return `- ${icon(check.status)} ${code(check.suite)} ${md(short(checkLabel(check)))}: ${md(short(check.message))}`;
}

/** The rules the table lists, and its title. */
function rulesTable(report: Report, which: Layout['rules']): string {
  const total = report.rules.length;
  if (which === 'none') return `_Rules (${total}): the table is in ${WHOLE_REPORT} (size limit)._`;
  const rules = rulesByArea(report).flatMap(({ items }) =>
    items.filter((rule) => which === 'all' || (which === 'unpassed' ? rule.status !== 'passed' : shownRule(rule))),
  );
  const ruleRows = rules.map((rule) => [
    ruleLink(rule.id),
    `${icon(rule.status)} ${md(rule.status)}`,
    md(rule.level),
    md(rule.origin),
    md(rule.title),
    rule.checks.map(code).join(', ') || '—',
    md(cut(firstFailure(report, rule), ONE_LINE_CHARS)) || '—',
  ]);
  const hidden = total - rules.length;
  const title =
    hidden === 0
      ? `Rules (${total})`
      : which === 'unpassed'
        ? `Rules (${total}; the ${hidden} passed are not listed)`
        : `Rules (${total}; only the ${rules.length} failed, warned or errored are listed)`;
  return `<details><summary>${title}</summary>\n\n${table(['Rule', 'Status', 'Level', 'Origin', 'Title', 'Checks', 'First failure'], ruleRows)}\n\n</details>`;
}

/** How many items have each key, in the order first seen. */
function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/** The skipped checks, each with its reason, by reason, or counted. */
function skippedChecks(skipped: CheckResult[], how: Layout['skipped']): string {
  if (how === 'counted')
    return `_⏭️ ${plural(skipped.length, 'check')} skipped: the reasons are in ${WHOLE_REPORT} (size limit)._`;
  const rows =
    how === 'listed'
      ? skipped.map((check) => [`${code(check.suite)} ${md(short(checkLabel(check)))}`, md(short(check.message))])
      : [...countBy(skipped, (check) => short(check.message))].map(([reason, n]) => [md(reason), String(n)]);
  const head = how === 'listed' ? ['Check', 'Reason'] : ['Reason', 'Checks'];
  return `<details><summary>⏭️ Skipped checks (${skipped.length})</summary>\n\n${table(head, rows)}\n\n</details>`;
}

function layout(report: Report, options: Layout): string {
  const out: string[] = [];
  const result = verdict(report);
  out.push(`## ${{ fail: '❌', error: '🛑', pass: '✅' }[result]} idp-conformance: ${verdictHead(report)}`);
  out.push(md(verdictLine(report)));
  out.push(
    `Target ${code(short(report.target))} · release ${code(short(report.release))} · ${md(short(report.offering))}${seeded(report) ? ` · seed ${code(String(report.seed))}` : ''} · ${md(seconds(report.durationMs))} · ${md(report.tool)} ${md(report.version)}`,
  );
  const { summary } = report;
  out.push(
    table(
      ['Passed', 'Failed', 'Warned', 'Errored', 'Skipped'],
      [[summary.passed, summary.failed, summary.warned, summary.errored ?? 0, summary.skipped].map(String)],
    ),
  );

  if (report.diff) out.push(diffMarkdown(report.diff));

  // The per-rule verdicts lead: which sentence of the source a target breaks.
  out.push(rulesTable(report, options.rules));
  const failed = report.checks.filter((check) => check.status === 'failed');
  const warned = report.checks.filter((check) => check.status === 'warned');
  const errored = report.checks.filter((check) => check.status === 'errored');
  const skipped = report.checks.filter((check) => check.status === 'skipped');
  let budget = options.detailed;
  const render = (check: CheckResult) => (budget-- > 0 ? problem(check, options.maxBody) : oneLiner(check));
  if (failed.length > 0) out.push(`### ❌ Failures (${failed.length})`, ...failed.map(render));
  if (errored.length > 0)
    out.push(
      `### 🛑 Errored: the harness could not do its part, no verdict (${errored.length})`,
      ...errored.map(render),
    );
  if (warned.length > 0) out.push(`### ⚠️ Warnings: should-level rules (${warned.length})`, ...warned.map(render));
  // Known deviations (--expect): excused failures with their reasons, and listed rules that now pass.
  const expected = report.checks.filter((check) => check.status === 'expected');
  const stale = report.rules.filter((rule) => rule.status === 'stale');
  if (expected.length > 0)
    out.push(
      `### 🟡 Expected: known deviations listed in --expect (${expected.length})`,
      ...expected.map(
        (check) => `- ${code(check.id)}: ${md(short(check.message))} (reason: ${md(short(check.expectedReason))})`,
      ),
    );
  if (stale.length > 0)
    out.push(
      `### ♻️ Stale expectations: listed in --expect but passed; remove them (${stale.length})`,
      ...stale.map((rule) => `- ${ruleLink(rule.id)} (reason given: ${md(rule.expectedReason ?? '')})`),
    );
  const undetailed = failed.length + errored.length + warned.length - Math.max(0, options.detailed);
  if (undetailed > 0) out.push(`_Details of ${undetailed} more checks are in ${WHOLE_REPORT} (size limit)._`);

  if (report.client)
    out.push(
      `### ${md(CLIENT_HEADING)}`,
      ...trafficLines(report.client, md),
      ...clientLines(report.client, md).map((line) => `- ${line}`),
    );

  const areas = areaCountsTable(report, md);
  out.push('### Per area', table(areas.head, areas.rows));

  if (skipped.length > 0) out.push(skippedChecks(skipped, options.skipped));

  out.push(`${md(verdictLine(report))}`);
  return `${out.join('\n\n')}\n`;
}

/** Rows of the diff table at most: the JSON and HTML reports hold them all. */
const DIFF_ROWS = 60;

/** `diff`: one table, operation first, at most DIFF_ROWS rows. */
function diffMarkdown(section: DiffSection): string {
  const rows = section.differences.slice(0, DIFF_ROWS).map((d) => {
    const judged = judgementOf(d);
    return [
      code(d.operation),
      // The target's text as escaped prose, never raw HTML (a code span would keep a `<script>` whole).
      `${md(d.kind)} ${md(d.subject)}${md(atStatus(d))}`,
      md(d.target),
      md(d.reference),
      judged.kind === 'linked' ? d.rules.map(ruleLink).join(', ') : md(judged.text),
      md(checksCell(d)),
    ];
  });
  const left = section.differences.length - rows.length;
  return [
    `### Diff`,
    ...diffHead(section).map(md),
    rows.length
      ? table(['Operation', 'Difference', 'Target', 'Reference', 'Judged', 'Checks'], rows)
      : noDifference(section),
    ...notComparedLines(section).map((l) => `- ${md(l)}`),
    `${md(diffTally(section))}${left > 0 ? md(` (${left} more in the JSON and HTML reports)`) : ''}`,
  ].join('\n\n');
}

export function renderMarkdown(input: Report, options: MarkdownOptions = {}): string {
  const report = inertReport(redact(boundReport(input)));
  const maxChars = options.maxChars ?? DEFAULT_MARKDOWN_BUDGET;
  const problems = report.checks.filter((check) => ['failed', 'warned', 'errored'].includes(check.status)).length;
  const full: Layout = { rules: 'all', maxBody: MAX_BODY_CHARS, detailed: problems, skipped: 'listed' };
  const brief: Layout = { rules: 'problems', maxBody: SHORT_BODY_CHARS, detailed: problems, skipped: 'counted' };
  const steps: Layout[] = [
    full,
    { ...full, rules: 'unpassed' },
    { ...full, rules: 'unpassed', maxBody: SHORT_BODY_CHARS },
    { ...brief, skipped: 'listed' },
    { ...brief, skipped: 'grouped' },
    brief,
  ];
  for (const step of steps) {
    const text = layout(report, step);
    if (text.length <= maxChars) return text;
  }
  // The most detailed problems that fit (the size grows with the count: binary search).
  const at = (detailed: number) => layout(report, { ...brief, detailed });
  let [low, high] = [0, problems - 1];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (at(mid).length <= maxChars) low = mid;
    else high = mid - 1;
  }
  const most = at(low);
  if (most.length <= maxChars) return most;
  const bare = layout(report, { ...brief, rules: 'none', detailed: 0 });
  return bare.length <= maxChars ? bare : cutAtLine(bare, maxChars, md(verdictLine(report)));
}

/**
 * The last resort: `text` (no <details>, no fenced block: nothing left open) cut after its last
 * whole line that fits, a note saying so, and the verdict last. Failures come first in it, so they
 * are the last thing cut. A budget smaller than the note and the verdict is cut wherever it falls.
 */
function cutAtLine(text: string, maxChars: number, verdictText: string): string {
  const tail = `\n_The report is cut here to fit ${maxChars} characters: the whole report is in ${WHOLE_REPORT}._\n\n${verdictText}\n`;
  const room = maxChars - tail.length;
  const end = text.lastIndexOf('\n', room);
  return `${end > 0 ? text.slice(0, end + 1) : ''}${tail}`.slice(0, maxChars);
}
