/**
 * One self-contained HTML file to explore a report: inline CSS and one inline script, no external
 * asset (a Content-Security-Policy forbids any, and allows the script only by its hash). Filters by
 * status, level, origin and area and column sorting work from the file, without a server; with
 * scripts off every row still shows. Every value from the report passes through escape-html. Each
 * failure appears once, open, with its HTTP exchanges folded; printing unfolds them. The per-rule
 * table (rule, verdict, level, origin, checks, a link to the first failure, or why an untested rule
 * was not judged) leads, before the failures.
 */
import { CATALOGUE_FILES, ruleHref } from './rule-links.js';
import { CLIENT_HEADING, clientLines, trafficLines } from './client.js';
import { createHash } from 'node:crypto';
import escapeHtml from 'escape-html';
import { redact } from '../suites/report/redact.js';
import { boundReport } from '../suites/report/bounded.js';
import { inertReport } from '../suites/report/inert.js';
import {
  CHECK_STATUSES,
  RULE_STATUS_ORDER,
  checkLabel,
  checksByArea,
  countStatuses,
  detailSections,
  firstFailure,
  firstFailureOf,
  firstLine,
  formatExchange,
  groupBy,
  ruleArea,
  seconds,
  seeded,
  sortRules,
  verdict,
  verdictHead,
  verdictLine,
} from './text.js';
import { HTML_SCRIPT } from './html-script.js';
import { atStatus, diffHead, diffTally, judgementOf, noDifference, notComparedLines, seenIn } from './diff.js';
import type { CheckResult, Report, RuleResult } from '../suites/report/model.js';

const h = (value: unknown): string => escapeHtml(String(value));

const STYLE = `
:root { --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --skip: #6e7781; --err: #bc4c00; --untested: #8250df; --line: #d0d7de; --soft: #f6f8fa; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 76rem; padding: 1.5rem; color: #1f2328; }
h1 { font-size: 1.5rem; } h2 { margin-top: 2rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; }
th, td { border: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: var(--soft); } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
th button { all: unset; cursor: pointer; font-weight: 600; } th button::after { content: " \\2195"; color: var(--skip); }
th button[aria-sort=ascending]::after { content: " \\2191"; } th button[aria-sort=descending]::after { content: " \\2193"; }
pre { background: var(--soft); border: 1px solid var(--line); padding: .5rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; margin: .25rem 0 .75rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 1rem; color: #fff; font-size: .8rem; font-weight: 600; text-transform: uppercase; }
/* Status colours only on badges, bar segments and legend swatches (a failed details block is not painted red). */
:is(.badge, .bar span, .legend i):is(.passed, .pass) { background: var(--pass); } :is(.badge, .bar span, .legend i):is(.failed, .fail) { background: var(--fail); }
:is(.badge, .bar span, .legend i):is(.warned, .expected) { background: var(--warn); } :is(.badge, .bar span, .legend i):is(.skipped, .stale) { background: var(--skip); }
:is(.badge, .bar span, .legend i):is(.errored, .error) { background: var(--err); } :is(.badge, .bar span, .legend i):is(.untested, .other) { background: var(--untested); }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; } dl.meta dt { font-weight: 600; } dl.meta dd { margin: 0; }
.cards { display: flex; gap: 1rem; flex-wrap: wrap; } .card { border: 1px solid var(--line); border-radius: .5rem; padding: .5rem 1rem; min-width: 7rem; }
.card b { display: block; font-size: 1.6rem; }
details.check { border: 1px solid var(--line); border-left: 4px solid var(--line); border-radius: .5rem; padding: .5rem 1rem; margin: .75rem 0; }
details.check.failed { border-left-color: var(--fail); } details.check.warned { border-left-color: var(--warn); } details.check.errored { border-left-color: var(--err); }
details > summary { cursor: pointer; font-weight: 600; }
details.exchanges { margin: .25rem 0; } details.exchanges > summary { font-weight: normal; color: #57606a; }
h4 { margin: .5rem 0 0; font-size: .85rem; text-transform: uppercase; color: #57606a; }
nav a { margin-right: 1rem; }
form#filters { margin-top: 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: baseline; background: var(--soft); border: 1px solid var(--line); border-radius: .5rem; padding: .5rem 1rem; position: sticky; top: 0; z-index: 1; }
form#filters fieldset { border: 0; margin: 0; padding: 0; } form#filters legend { font-weight: 600; float: left; margin-right: .5rem; }
form#filters label { margin-right: .6rem; white-space: nowrap; } .shown { color: #57606a; }
.areas { display: grid; grid-template-columns: max-content 1fr max-content; gap: .35rem .75rem; align-items: center; }
.bar { display: flex; height: 1rem; border-radius: .25rem; overflow: hidden; background: var(--soft); border: 1px solid var(--line); }
.bar span { display: block; min-width: 2px; } .tally { color: #57606a; font-size: .85rem; font-variant-numeric: tabular-nums; }
.legend span { margin-right: 1rem; } .legend i { display: inline-block; width: .8rem; height: .8rem; border-radius: .2rem; vertical-align: middle; margin-right: .25rem; }
/* Wide tables scroll inside their box, never past the page edge; ids stay on one line. */
.wide { overflow-x: auto; } #rule-matrix td { overflow-wrap: anywhere; } #rule-matrix td:first-child, #rule-matrix td:first-child code { white-space: nowrap; overflow-wrap: normal; }
[hidden] { display: none !important; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  nav, form#filters, th button::after { display: none; }
  .badge, .bar span, .legend i { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
  details.check, tr, .areas > * { break-inside: avoid; }
  details::details-content { content-visibility: visible; display: block; }
  pre { white-space: pre-wrap; }
  a { color: inherit; text-decoration: none; }
}
`;

