/**
 * JUnit XML for CI: one testsuite per suite area, one testcase per check. A `should` warning is a
 * passed testcase with a note in system-out, because CI must not go red on it. The per-rule table
 * leads, as the `system-out` of a first testsuite `rules` with no testcase: CI counts stay those of
 * the checks (a rule is not a second test of the same failure; `junit-rules` makes rules the tests).
 */
import { create } from 'xmlbuilder2';
import { redact } from '../suites/report/redact.js';
import { boundReport } from '../suites/report/bounded.js';
import { inertReport } from '../suites/report/inert.js';
import {
  checkLabel,
  checksByArea,
  countStatuses,
  detailText,
  firstLine,
  ruleCountsLine,
  ruleTableLines,
  seeded,
  sortRules,
  verdictLine,
} from './text.js';
import type { CheckResult, Report } from '../suites/report/model.js';

type XMLBuilder = ReturnType<typeof create>;

/** Characters XML 1.0 cannot carry (control characters, lone surrogates) become U+FFFD. */
const XML_REPLACEMENT = '\uFFFD';

function secondsAttr(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function properties(parent: XMLBuilder, report: Report): void {
  const props = parent.ele('properties');
  const values: [string, string][] = [
    ['target', report.target],
    ['release', report.release],
    ['offering', report.offering],
    ...(seeded(report) ? [['seed', String(report.seed)] as [string, string]] : []),
    ['tool', `${report.tool} ${report.version}`],
    ['verdict', verdictLine(report)],
  ];
  for (const [name, value] of values) props.ele('property', { name, value });
}

function testcase(parent: XMLBuilder, check: CheckResult): void {
  const node = parent.ele('testcase', {
    classname: check.suite,
    name: checkLabel(check),
    time: secondsAttr(check.durationMs),
  });
  switch (check.status) {
    case 'failed':
      node
        .ele('failure', { message: firstLine(check.message) || 'check failed', type: 'ConformanceFailure' })
        .txt(detailText(check));
      break;
    case 'errored':
      node
        .ele('error', {
          message: firstLine(check.message) || 'the harness could not complete the check',
          type: 'HarnessError',
        })
        .txt(detailText(check));
      break;
    case 'skipped':
      node.ele('skipped', { message: firstLine(check.message) || 'skipped' });
      break;
    case 'warned':
      node.ele('system-out').txt(`WARNING (should-level rule, does not fail the run)\n${detailText(check)}`);
      break;
    case 'expected':
      // A known deviation (--expect): shown, never a CI failure.
      node.ele('system-out').txt(`EXPECTED (known deviation: ${check.expectedReason ?? ''})\n${detailText(check)}`);
      break;
    case 'passed':
      break;
  }
}

export function renderJunit(input: Report): string {
  const report = inertReport(redact(boundReport(input)));
  const totals = countStatuses(report.checks);
  const doc = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: XML_REPLACEMENT });
  const root = doc.ele('testsuites', {
    name: report.tool,
    tests: String(report.checks.length),
    failures: String(totals.failed),
    errors: String(totals.errored),
    skipped: String(totals.skipped),
    time: secondsAttr(report.durationMs),
    timestamp: report.startedAt,
  });
  const rules = root.ele('testsuite', {
    name: 'rules',
    tests: '0',
    failures: '0',
    errors: '0',
    skipped: '0',
    time: '0.000',
    timestamp: report.startedAt,
  });
  properties(rules, report);
  rules
    .ele('system-out')
    .txt(
      [
        `Rules (${report.rules.length}) ${ruleCountsLine(report)}`,
        ...ruleTableLines(sortRules(report.rules), report),
      ].join('\n'),
    );
  for (const { area, items } of checksByArea(report)) {
    const counts = countStatuses(items);
    const suite = root.ele('testsuite', {
      name: area,
      tests: String(items.length),
      failures: String(counts.failed),
      errors: String(counts.errored),
      skipped: String(counts.skipped),
      time: secondsAttr(items.reduce((sum, check) => sum + check.durationMs, 0)),
      timestamp: report.startedAt,
    });
    properties(suite, report);
    for (const check of items) testcase(suite, check);
  }
  return doc.end({ prettyPrint: true }) + '\n';
}
