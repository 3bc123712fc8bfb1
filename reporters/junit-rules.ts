/**
 * JUnit XML by rule: one testsuite per rule area, one testcase per rule (classname = area, name =
 * rule id and title), so a CI test report names the sentence of the spec that broke. A failed rule
 * is a failure, an untested or skipped one is skipped, a warned (should) one, a known deviation
 * (`expected`) and a `stale` expectation pass with a note.
 */
import { create } from 'xmlbuilder2';
import { redact } from '../suites/report/redact.js';
import { boundReport } from '../suites/report/bounded.js';
import { inertReport } from '../suites/report/inert.js';
import { firstLine, groupBy, ruleArea } from './text.js';
import type { CheckResult, Report, RuleResult } from '../suites/report/model.js';

type XMLBuilder = ReturnType<typeof create>;

/** What the checks that judged the rule said, one line each. */
function evidence(rule: RuleResult, checks: Map<string, CheckResult>): string {
  const lines = rule.checks.map((id) => {
    const check = checks.get(id);
    const note = check && check.status !== 'passed' ? `: ${firstLine(check.message)}` : '';
    return `${check?.status ?? '?'} ${id}${note}${check?.reproduce ? `\n  reproduce: ${check.reproduce}` : ''}`;
  });
  return [`${rule.level} rule, source: ${rule.source}`, ...lines].join('\n');
}

function testcase(parent: XMLBuilder, area: string, rule: RuleResult, checks: Map<string, CheckResult>): void {
  const node = parent.ele('testcase', { classname: area, name: `${rule.id} — ${rule.title}` });
  const failing = rule.checks.map((id) => checks.get(id)).find((c) => c && c.status !== 'passed');
  switch (rule.status) {
    case 'failed':
      node
        .ele('failure', {
          message: firstLine(failing?.message) || `${rule.id} is broken`,
          type: 'RuleBroken',
        })
        .txt(evidence(rule, checks));
      break;
    case 'errored':
      node.ele('error', { message: 'the harness could not test this rule', type: 'HarnessError' });
      break;
    case 'untested':
    case 'skipped':
      node.ele('skipped', { message: rule.status === 'untested' ? 'no check tested this rule' : 'skipped' });
      break;
    case 'warned':
      node.ele('system-out').txt(`WARNING (${rule.level} rule, does not fail the run)\n${evidence(rule, checks)}`);
      break;
    case 'expected':
      node
        .ele('system-out')
        .txt(
          `EXPECTED (known deviation: ${rule.expectedReason ?? ''}; does not fail the run)\n${evidence(rule, checks)}`,
        );
      break;
    case 'stale':
      node
        .ele('system-out')
        .txt(`STALE (listed in --expect but seen to hold; remove the entry: ${rule.expectedReason ?? ''})`);
      break;
    case 'passed':
      break;
  }
}

export function renderJunitRules(input: Report): string {
  const report = inertReport(redact(boundReport(input)));
  const checks = new Map(report.checks.map((c) => [c.id, c]));
  const count = (rules: RuleResult[], ...statuses: string[]) =>
    String(rules.filter((r) => statuses.includes(r.status)).length);
  const doc = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '\uFFFD' });
  const root = doc.ele('testsuites', {
    name: `${report.tool} rules`,
    tests: String(report.rules.length),
    failures: count(report.rules, 'failed'),
    errors: count(report.rules, 'errored'),
    skipped: count(report.rules, 'untested', 'skipped'),
    timestamp: report.startedAt,
  });
  for (const { area, items } of groupBy(report.rules, ruleArea)) {
    const suite = root.ele('testsuite', {
      name: area,
      tests: String(items.length),
      failures: count(items, 'failed'),
      errors: count(items, 'errored'),
      skipped: count(items, 'untested', 'skipped'),
      timestamp: report.startedAt,
    });
    for (const rule of items) testcase(suite, area, rule, checks);
  }
  return doc.end({ prettyPrint: true }) + '\n';
}