/** Only known statuses become class names; anything else renders with a neutral colour. */
function badge(status: string): string {
  const known = [...CHECK_STATUSES, 'stale', 'untested', 'pass', 'fail', 'error'];
  const cls = known.includes(status) ? status : 'other';
  return `<span class="badge ${cls}">${h(status)}</span>`;
}

/** `origin` (source, documented, or an RFC section); reports written before it lack it. */
const originOf = (rule: RuleResult): string | undefined => (rule as { origin?: string }).origin || undefined;
/**
 * The origin filter's value: the standard without its section (`RFC 6749 §4.1.2` → `RFC 6749`), so the
 * filter offers a handful of families (source, documented, RFC 6749, RFC 7636, OIDC Core, …) rather
 * than one box per section.
 */
const originGroup = (origin: string): string => origin.split('§')[0].trim();
const originRankOf = (group: string) => (group === 'source' ? '0' : group === 'documented' ? '1' : `2${group}`);

/** An attribute value of space-separated facet values (spaces inside a value become dashes). */
const facet = (values: Iterable<string>) => h([...new Set([...values].map((v) => v.replace(/\s+/g, '-')))].join(' '));

/** Anchors are by position, so duplicate or odd check ids still get unique, valid ids. */
interface Anchors {
  row(check: CheckResult): string;
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

/** What a check and a rule are filtered by: a check by its rules' levels and origins, a rule by the areas of the checks that name it. */
interface Facets {
  checkLevels(check: CheckResult): string[];
  checkOrigins(check: CheckResult): string[];
  ruleAreas(rule: RuleResult): string[];
}

function facets(report: Report): Facets {
  const rules = new Map(report.rules.map((r) => [r.id, r]));
  const areas = new Map<string, Set<string>>();
  for (const check of report.checks)
    for (const id of [...check.rules, ...(check.broken ?? [])])
      areas.set(id, (areas.get(id) ?? new Set()).add(check.suite));
  const of = (check: CheckResult, pick: (r: RuleResult) => string | undefined) =>
    check.rules.map((id) => rules.get(id)).flatMap((r) => (r && pick(r) ? [pick(r)!] : []));
  return {
    checkLevels: (check) => of(check, (r) => r.level),
    checkOrigins: (check) => of(check, originOf).map(originGroup),
    ruleAreas: (rule) => [...(areas.get(rule.id) ?? [])],
  };
}

function header(report: Report): string {
  const meta: [string, string][] = [
    ['Target', report.target],
    ['Release', report.release],
    ['Offering', report.offering],
    ...(seeded(report) ? [['Seed', String(report.seed)] as [string, string]] : []),
    ['Started', report.startedAt],
    ['Duration', seconds(report.durationMs)],
    ['Tool', `${report.tool} ${report.version}`],
  ];
  return `<header>
<h1>Conformance report ${badge(verdict(report))}</h1>
<p id="verdict">${h(verdictLine(report))}</p>
<dl class="meta">${meta.map(([k, v]) => `<dt>${h(k)}</dt><dd>${h(v)}</dd>`).join('')}</dl>
</header>`;
}

function cards(report: Report): string {
  const card = (label: string, value: number, cls: string, key: string) =>
    `<div class="card"><span class="badge ${cls}">${h(label)}</span><b data-count="${h(key)}">${h(value)}</b></div>`;
  const checks = CHECK_STATUSES.map((s) => card(s, report.summary[s] ?? 0, s, `checks-${s}`)).join('');
  const ruleCounts = new Map<string, number>();
  for (const rule of report.rules) ruleCounts.set(rule.status, (ruleCounts.get(rule.status) ?? 0) + 1);
  const rules = [...ruleCounts]
    .sort(([a], [b]) => statusRank(a) - statusRank(b))
    .map(([s, n]) =>
      card(
        `rules ${s}`,
        n,
        CHECK_STATUSES.includes(s as never) || s === 'untested' || s === 'stale' ? s : 'other',
        `rules-${s}`,
      ),
    )
    .join('');
  return `<section id="summary"><h2>Summary</h2>
<h3>Checks (<span data-count="checks">${report.checks.length}</span>)</h3><div class="cards">${checks}</div>
<h3>Rules (<span data-count="rules">${report.rules.length}</span>)</h3><div class="cards">${rules}</div>
</section>`;
}

const statusRank = (status: string) => {
  const i = (RULE_STATUS_ORDER as readonly string[]).indexOf(status);
  return i < 0 ? RULE_STATUS_ORDER.length : i;
};

function filters(report: Report, f: Facets): string {
  const statuses = new Set<string>([...report.checks.map((c) => c.status), ...report.rules.map((r) => r.status)]);
  const groups: [string, string, string[]][] = [
    ['status', 'Status', [...statuses].sort((a, b) => statusRank(a) - statusRank(b))],
    ['level', 'Level', (['must', 'should', 'info'] as string[]).filter((l) => report.rules.some((r) => r.level === l))],
    [
      'origin',
      'Origin',
      [...new Set(report.rules.flatMap((r) => (originOf(r) ? [originGroup(originOf(r)!)] : [])))].sort((a, b) =>
        originRankOf(a).localeCompare(originRankOf(b), 'en', { numeric: true }),
      ),
    ],
    [
      'area',
      'Area',
      [...new Set([...report.checks.map((c) => c.suite), ...report.rules.flatMap((r) => f.ruleAreas(r))])],
    ],
  ];
  // The first screen shows what needs attention: info rules (context no check judges) are one click away.
  const hideInfo = report.rules.some((r) => r.level !== 'info');
  const offByDefault = (name: string, value: string) => hideInfo && name === 'level' && value === 'info';
  const fieldsets = groups
    .filter(([, , values]) => values.length > 0)
    .map(
      ([name, legend, values]) =>
        `<fieldset><legend>${h(legend)}</legend>${values
          .map(
            (v) =>
              `<label><input type="checkbox" name="${h(name)}" value="${facet([v])}"${offByDefault(name, v) ? '' : ' checked'}> ${h(v)}</label>`,
          )
          .join('')}</fieldset>`,
    );
  return `<form id="filters" hidden>${fieldsets.join('\n')}
<button type="reset">Default view</button> <button type="button" id="show-all">Show all</button>
<span class="shown">showing <b data-shown="rule">${report.rules.length}</b> of ${report.rules.length} rules, <b data-shown="check">${report.checks.length}</b> of ${report.checks.length} checks</span>
</form>`;
}

function detailsBlock(check: CheckResult, id: string, f: Facets): string {
  // Message first and once; the exchanges folded below it.
  const sections = detailSections({ ...check, exchange: undefined })
    .map(({ heading, body }) => `<h4>${h(heading)}</h4><pre><code>${h(body)}</code></pre>`)
    .join('\n');
  const exchanges = check.exchange ?? [];
  const folded = exchanges.length
    ? `<details class="exchanges"><summary>HTTP exchange${exchanges.length > 1 ? `s (${exchanges.length})` : ''}</summary>
${exchanges.map((e, i) => `${exchanges.length > 1 ? `<h4>Exchange ${i + 1} of ${exchanges.length}</h4>` : ''}<pre><code>${h(formatExchange(e))}</code></pre>`).join('\n')}
</details>`
    : '';
  return `<details open class="check ${h(check.status)}" id="detail-${h(id)}" data-f="problem" data-status="${h(check.status)}" data-level="${facet(f.checkLevels(check))}" data-origin="${facet(f.checkOrigins(check))}" data-area="${facet([check.suite])}"><summary>${badge(check.status)} <code>${h(check.suite)}</code> ${h(checkLabel(check))}</summary>
${sections}
${folded}
</details>`;
}

function problemSection(
  report: Report,
  status: 'failed' | 'warned' | 'errored',
  title: string,
  anchor: Anchors,
  f: Facets,
): string {
  const checks = report.checks.filter((check) => check.status === status);
  if (checks.length === 0) return '';
  return `<section id="${status}"><h2>${h(title)} (${checks.length})</h2>
${checks.map((check) => detailsBlock(check, anchor.row(check), f)).join('\n')}
</section>`;
}

/** A bar per area: the share of its checks in each status, worst first, with the counts beside it. */
function areaBars(report: Report, anchor: Anchors): string {
  const order = CHECK_STATUSES;
  const rows = checksByArea(report).map(({ area, items }) => {
    const counts = countStatuses(items);
    const segments = order
      .filter((s) => counts[s] > 0)
      .map((s) => `<span class="${s}" style="flex: ${counts[s]}" title="${counts[s]} ${s}"></span>`)
      .join('');
    const tally = order
      .filter((s) => counts[s] > 0)
      .map((s) => `${counts[s]} ${s}`)
      .join(' · ');
    return `<a href="#${h(anchor.row(items[0]))}">${h(area)}</a><div class="bar" data-area-bar="${h(area)}" role="img" aria-label="${h(tally)}">${segments}</div><span class="tally">${h(tally)}</span>`;
  });
  const legend = order.map((s) => `<span><i class="${s}"></i>${s}</span>`).join('');
  return `<section id="areas"><h2>Checks by area</h2>
<p class="legend">${legend}</p>
<div class="areas">${rows.join('\n')}</div></section>`;
}

function sortButton(label: string, cls = ''): string {
  return `<th${cls ? ` class="${cls}"` : ''}><button type="button">${h(label)}</button></th>`;
}

/**
 * A link to the details of the first check that broke the rule: each failure's text stays in one
 * place. An untested rule says why instead, as the console and Markdown do (firstFailure).
 */
function firstFailureLink(report: Report, rule: RuleResult, anchor: Anchors): string {
  const hit = firstFailureOf(report, rule);
  if (hit) return `<a href="#detail-${h(anchor.row(hit.check))}"><code>${h(hit.check.id)}</code></a>`;
  return h(firstFailure(report, rule)) || '—';
}

function rulesSection(report: Report, anchor: Anchors, f: Facets): string {
  const withOrigin = report.rules.some((r) => originOf(r) !== undefined);
  // Worst first, info rules last: what needs attention opens the table.
  const ordered = sortRules(report.rules, { infoLast: true });
  const rows = ordered.map((rule) => {
    const checks = rule.checks
      .map((checkId) => {
        const target = anchor.byId(checkId);
        return target ? `<a href="#${h(target)}"><code>${h(checkId)}</code></a>` : `<code>${h(checkId)}</code>`;
      })
      .join(', ');
    const areas = f.ruleAreas(rule);
    return `<tr data-f="rule" data-status="${h(rule.status)}" data-level="${h(rule.level)}" data-origin="${facet(originOf(rule) ? [originGroup(originOf(rule)!)] : [])}" data-area="${facet(areas)}"><td><a href="${h(ruleHref(rule.id, CATALOGUE_FILES.html))}"><code>${h(rule.id)}</code></a></td><td data-v="${statusRank(rule.status)}">${badge(rule.status)}</td><td data-v="${['must', 'should', 'info'].indexOf(rule.level)}">${h(rule.level)}</td>${withOrigin ? `<td>${h(originOf(rule) ?? '')}</td>` : ''}<td>${h(ruleArea(rule))}</td><td>${h(rule.title)}</td><td>${h(rule.source)}</td><td>${checks || '—'}</td><td>${firstFailureLink(report, rule, anchor)}</td></tr>`;
  });
  return `<section id="rules"><h2>Rules (<span data-shown="rule">${report.rules.length}</span> shown of ${report.rules.length}), worst first</h2>
<div class="wide"><table class="sortable" id="rule-matrix">
<thead><tr>${sortButton('Rule')}${sortButton('Status')}${sortButton('Level')}${withOrigin ? sortButton('Origin') : ''}${sortButton('Area')}${sortButton('Title')}${sortButton('Source')}${sortButton('Checks')}<th>First failure</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
</section>`;
}

function checksSection(report: Report, anchor: Anchors, f: Facets): string {
  const rows = report.checks.map((check) => {
    const id = anchor.row(check);
    const problem = check.status === 'failed' || check.status === 'warned' || check.status === 'errored';
    // A problem's message lives in its details block; only a skip's reason, a pass's note (t.note) and a
    // known deviation show here.
    const note = problem
      ? `<a href="#detail-${h(id)}">details</a>`
      : check.status === 'skipped' || check.status === 'passed'
        ? h(firstLine(check.message))
        : check.status === 'expected'
          ? h(`${firstLine(check.message)} (known deviation: ${check.expectedReason ?? ''})`)
          : '';
    return `<tr id="${h(id)}" data-f="check" data-status="${h(check.status)}" data-level="${facet(f.checkLevels(check))}" data-origin="${facet(f.checkOrigins(check))}" data-area="${facet([check.suite])}"><td data-v="${CHECK_STATUSES.indexOf(check.status)}">${badge(check.status)}</td><td>${h(check.suite)}</td><td>${h(checkLabel(check))}</td><td class="num" data-v="${check.durationMs}">${h(seconds(check.durationMs))}</td><td>${note}</td></tr>`;
  });
  return `<section id="checks"><h2>Checks (<span data-shown="check">${report.checks.length}</span> shown of ${report.checks.length})</h2>
<table class="sortable" id="check-list">
<thead><tr>${sortButton('Status')}${sortButton('Area')}${sortButton('Check')}${sortButton('Time', 'num')}<th>Note</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>
</section>`;
}

const SCRIPT_HASH = `sha256-${createHash('sha256').update(HTML_SCRIPT).digest('base64')}`;

/**
 * `diff`: one table per operation, a row per difference (kind and subject, the two sides, how it
 * is judged, the checks that saw it). Rules link to the catalogue; every cell is escaped.
 */
function diffSection(report: Report): string {
  const section = report.diff;
  if (!section) return '';
  const tables = groupBy(section.differences, (d) => d.operation).map(({ area, items }) => {
    const rows = items.map((d) => {
      const judged = judgementOf(d);
      const cell =
        judged.kind === 'linked'
          ? d.rules
              .map((id) => `<a href="${h(ruleHref(id, CATALOGUE_FILES.html))}"><code>${h(id)}</code></a>`)
              .join(', ')
          : h(judged.text);
      return `<tr data-judged="${judged.kind}"><td>${h(d.kind)} <code>${h(d.subject)}</code>${h(atStatus(d))}</td><td><code>${h(d.target)}</code></td><td><code>${h(d.reference)}</code></td><td>${cell}</td><td>${h(seenIn(d))}</td></tr>`;
    });
    return `<h3><code>${h(area)}</code></h3>
<div class="wide"><table><thead><tr><th>Difference</th><th>Target</th><th>Reference</th><th>Rules</th><th>Checks</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>`;
  });
  return `<section id="diff"><h2>Diff</h2>
${diffHead(section)
  .map((l) => `<p>${h(l)}</p>`)
  .join('\n')}
${tables.join('\n') || `<p>${h(noDifference(section))}</p>`}
${notComparedLines(section)
  .map((l) => `<p class="not-compared">${h(l)}</p>`)
  .join('\n')}
<p>${h(diffTally(section))}</p></section>`;
}

/** The proxy's report: the client's habits, apart from the rules. */
function clientSection(report: Report): string {
  if (!report.client) return '';
  const items = clientLines(report.client, h).map((line) => `<li>${line}</li>`);
  const traffic = trafficLines(report.client, h).map((line) => `<p>${line}</p>`);
  return `<section id="client"><h2>${h(CLIENT_HEADING)}</h2>${traffic.join('')}<ul>${items.join('')}</ul></section>`;
}

export function renderHtml(input: Report): string {
  const report = inertReport(redact(boundReport(input)));
  const anchor = anchors(report);
  const f = facets(report);
  const title = `idp-conformance ${verdictHead(report)}: ${report.target}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src '${SCRIPT_HASH}'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${header(report)}
<nav><a href="#summary">Summary</a>${report.diff ? '<a href="#diff">Diff</a>' : ''}<a href="#rules">Rules</a><a href="#failed">Failures</a><a href="#warned">Warnings</a><a href="#areas">Areas</a><a href="#checks">Checks</a></nav>
${cards(report)}
${diffSection(report)}
${filters(report, f)}
${rulesSection(report, anchor, f)}
${areaBars(report, anchor)}
${problemSection(report, 'failed', 'Failures', anchor, f)}
${problemSection(report, 'errored', 'Errored (the harness could not do its part; not a verdict on the target)', anchor, f)}
${problemSection(report, 'warned', 'Warnings (should-level rules)', anchor, f)}
${checksSection(report, anchor, f)}
${clientSection(report)}
<script>${HTML_SCRIPT}</script>
</body>
</html>
`;
}
