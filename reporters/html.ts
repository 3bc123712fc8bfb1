/**
 * One self-contained HTML file: inline CSS, no script, no external asset (a Content-Security-Policy
 * forbids any), readable in any browser with JavaScript off. Every value from the report passes
 * through escape-html; failures are expanded with <details open>.
 */
import escapeHtml from 'escape-html';
import { redact } from '../suites/report/redact.js';
import {
  checkLabel,
  checksByArea,
  countStatuses,
  detailSections,
  firstLine,
  rulesByArea,
  seconds,
  verdict,
  verdictHead,
  verdictLine,
  type Counts,
} from './text.js';
import type { CheckResult, Report, RuleResult } from '../suites/report/model.js';

const h = (value: unknown): string => escapeHtml(String(value));

const STYLE = `
:root { --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --skip: #6e7781; --untested: #8250df; --line: #d0d7de; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 72rem; padding: 1.5rem; color: #1f2328; }
h1 { font-size: 1.5rem; } h2 { margin-top: 2rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; }
th, td { border: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f6f8fa; border: 1px solid var(--line); padding: .5rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 1rem; color: #fff; font-size: .8rem; font-weight: 600; text-transform: uppercase; }
.passed, .pass { background: var(--pass); } .failed, .fail { background: var(--fail); } .warned { background: var(--warn); }
.skipped { background: var(--skip); } .expected { background: var(--warn); } .stale { background: var(--skip); } .errored { background: var(--fail); } .untested { background: var(--untested); }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; } dl.meta dt { font-weight: 600; } dl.meta dd { margin: 0; }
.cards { display: flex; gap: 1rem; flex-wrap: wrap; } .card { border: 1px solid var(--line); border-radius: .5rem; padding: .5rem 1rem; min-width: 7rem; }
.card b { display: block; font-size: 1.6rem; }
details { border: 1px solid var(--line); border-radius: .5rem; padding: .5rem 1rem; margin: .75rem 0; }
details > summary { cursor: pointer; font-weight: 600; }
nav a { margin-right: 1rem; }
`;

/** Only known statuses become class names; anything else renders as `untested`. */
function badge(status: string): string {
  const known = [
    'passed',
    'failed',
    'warned',
    'skipped',
    'errored',
    'expected',
    'stale',
    'untested',
    'pass',
    'fail',
    'error',
  ];
  const cls = known.includes(status) ? status : 'untested';
  return `<span class="badge ${cls}">${h(status)}</span>`;
}

/** Anchors are by position, so duplicate or odd check ids still get unique, valid ids. */
interface Anchors {
  /** Row of a check in the checks tables. */
  row(check: CheckResult): string;
  /** Row of the first check with this id, for links from the rules table. */
  byId(checkId: string): string | undefined;
}

function anchors(report: Report): Anchors {
  const position = new Map<CheckResult, number>();
  const firstById = new Map<string, number>();
  report.checks.forEach((check, i) => {
    position.set(check, i);
    if (!firstById.has(check.id)) firstById.set(check.id, i);
  });
  return {
    row: (check) => `check-${position.get(check)}`,
    byId: (checkId) => {
      const i = firstById.get(checkId);
      return i === undefined ? undefined : `check-${i}`;
    },
  };
}

function header(report: Report): string {
  const result = verdict(report);
  const meta: [string, string][] = [
    ['Target', report.target],
    ['Release', report.release],
    ['Offering', report.offering],
    ['Seed', String(report.seed)],
    ['Started', report.startedAt],
    ['Duration', seconds(report.durationMs)],
    ['Tool', `${report.tool} ${report.version}`],
  ];
  return `<header>
<h1>Conformance report ${badge(result)}</h1>
<p>${h(verdictLine(report))}</p>
<dl class="meta">${meta.map(([k, v]) => `<dt>${h(k)}</dt><dd>${h(v)}</dd>`).join('')}</dl>
</header>`;
}

function cards(report: Report): string {
  const { summary } = report;
  const card = (label: string, value: number, cls: string) =>
    `<div class="card"><span class="badge ${cls}">${h(label)}</span><b>${h(value)}</b></div>`;
  const untested = report.rules.filter((rule) => rule.status === 'untested').length;
  return `<section id="summary"><h2>Summary</h2><div class="cards">
${card('passed', summary.passed, 'passed')}${card('failed', summary.failed, 'failed')}${card('warned', summary.warned, 'warned')}${card('errored', summary.errored ?? 0, 'errored')}${card('skipped', summary.skipped, 'skipped')}${card('rules untested', untested, 'untested')}
</div></section>`;
}

function detailsBlock(check: CheckResult, id: string): string {
  const sections = detailSections(check)
    .map(({ heading, body }) => `<h4>${h(heading)}</h4><pre><code>${h(body)}</code></pre>`)
    .join('\n');
  return `<details open id="detail-${h(id)}"><summary>${badge(check.status)} <code>${h(check.suite)}</code> ${h(checkLabel(check))}</summary>
<p>${h(firstLine(check.message))}</p>
${sections}
</details>`;
}

