/**
 * The diff in the HTML and Markdown reports (issue 22): a table per operation, each row judged
 * (linked rules, allowed, not covered), and every cell from the target inert: markup escaped,
 * control and bidi characters written as visible escapes.
 */
import { describe, expect, it } from 'vitest';
import { formatDiff, renderHtml, renderMarkdown, validateReport } from '../../reporters/index.js';
import type { Report } from '../../suites/report/model.js';
import { HOSTILE, fixtureReport } from '../reporters/fixture.js';

const RLO = '\u202e';

function withDiff(): Report {
  return {
    ...fixtureReport(),
    diff: {
      reference: 'embedded simulator 18.0 (self-managed)',
      read: ['device_authorization_grant on (GET /.well-known/openid-configuration)'],
      exchanges: { target: 12, reference: 12, paired: 12 },
      differences: [
        {
          operation: 'GET /oauth/token/info',
          kind: 'member',
          subject: `$.${HOSTILE}`,
          target: `string${RLO}tnarg`,
          reference: 'absent',
          rules: [],
          allowed: 'spec/openapi.yaml',
          checks: ['tokens.info-presentations'],
          count: 2,
        },
        {
          operation: 'POST /oauth/token',
          kind: 'header',
          subject: 'cache-control',
          target: 'absent',
          reference: 'no-store',
          rules: ['TOK-NO-STORE'],
          checks: ['grants.token-response-headers'],
          count: 1,
        },
        {
          operation: 'POST /oauth/revoke',
          kind: 'header',
          subject: 'cache-control',
          target: `absent\u001b[2J`,
          reference: 'no-store',
          rules: [],
          checks: ['(set-up)'],
          count: 1,
        },
      ],
    },
  };
}

describe('the diff in the reports', () => {
  it('renders in HTML as a table per operation, each row judged, target text inert', () => {
    const html = renderHtml(withDiff());
    const section = /<section id="diff">[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    expect(html).toContain('<a href="#diff">Diff</a>');
    expect(section.match(/<h3>/g)).toHaveLength(3);
    expect(section).toContain('<h3><code>POST /oauth/token</code></h3>');
    expect(section).toMatch(
      /<tr data-judged="linked">.*<a href="[^"]*TOK-NO-STORE[^"]*"><code>TOK-NO-STORE<\/code><\/a>/,
    );
    expect(section).toContain('<tr data-judged="allowed">');
    expect(section).toContain('allowed (spec/openapi.yaml)');
    expect(section).toMatch(/<tr data-judged="uncovered">.*not covered by any rule/);
    expect(section).toContain('3 differences: 1 linked to a failed rule, 1 allowed, 1 not covered by any rule');
    // Inert: the markup is text, the bidi override and the escape sequence are visible escapes.
    expect(section).not.toContain('<script>');
    expect(section).not.toContain('<img');
    expect(section).toContain('&lt;script&gt;');
    expect(html).not.toContain(RLO);
    expect(html).not.toContain('\u001b');
    expect(section).toContain('\\u202e');
    // A report without a diff has no such section; the section is valid JSON report data.
    expect(renderHtml(fixtureReport())).not.toMatch(/id="diff"|href="#diff"/);
    expect(validateReport(JSON.parse(JSON.stringify(withDiff())))).toEqual([]);
  });

  it('renders in Markdown as one table, target text inert', () => {
    const md = renderMarkdown(withDiff());
    const section = md.slice(md.indexOf('### Diff'), md.indexOf('3 differences'));
    expect(section).toContain('| Operation | Difference | Target | Reference | Judged |');
    expect(section).toContain('not covered by any rule');
    expect(section).toContain('allowed (spec/openapi.yaml)');
    expect(section).toMatch(/\[`TOK-NO-STORE`\]\([^)]*\)/);
    expect(section).not.toMatch(/<script|<img/i);
    expect(section).toContain('&lt;script&gt;');
    expect(md).not.toContain(RLO);
    expect(md).not.toContain('\u001b');
    expect(renderMarkdown(fixtureReport())).not.toContain('### Diff');
  });

  it('keeps what the console shows: what was read on a line of its own, the checks that saw each difference', () => {
    const console = formatDiff(withDiff().diff!);
    expect(console).toMatch(/\nRead from the target: device_authorization_grant on/);
    expect(console).toContain('tokens.info-presentations (2×)');
    const md = renderMarkdown(withDiff());
    expect(md).toMatch(/\n\nRead from the target: device\\_authorization\\_grant on/);
    expect(md).toContain('| Operation | Difference | Target | Reference | Judged | Checks |');
    expect(md).toContain('tokens.info-presentations (2×)');
    const html = renderHtml(withDiff());
    expect(html).toMatch(/<p>Read from the target: device_authorization_grant on/);
    // Nothing differs where some checks were not compared: every format says so in the console's words.
    const none: Report = {
      ...withDiff(),
      diff: {
        ...withDiff().diff!,
        differences: [],
        notCompared: [{ reason: 'the target has no REST API', checks: ['pagination.offset-headers'], operations: [] }],
      },
    };
    expect(formatDiff(none.diff!)).toContain('No difference in what was compared.');
    expect(renderMarkdown(none)).toContain('No difference in what was compared.');
    expect(renderHtml(none)).toContain('<p>No difference in what was compared.</p>');
  });

  it('says in every format which differences the checks run did not judge, apart from those no rule covers', () => {
    const section = withDiff().diff!;
    const unjudged: Report = {
      ...withDiff(),
      diff: {
        ...section,
        differences: [...section.differences.slice(0, 2), { ...section.differences[2], unjudged: ['TOK-NO-STORE'] }],
      },
    };
    const said = 'not judged by the checks run (TOK-NO-STORE: its checks were left out)';
    const tally = '3 differences: 1 linked to a failed rule, 1 allowed, 0 not covered by any rule, 1 not judged';
    expect(formatDiff(unjudged.diff!)).toContain(said);
    expect(formatDiff(unjudged.diff!)).toContain(tally);
    expect(renderMarkdown(unjudged)).toContain(said);
    expect(renderHtml(unjudged)).toMatch(/<tr data-judged="unjudged">.*not judged by the checks run/);
    expect(renderHtml(unjudged)).toContain(tally);
    expect(validateReport(JSON.parse(JSON.stringify(unjudged)))).toEqual([]);
  });

  it('says the status of a row where the same difference at another status is judged otherwise', () => {
    const section = withDiff().diff!;
    const [first, ...rest] = section.differences;
    const split: Report = {
      ...withDiff(),
      diff: {
        ...section,
        differences: [{ ...first, status: '400' }, { ...first, status: '200', allowed: undefined }, ...rest],
      },
    };
    for (const text of [formatDiff(split.diff!), renderMarkdown(split), renderHtml(split)]) {
      expect(text).toContain('(answers 400)');
      expect(text).toContain('(answers 200)');
    }
    expect(formatDiff(withDiff().diff!)).not.toContain('(answers');
    expect(validateReport(JSON.parse(JSON.stringify(split)))).toEqual([]);
  });

  it('and in the console, the same judgement words', () => {
    const text = formatDiff(withDiff().diff!);
    expect(text).toMatch(/GET \/oauth\/token\/info\n {2}member .*allowed \(spec\/openapi\.yaml\)/);
    expect(text).not.toContain(RLO);
    expect(text).not.toContain('\u001b');
  });
});
