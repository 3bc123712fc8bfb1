import { createHash } from 'node:crypto';
import escapeHtml from 'escape-html';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { convert, create } from 'xmlbuilder2';
import {
  formatConsole,
  parseReportSpecs,
  redact,
  renderHtml,
  renderJson,
  renderJunit,
  renderMarkdown,
  shouldColor,
  validateReport,
  writeReports,
  ReportsNotWritten,
} from '../../reporters/index.js';
import { HOSTILE, SECRETS, fixtureReport, leakedSecrets } from './fixture.js';

const report = fixtureReport();
const RENDER = {
  json: renderJson,
  junit: renderJunit,
  html: renderHtml,
  md: renderMarkdown,
  console: (r: typeof report) => formatConsole(r),
  'console (color)': (r: typeof report) => formatConsole(r, { color: true }),
};

describe('no secret reaches any format', () => {
  it('the fixture really carries its secrets (so the assertions below can fail)', () => {
    expect(leakedSecrets(JSON.stringify(report)).sort()).toEqual([...Object.keys(SECRETS), 'basicCredential'].sort());
  });
  for (const [kind, render] of Object.entries(RENDER)) {
    it(kind, () => {
      expect(leakedSecrets(render(report))).toEqual([]);
    });
  }
  it('rendering leaves the caller’s report untouched', () => {
    const before = JSON.stringify(report);
    for (const render of Object.values(RENDER)) render(report);
    expect(JSON.stringify(report)).toBe(before);
  });
});

