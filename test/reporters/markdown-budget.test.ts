/**
 * The Markdown report keeps its budget whatever the report (a PR comment holds 65,536 characters):
 * before, a report with no hostile text came out at 92,828 characters and one of 147 failures of
 * 2,000-character messages at 1,444,230 (review 16), since the rules table listed every rule not
 * passed, the skipped checks were always listed, one-line entries quoted whole messages, and the
 * last step returned whatever it had. Shed in steps, the failures stay named first.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderMarkdown, DEFAULT_MARKDOWN_BUDGET } from '../../reporters/markdown.js';
import type { CheckResult, CheckStatus, Report, RuleResult, RuleStatus } from '../../suites/report/model.js';
import { fixtureReport } from './fixture.js';

const SEED = Number(process.env.FC_SEED ?? 20261127);

const CHECK_STATUSES: CheckStatus[] = ['failed', 'warned', 'errored', 'skipped', 'passed', 'expected'];
const RULE_STATUSES: RuleStatus[] = ['failed', 'warned', 'errored', 'passed', 'untested', 'skipped'];

/** A check's id that no other contains: `grants.k12z`. */
const idOf = (i: number) => `grants.k${i}z`;

const shape = fc.record({
  checks: fc.array(
    fc.record({
      status: fc.constantFrom(...CHECK_STATUSES),
      message: fc.nat(2_500),
      body: fc.nat(30_000),
      rules: fc.nat(4),
    }),
    { maxLength: 220 },
  ),
  rules: fc.array(fc.record({ status: fc.constantFrom(...RULE_STATUSES), title: fc.nat(400) }), { maxLength: 260 }),
  budget: fc.constantFrom(3_000, 12_000, DEFAULT_MARKDOWN_BUDGET),
});

type Shape = typeof shape extends fc.Arbitrary<infer T> ? T : never;

function reportOf({ checks, rules }: Shape): Report {
  const base = fixtureReport();
  const template = base.checks.find((c) => c.exchange?.length)!;
  const results: CheckResult[] = checks.map((c, i) => ({
    id: idOf(i),
    suite: 'grants',
    title: `check ${i}`,
    rules: Array.from({ length: c.rules }, (_, r) => `GRANT-R${r}`),
    status: c.status,
    durationMs: 1,
    // Each reason its own, so grouping alone does not make them fit.
    message: `said ${i} ${'m'.repeat(c.message)}\nsecond line`,
    ...(c.status === 'failed' || c.status === 'errored'
      ? {
          exchange: template.exchange!.map((e) => ({ ...e, response: { ...e.response!, body: 'b'.repeat(c.body) } })),
        }
      : {}),
  }));
  const count = (status: CheckStatus) => checks.filter((c) => c.status === status).length;
  const ruleResults: RuleResult[] = rules.map((r, i) => ({
    id: `GRANT-R${i}`,
    title: `rule ${i} ${'t'.repeat(r.title)}`,
    level: 'must',
    source: 's',
    origin: 'source',
    status: r.status,
    checks: results.filter((_, c) => c % Math.max(1, rules.length) === i).map((c) => c.id),
  }));
  return {
    ...base,
    summary: {
      passed: count('passed'),
      failed: count('failed'),
      warned: count('warned'),
      skipped: count('skipped'),
      errored: count('errored'),
    },
    rules: ruleResults,
    checks: results,
  };
}

describe('markdown budget', () => {
  it('is never passed, the verdict stays last and the failed checks are named before any other problem', () => {
    fc.assert(
      fc.property(shape, (s) => {
        const report = reportOf(s);
        const md = renderMarkdown(report, { maxChars: s.budget });
        expect(md.length).toBeLessThanOrEqual(s.budget);
        expect(md.trimEnd().split('\n').at(-1)).toMatch(/^(FAIL|PASS|ERROR)\b/);
        const named = (c: CheckResult) => md.includes(c.id);
        const others = report.checks.filter((c) => c.status === 'warned' || c.status === 'errored');
        // A warned or errored check named: every failed one is.
        if (others.some(named)) expect(report.checks.filter((c) => c.status === 'failed').every(named)).toBe(true);
      }),
      { seed: SEED, numRuns: 60 },
    );
  });

  it('147 failures of 2,000-character messages (review 16: 1,444,230 characters) fit, each named', () => {
    const report = reportOf({
      checks: Array.from({ length: 147 }, () => ({ status: 'failed' as const, message: 2_000, body: 0, rules: 1 })),
      rules: [{ status: 'failed', title: 10 }],
      budget: DEFAULT_MARKDOWN_BUDGET,
    });
    const md = renderMarkdown(report);
    expect(md.length).toBeLessThanOrEqual(DEFAULT_MARKDOWN_BUDGET);
    for (const check of report.checks) expect(md).toContain(check.id);
  });
  // Review 19: the <summary> quoted a message's first line whole, and the header line before the
  // failures quoted target, release and offering whole: neither was ever cut to fit.
  it('a failure whose message is one line of 60,000 characters keeps its details: its exchange and its reproduce line', () => {
    const base = fixtureReport();
    const template = base.checks.find((c) => c.exchange?.length && c.reproduce)!;
    const report = { ...base, checks: [{ ...template, status: 'failed' as const, message: 'x'.repeat(60_000) }] };
    const md = renderMarkdown(report);
    expect(md.length).toBeLessThanOrEqual(DEFAULT_MARKDOWN_BUDGET);
    expect(md).toContain(`<details><summary>❌ <code>${template.suite}</code>`);
    expect(md).toContain('**Exchange');
    expect(md).toContain('**Reproduce**');
  });

  it.each(['target', 'release', 'offering'] as const)(
    "the report's %s of 70,000 characters is cut: the failures are still shown",
    (field) => {
      const base = fixtureReport();
      const report = { ...base, [field]: `${field}-${'a'.repeat(70_000)}` };
      const md = renderMarkdown(report);
      expect(md.length).toBeLessThanOrEqual(DEFAULT_MARKDOWN_BUDGET);
      expect(md).toMatch(new RegExp(`${field}-a{150,200}`));
      expect(md).not.toMatch(/a{201}/);
      for (const check of base.checks.filter((c) => c.status === 'failed')) expect(md).toContain(check.id);
    },
  );
});