function problemSection(
  report: Report,
  status: 'failed' | 'warned' | 'errored',
  title: string,
  anchor: Anchors,
): string {
  const checks = report.checks.filter((check) => check.status === status);
  if (checks.length === 0) return '';
  return `<section id="${status}"><h2>${h(title)} (${checks.length})</h2>
${checks.map((check) => detailsBlock(check, anchor.row(check))).join('\n')}
</section>`;
}

function countCells(counts: Counts, total: number): string {
  return `<td class="num">${counts.passed}</td><td class="num">${counts.failed}</td><td class="num">${counts.warned}</td><td class="num">${counts.skipped}</td><td class="num">${total}</td>`;
}

function areaTable(report: Report): string {
  const rows = checksByArea(report).map(
    ({ area, items }) =>
      `<tr><th><a href="#area-${h(area)}">${h(area)}</a></th>${countCells(countStatuses(items), items.length)}</tr>`,
  );
  const all = countStatuses(report.checks);
  return `<section id="areas"><h2>Checks by area</h2><table>
<thead><tr><th>Area</th><th class="num">Passed</th><th class="num">Failed</th><th class="num">Warned</th><th class="num">Skipped</th><th class="num">Total</th></tr></thead>
<tbody>${rows.join('\n')}</tbody>
<tfoot><tr><th>All</th>${countCells(all, report.checks.length)}</tr></tfoot>
</table></section>`;
}

function ruleRow(rule: RuleResult, anchor: Anchors): string {
  const checks = rule.checks
    .map((checkId) => {
      const target = anchor.byId(checkId);
      return target ? `<a href="#${h(target)}"><code>${h(checkId)}</code></a>` : `<code>${h(checkId)}</code>`;
    })
    .join(', ');
  return `<tr><td><code>${h(rule.id)}</code></td><td>${badge(rule.status)}</td><td>${h(rule.level)}</td><td>${h(rule.title)}</td><td>${h(rule.origin)}</td><td>${h(rule.source)}</td><td>${checks || '—'}</td></tr>`;
}

function rulesSection(report: Report, anchor: Anchors): string {
  const groups = rulesByArea(report).map(
    ({ area, items }) => `<h3 id="rules-${h(area)}">${h(area)} (${items.length})</h3><table>
<thead><tr><th>Rule</th><th>Status</th><th>Level</th><th>Origin</th><th>Title</th><th>Source</th><th>Checks</th></tr></thead>
<tbody>${items.map((rule) => ruleRow(rule, anchor)).join('\n')}</tbody></table>`,
  );
  return `<section id="rules"><h2>Rules (${report.rules.length}), worst first within each area</h2>
${groups.join('\n')}
</section>`;
}

function checksSection(report: Report, anchor: Anchors): string {
  const groups = checksByArea(report).map(({ area, items }) => {
    const rows = items.map((check) => {
      const id = anchor.row(check);
      const reason = check.status === 'expected' ? ` (known deviation: ${check.expectedReason ?? ''})` : '';
      const note = check.status === 'passed' ? '' : h(firstLine(check.message) + reason);
      const label =
        check.status === 'failed' || check.status === 'warned' || check.status === 'errored'
          ? `<a href="#detail-${h(id)}">${h(checkLabel(check))}</a>`
          : h(checkLabel(check));
      return `<tr id="${h(id)}"><td>${badge(check.status)}</td><td>${label}</td><td class="num">${h(seconds(check.durationMs))}</td><td>${note}</td></tr>`;
    });
    return `<h3 id="area-${h(area)}">${h(area)}</h3><table>
<thead><tr><th>Status</th><th>Check</th><th class="num">Time</th><th>Message</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
  });
  return `<section id="checks"><h2>Checks (${report.checks.length})</h2>
${groups.join('\n')}
</section>`;
}

export function renderHtml(input: Report): string {
  const report = redact(input);
  const anchor = anchors(report);
  const title = `idp-conformance ${verdictHead(report)}: ${report.target}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${header(report)}
<nav><a href="#summary">Summary</a><a href="#failed">Failures</a><a href="#warned">Warnings</a><a href="#areas">Areas</a><a href="#rules">Rules</a><a href="#checks">Checks</a></nav>
${cards(report)}
${problemSection(report, 'failed', 'Failures', anchor)}
${problemSection(report, 'errored', 'Errored (the harness could not do its part; not a verdict on the target)', anchor)}
${problemSection(report, 'warned', 'Warnings (should-level rules)', anchor)}
${areaTable(report)}
${rulesSection(report, anchor)}
${checksSection(report, anchor)}
</body>
</html>
`;
}