describe('json', () => {
  it('validates against reporters/report.schema.json and keeps the report’s content', () => {
    const parsed = JSON.parse(renderJson(report));
    expect(validateReport(parsed)).toEqual([]);
    expect(parsed.summary).toEqual(report.summary);
    expect(parsed.checks.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual(
      report.checks.map((c) => [c.id, c.status]),
    );
    expect(parsed.checks[1].counterexample).toBe(report.checks[1].counterexample);
    expect(parsed.checks[1].exchange[0].request.headers.authorization).toMatch(/^Basic \S{4}…$/);
  });
  it('the schema refuses what the contract forbids', () => {
    const bad = JSON.parse(renderJson(report));
    bad.checks[0].status = 'broken';
    bad.rules[0].level = 'may';
    bad.extra = true;
    delete bad.seed;
    const problems = validateReport(bad).join('\n');
    expect(problems).toMatch(/\/checks\/0\/status/);
    expect(problems).toMatch(/\/rules\/0\/level/);
    expect(problems).toMatch(/additional/);
    expect(problems).toMatch(/seed/);
  });
});

describe('junit', () => {
  const xml = renderJunit(report);
  const doc = convert(xml, { format: 'object' }) as any;
  const all: any[] = [doc.testsuites.testsuite].flat();
  const [rulesSuite, ...suites] = all;
  const cases = suites.flatMap((suite) => [suite.testcase].flat());

  it('parses, with the rules first, then one testsuite per area and the right counts', () => {
    expect(doc.testsuites['@tests']).toBe('7');
    expect(doc.testsuites['@failures']).toBe('2');
    expect(doc.testsuites['@skipped']).toBe('1');
    expect(all.map((suite) => suite['@name'])).toEqual(['rules', 'grants', 'tokens', 'cors', 'device', 'pagination']);
    const grants = suites.find((suite) => suite['@name'] === 'grants');
    expect([grants['@tests'], grants['@failures'], grants['@skipped']]).toEqual(['2', '1', '0']);
    expect(cases.filter((c) => c.failure)).toHaveLength(2);
    expect(cases.filter((c) => c.skipped)).toHaveLength(1);
  });
  it('leads with the per-rule table (rule, level, origin, verdict, checks, first failure), counted as no test', () => {
    expect(rulesSuite.testcase).toBeUndefined();
    expect([rulesSuite['@tests'], rulesSuite['@failures'], rulesSuite['@errors']]).toEqual(['0', '0', '0']);
    const lines: string[] = rulesSuite['system-out'].split('\n');
    expect(lines[0]).toMatch(/^Rules \(\d+\) must: /);
    expect(lines[1].split(/\s{2,}/)).toEqual(['Rule', 'Level', 'Origin', 'Verdict', 'Checks', 'First failure']);
    // Every rule has its line, worst first; a failed rule names its check and the failure's first line.
    expect(lines).toHaveLength(report.rules.length + 2);
    const pkce = lines.find((line) => line.startsWith('PKCE-VERIFIER-LENGTH'))!;
    const cells = pkce.split(/\s{2,}/);
    expect(cells.slice(0, 5)).toEqual([
      'PKCE-VERIFIER-LENGTH',
      'must',
      report.rules.find((r) => r.id === 'PKCE-VERIFIER-LENGTH')!.origin,
      'failed',
      'grants.pkce-verifier',
    ]);
    expect(cells[5]).toMatch(/^grants\.pkce-verifier: A 42-character verifier was accepted: .{1,70}…$/);
    expect(lines.findIndex((l) => / failed /.test(l))).toBeLessThan(lines.findIndex((l) => / passed /.test(l)));
  });
  it('names testcases `id — title [RULES]` with the suite as classname', () => {
    const pkce = cases.find((c) => c['@name'].startsWith('grants.pkce-verifier'));
    expect(pkce['@classname']).toBe('grants');
    expect(pkce['@name']).toBe(
      'grants.pkce-verifier — Verifiers outside 43..128 are refused [PKCE-VERIFIER-LENGTH, PKCE-VERIFIER-CHARSET]',
    );
  });
  it('puts message, counterexample, exchange and reproduce into the failure', () => {
    const pkce = cases.find((c) => c['@name'].startsWith('grants.pkce-verifier'));
    expect(pkce.failure['@message']).toContain('A 42-character verifier was accepted');
    const body: string = pkce.failure['#'];
    expect(body).toContain('Counterexample:');
    expect(body).toContain('a'.repeat(42));
    expect(body).toContain('→ POST http://127.0.0.1:3000/oauth/token');
    expect(body).toContain('← 200');
    expect(body).toContain('--seed 1234567');
  });
  it('reports a warning as a passed testcase with a system-out note, and skipped with its reason', () => {
    const warned = cases.find((c) => c['@classname'] === 'cors');
    expect(warned.failure).toBeUndefined();
    expect(warned['system-out']).toContain('OPTIONS /oauth/token answered 404');
    const skipped = cases.find((c) => c['@classname'] === 'device');
    expect(skipped.skipped['@message']).toBe('needs clock control (capability clock missing)');
  });
  it('carries target, release, offering and seed as properties', () => {
    const props = Object.fromEntries([suites[0].properties.property].flat().map((p: any) => [p['@name'], p['@value']]));
    expect(props).toMatchObject({
      target: 'http://127.0.0.1:3000',
      release: '18.0',
      offering: 'self-managed',
      seed: '1234567',
    });
  });
  it('stays well-formed when a message holds characters XML cannot carry', () => {
    const nasty = fixtureReport();
    nasty.checks[1].message = 'bell \u0007 nul \u0000 lone \ud800 ]]> & < " end';
    // Through the DOM, which decodes entities (the object conversion keeps them).
    const root = create(renderJunit(nasty)).root().node as unknown as Element;
    const failure = root.getElementsByTagName('failure')[0];
    // Controls are written as visible escapes, as in every format (suites/report/inert.ts).
    expect(failure.getAttribute('message')).toBe('bell \\u0007 nul \\u0000 lone \uFFFD ]]> & < " end');
  });
});

describe('html', () => {
  const html = renderHtml(report);
  it("leads with the per-rule table, before the failures, with each rule's first failure", () => {
    const rules = html.indexOf('<section id="rules">');
    expect(rules).toBeGreaterThan(0);
    expect(rules).toBeLessThan(html.indexOf('<section id="failed">'));
    expect(rules).toBeLessThan(html.indexOf('<section id="areas">'));
    const matrix = html.slice(rules, html.indexOf('</section>', rules));
    expect(matrix).toContain('<th>First failure</th>');
    const pkce = matrix.split('\n').find((row) => row.includes('<code>PKCE-VERIFIER-LENGTH</code></a></td>'))!;
    // A link to the failure's details, not a second copy of its message.
    expect(pkce).toMatch(/<td><a href="#detail-[^"]+"><code>grants\.pkce-verifier<\/code><\/a><\/td><\/tr>$/);
    const target = /<td><a href="#(detail-[^"]+)">/.exec(pkce)![1];
    expect(html).toContain(`id="${target}"`);
    const passed = matrix.split('\n').find((row) => row.includes('data-status="passed"'))!;
    expect(passed).toMatch(/<td>—<\/td><\/tr>$/);
  });
  it("shows a pass's note (t.note) in the checks table, its first line, escaped; a pass without one shows nothing", () => {
    const noted = {
      ...report,
      checks: report.checks.map((c) =>
        c.id === 'pagination.offset-walk' ? { ...c, message: 'decided nothing: <b>one</b>\nthe second note' } : c,
      ),
    };
    const rows = renderHtml(noted).split('\n');
    const row = (id: string) => rows.find((r) => r.includes('data-f="check"') && r.includes(`${id}`))!;
    expect(row('offset-walk')).toMatch(/<td>decided nothing: &lt;b&gt;one&lt;\/b&gt;<\/td><\/tr>$/);
    expect(row('keyset-walk')).toContain('0.41 s</td><td></td></tr>');
  });
  it('orders the rule table worst first, info rules last, then by id', () => {
    const rule = (id: string, level: 'must' | 'should' | 'info', status: 'passed' | 'warned' | 'failed') => ({
      id,
      title: id,
      level,
      source: 'L1',
      origin: 'source',
      status,
      checks: [],
    });
    const mixed = {
      ...report,
      rules: [
        rule('T-INFO-WARNED', 'info', 'warned'),
        rule('T-MUST-PASSED', 'must', 'passed'),
        rule('T-SHOULD-WARNED', 'should', 'warned'),
        rule('T-MUST-FAILED', 'must', 'failed'),
        rule('T-INFO-PASSED', 'info', 'passed'),
      ],
    };
    const rows = [...renderHtml(mixed).matchAll(/<tr[^>]*><td><a href="rules\.html#([A-Z-]+)">/g)].map((m) => m[1]);
    expect(rows).toEqual(['T-MUST-FAILED', 'T-SHOULD-WARNED', 'T-MUST-PASSED', 'T-INFO-WARNED', 'T-INFO-PASSED']);
  });
  it('escapes HTML from messages: no script or element injection', () => {
    // One script, ours, allowed by its hash; none from the report.
    expect(html.match(/<script/gi)).toHaveLength(1);
    expect(html).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'/);
    expect(html).not.toMatch(/<img/i);
    expect(html).toContain('&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;');
    expect(html).not.toContain(HOSTILE);
  });
  it('is self-contained: no external asset, and a CSP forbids loading any', () => {
    expect(html).not.toMatch(/\b(src|href)=["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).toContain(`Content-Security-Policy" content="default-src 'none'`);
  });
  it('shows every rule with its status, and every check', () => {
    for (const rule of report.rules)
      expect(html).toMatch(
        new RegExp(
          `<a href="rules\\.html#${rule.id}"><code>${rule.id}</code></a></td><td data-v="\\d+"><span class="badge ${rule.status}">`,
        ),
      );
    for (const check of report.checks) expect(html).toContain(check.title);
  });
  it('expands failures with message, counterexample, exchanges and reproduce', () => {
    const failures = html.slice(html.indexOf('<section id="failed">'), html.indexOf('<section id="warned">'));
    expect(failures.match(/<details open/g)).toHaveLength(2);
    for (const heading of ['Message', 'Breaks', 'Counterexample', 'Exchange 1 of 2', 'Exchange 2 of 2', 'Reproduce'])
      expect(failures).toContain(`<h4>${heading}</h4>`);
    // the rule the failure broke, narrower than all the check proves
    expect(failures).toMatch(/<h4>Breaks<\/h4>\s*<pre><code>PKCE-VERIFIER-LENGTH<\/code><\/pre>/);
  });
});

describe('html: one place per failure, one allowed script', () => {
  const html = renderHtml(report);
  it('shows each failure message once', () => {
    for (const check of redact(report).checks.filter((c) => c.status === 'failed')) {
      const first = escapeHtml(check.message!.split('\n')[0]);
      expect(html.split(first).length - 1, check.id).toBe(1);
    }
  });
  it('folds the exchanges and lets only its own script run, by hash', () => {
    expect(html).toMatch(/<details class="exchanges"><summary>/);
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1];
    const hash = createHash('sha256').update(script).digest('base64');
    expect(html).toContain(`script-src 'sha256-${hash}'`);
  });
});

