/** `--report junit-rules=FILE`: one testcase per rule, classname = area, name = rule id and title. */
import { create } from 'xmlbuilder2';
import { describe, expect, it } from 'vitest';
import { renderJunitRules } from '../../reporters/index.js';
import { fixtureReport, SECRETS } from './fixture.js';

const report = fixtureReport();
const xml = renderJunitRules(report);
const doc = create(xml).end({ format: 'object' }) as any;
const suites: any[] = [doc.testsuites.testsuite].flat();
const cases = suites.flatMap((s) => [s.testcase].flat());
const byRule = (id: string) => cases.find((c) => String(c['@name']).startsWith(`${id} — `));

describe('junit-rules', () => {
  it('has one testcase per rule, in a testsuite per area, named by id and title', () => {
    expect(cases).toHaveLength(report.rules.length);
    for (const rule of report.rules) {
      const area = rule.id.split('-')[0];
      const c = byRule(rule.id);
      expect(c['@classname']).toBe(area);
      expect(c['@name']).toBe(`${rule.id} — ${rule.title}`);
    }
    expect(doc.testsuites['@tests']).toBe(String(report.rules.length));
  });

  it('a failed rule is a failure naming the check that broke it; untested and skipped are skipped; the rest pass', () => {
    for (const rule of report.rules) {
      const c = byRule(rule.id);
      expect(!!c.failure, rule.id).toBe(rule.status === 'failed');
      expect(!!c.skipped, rule.id).toBe(rule.status === 'untested' || rule.status === 'skipped');
    }
    const failed = report.rules.find((r) => r.status === 'failed')!;
    expect(byRule(failed.id).failure['#']).toContain(failed.checks[0]);
    const counts = (status: string[]) => String(report.rules.filter((r) => status.includes(r.status)).length);
    expect(doc.testsuites['@failures']).toBe(counts(['failed']));
    expect(doc.testsuites['@skipped']).toBe(counts(['untested', 'skipped']));
  });

  it('carries no secret', () => {
    for (const secret of Object.values(SECRETS)) expect(xml).not.toContain(secret);
  });
});