describe('markdown', () => {
  const md = renderMarkdown(report);
  it('lists failures first, before warnings and the per-area table', () => {
    const failures = md.indexOf('Failures (2)');
    expect(failures).toBeGreaterThan(0);
    expect(failures).toBeLessThan(md.indexOf('Warnings'));
    expect(md.indexOf('Warnings')).toBeLessThan(md.indexOf('### Per area'));
    expect(md.indexOf('grants.pkce-verifier')).toBeLessThan(md.indexOf('### Per area'));
  });
  it('folds each failure’s details in <details> with fenced blocks', () => {
    const details = md.match(/<details><summary>❌[^\n]*<\/summary>/g) ?? [];
    expect(details).toHaveLength(2);
    expect(md).toContain('```sh\nnpx idp-conformance run --suite grants');
    expect(md).toContain('**Counterexample**');
  });
  it('has the summary table and per-area counts', () => {
    expect(md).toContain(
      '| Passed | Failed | Warned | Errored | Skipped |\n| ---: | ---: | ---: | ---: | ---: |\n| 3 | 2 | 1 | 0 | 1 |',
    );
    expect(md).toContain('| Area | Passed | Failed | Warned | Expected | Errored | Skipped | Total |');
    expect(md).toContain('| grants | 1 | 1 | 0 | 0 | 0 | 0 | 2 |');
    expect(md).toContain('| pagination | 2 | 0 | 0 | 0 | 0 | 0 | 2 |');
  });
  it('keeps hostile HTML out of the raw-HTML parts', () => {
    const outsideFences = md.replace(/(?<!`)(`{3,})(?!`)[^\n]*\n[\s\S]*?\n\1/g, '');
    expect(outsideFences).not.toMatch(/<script|<img/i);
  });
});

describe('markdown with hostile content', () => {
  it('a body cannot close its fence, and very many backtick runs do not crash', () => {
    const hostile = fixtureReport();
    hostile.checks[1].message = 'before\n```\n</details><script>x</script>\n```';
    hostile.checks[2].message = '` '.repeat(200_000);
    const md = renderMarkdown(hostile, { maxChars: 10_000_000 });
    expect(md).toContain('````text\nbefore\n```\n</details><script>x</script>\n```\n````');
  });
});

describe('markdown size budget', () => {
  const big = fixtureReport();
  const template = big.checks[1];
  big.checks = Array.from({ length: 150 }, (_, i) => ({
    ...template,
    id: `grants.big-${i}`,
    exchange: template.exchange!.map((e) => ({ ...e, response: { ...e.response!, body: 'x'.repeat(20_000) } })),
  }));
  big.summary = { passed: 0, failed: 150, warned: 0, skipped: 0, errored: 0 };
  it('stays under the budget yet lists every failure and the verdict', () => {
    const md = renderMarkdown(big, { maxChars: 60_000 });
    expect(md.length).toBeLessThanOrEqual(60_000);
    expect(md.length).toBeGreaterThan(30_000); // it sheds detail, not everything
    for (let i = 0; i < 150; i++) expect(md).toContain(`grants.big-${i} —`);
    expect(md).toContain('<details><summary>❌ <code>grants</code> grants.big-0 —');
    expect(md).toMatch(/Details of \d+ more checks are in the JSON and HTML reports/);
    expect(md.trimEnd().split('\n').at(-1)).toMatch(/^FAIL \(partial: \d+ of \d+ must rules tested\): 150 failed/);
  });
  it('keeps everything when it fits', () => {
    expect(renderMarkdown(report)).not.toContain('size limit');
    expect(renderMarkdown(report)).toContain('Rules (7)</summary>');
  });
});

describe('console', () => {
  it('shows a rule proved by many checks as the first two (failed first) and a count', () => {
    const r = fixtureReport();
    const rule = r.rules.find((x) => x.id === 'PKCE-VERIFIER-LENGTH')!;
    rule.checks = ['grants.a-one', 'grants.b-two', 'grants.pkce-verifier', 'grants.c-three', 'grants.d-four'];
    const text = formatConsole(r);
    const line = text.split('\n').find((l) => l.startsWith('PKCE-VERIFIER-LENGTH'))!;
    expect(line).toContain('grants.pkce-verifier, grants.a-one +3');
    expect(line).not.toContain('grants.d-four');
  });
  it('prints per-area counts, failures with reproduce, the seed and the verdict', () => {
    const text = formatConsole(report);
    expect(text).toMatch(/^grants\s+1\s+1\s+0\s+0\s+0\s+0\s+2$/m);
    expect(text).toMatch(/^all\s+3\s+2\s+1\s+0\s+0\s+1\s+7$/m);
    expect(text).toContain('FAILED grants grants.pkce-verifier');
    expect(text).toContain(
      'reproduce: npx idp-conformance run --suite grants --rule PKCE-VERIFIER-LENGTH --seed 1234567',
    );
    expect(text).toContain('WARNED cors');
    expect(text).toMatch(/^SKIPPED \(1\) .+\n {2}device\./m);
    expect(text).toContain('seed: 1234567');
    expect(text.trimEnd().split('\n').at(-1)).toMatch(
      /^FAIL \(partial: 4 of 6 must rules tested\): 2 failed, 1 warned, 1 skipped, 3 passed/,
    );
  });
  it('ends the verdict line with the requests the target rate-limited, when there were any', () => {
    const last = (r: typeof report) => formatConsole(r).trimEnd().split('\n').at(-1)!;
    expect(last(report)).not.toMatch(/rate-limited/);
    expect(last({ ...report, rateLimited: 1 })).toMatch(/ passed in .+; 1 request rate-limited by the target$/);
    expect(last({ ...report, rateLimited: 4 })).toMatch(/; 4 requests rate-limited by the target$/);
  });
  it('ends the verdict line with the tokens left unrevoked, whatever the verdict, as the run says it', () => {
    const last = (r: typeof report) => formatConsole(r).trimEnd().split('\n').at(-1)!;
    expect(last(report)).not.toMatch(/unrevoked/);
    expect(last({ ...report, rateLimited: 4, unrevokedTokens: 1 })).toMatch(
      /; 4 requests rate-limited by the target; 1 token the target issued to the harness was left unrevoked, to expire on their own \(revoke them in the provider if they must not live on\)$/,
    );
    // Every check skipped (nothing tested): the start-up's tokens may still be left.
    const skipped = report.checks.map((c) => ({ ...c, status: 'skipped' as const }));
    const summary = { passed: 0, failed: 0, warned: 0, skipped: skipped.length, errored: 0 };
    const none = { ...report, checks: skipped, summary, unrevokedTokens: 3 };
    expect(last(none)).toMatch(/nothing was tested, .+; 3 tokens the target issued to the harness were left unrevoked/);
    expect(validateReport(none)).toEqual([]);
    expect(validateReport({ ...report, unrevokedTokens: 0 })).not.toEqual([]);
  });
  it('decides colour from the stream and NO_COLOR / FORCE_COLOR', () => {
    expect(shouldColor({ isTTY: true }, {})).toBe(true);
    expect(shouldColor({ isTTY: false }, {})).toBe(false);
    expect(shouldColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(shouldColor({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(shouldColor({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(false);
  });
  it('colours only when asked', () => {
    expect(formatConsole(report)).not.toContain('\u001b[');
    expect(formatConsole(report, { color: true })).toContain('\u001b[31m');
  });
  it('passes with warnings', () => {
    const ok = fixtureReport();
    ok.checks = ok.checks.filter((check) => check.status !== 'failed');
    ok.summary = { passed: 3, failed: 0, warned: 1, skipped: 1, errored: 0 };
    expect(formatConsole(ok).trimEnd().split('\n').at(-1)).toMatch(
      /^PASS \(partial: \d+ of \d+ must rules tested\): 0 failed, 1 warned/,
    );
  });
  it('strips terminal escape sequences a target put in a message', () => {
    const hostile = fixtureReport();
    hostile.checks[1].message = 'evil \u001b[2J\u001b]0;title\u0007 text';
    expect(formatConsole(hostile)).not.toMatch(/\u001b|\u0007/);
  });
});

describe('parseReportSpecs', () => {
  it('parses kind=path pairs', () => {
    expect(parseReportSpecs('json=reports/r.json, junit=out.xml,html=a/b.html,md=s.md')).toEqual([
      { kind: 'json', path: 'reports/r.json' },
      { kind: 'junit', path: 'out.xml' },
      { kind: 'html', path: 'a/b.html' },
      { kind: 'md', path: 's.md' },
    ]);
  });
  const bad: [string, RegExp][] = [
    ['', /needs kind=path/],
    ['xml=out.xml', /unknown report kind "xml".*expected json, junit, junit-rules, html or md/],
    ['junit=', /has no path/],
    ['junit', /has no path/],
    ['json=a.json,md=a.json', /named twice/],
    // The rule catalogue is written beside each HTML and Markdown report: no report may take its place.
    ['html=x/rules.html', /^report path "x\/rules\.html" is where the rule catalogue goes$/],
    ['md=y/rules.md', /^report path "y\/rules\.md" is where the rule catalogue goes$/],
    ['html=x/r.html,json=x/./rules.html', /^report path "x\/\.\/rules\.html" is where the rule catalogue goes$/],
    ['md=r.md,junit=rules.md', /^report path "rules\.md" is where the rule catalogue goes$/],
    ['json=a.json,\nyaml=b', /unknown report kind "yaml"/],
    // A path alone: the kind=path it meant.
    ['reports/r.html', /^report "reports\/r\.html" names no kind: write kind=path, like html=reports\/r\.html$/],
    ['json=a.json,out.xml', /^report "out\.xml" names no kind: write kind=path, like junit=out\.xml$/],
    // An extension that every object has a member of is no kind's.
    ['r.constructor', /^unknown report kind "r\.constructor"/],
  ];
  for (const [spec, message] of bad) {
    it(`refuses ${JSON.stringify(spec)} with one line`, () => {
      let error: Error | undefined;
      try {
        parseReportSpecs(spec);
      } catch (e) {
        error = e as Error;
      }
      expect(error).toBeInstanceOf(Error);
      expect(error!.message).toMatch(message);
      expect(error!.message).not.toContain('\n');
    });
  }
});

describe('writeReports', () => {
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  it('writes every kind, creating parent folders', async () => {
    dir = await mkdtemp(join(tmpdir(), 'reporters-'));
    const targets = parseReportSpecs(`json=${dir}/a/r.json,junit=${dir}/b/c/j.xml,html=${dir}/r.html,md=${dir}/d/r.md`);
    await writeReports(report, targets);
    const written = await Promise.all(targets.map((t) => readFile(t.path, 'utf8')));
    expect(validateReport(JSON.parse(written[0]))).toEqual([]);
    expect(written[1]).toMatch(/^<\?xml/);
    expect(written[2]).toMatch(/^<!doctype html>/);
    expect(written[3]).toMatch(/^## ❌ idp-conformance: FAIL/);
    for (const text of written) expect(leakedSecrets(text)).toEqual([]);
  });
  it('a path that cannot be written is one clear line', async () => {
    dir ||= await mkdtemp(join(tmpdir(), 'reporters-'));
    await writeReports(report, [{ kind: 'json', path: join(dir, 'r.json') }]);
    await expect(writeReports(report, [{ kind: 'md', path: join(dir, 'r.json', 'under-a-file.md') }])).rejects.toThrow(
      /^cannot write the md report to .*under-a-file\.md: .*r\.json is not a directory$/,
    );
  });
  it('one report that cannot be written loses none of the others: each written whole, the failure named', async () => {
    dir ||= await mkdtemp(join(tmpdir(), 'reporters-'));
    await writeFile(join(dir, 'a-file'), 'x');
    const good = join(dir, 'kept', 'r.md');
    const error = await writeReports(report, [
      { kind: 'json', path: join(dir, 'a-file', 'r.json') },
      { kind: 'md', path: good },
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReportsNotWritten);
    const { failures, written } = error as ReportsNotWritten;
    expect(failures).toEqual([expect.stringMatching(/^cannot write the json report to .*a-file\/r\.json: /)]);
    expect(written).toEqual([{ kind: 'md', path: good }]);
    expect(await readFile(good, 'utf8')).toMatch(/^## ❌ idp-conformance: FAIL/);
    // Written beside itself under another name and renamed: no half-written file left behind.
    expect((await readdir(join(dir, 'kept'))).sort()).toEqual(['r.md']);
  });
  // procfs answers mkdir with ENOENT under a directory that exists: Node 20's recursive mkdir tried
  // again for ever (a run or a proxy session hung at its end, its reports never written).
  it.skipIf(process.platform !== 'linux')(
    'a folder the file system will not create is one clear line, not a hang',
    { timeout: 3000 },
    async () => {
      await expect(
        writeReports(report, [{ kind: 'json', path: '/proc/idp-conformance-none/deeper/r.json' }]),
      ).rejects.toThrow(
        /^cannot write the json report to \/proc\/idp-conformance-none\/deeper\/r\.json: \/proc\/idp-conformance-none: /,
      );
    },
  );
});
