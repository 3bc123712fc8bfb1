/**
 * The client's side of a proxy report: a section of its own in JSON (valid against
 * reporters/report.schema.json), the console, Markdown and HTML, apart from the rules (a habit of
 * the client is never a failure of the provider), and inert whatever the traffic's paths hold.
 */
import { describe, expect, it } from 'vitest';
import { createTally, proxyReport } from '../../suites/proxy/tally.js';
import { createFlows, judgeExchange, type Observed } from '../../suites/proxy/judge.js';
import { formatConsole, renderHtml, renderJson, renderMarkdown, validateReport } from '../../reporters/index.js';

const HOSTILE = 'GET /api/v4/<script>alert(1)</script>\u202e\u001b[31m';

function report() {
  const tally = createTally();
  tally.add([{ rule: 'TOK-NO-STORE', ok: true }]);
  tally.add([]);
  tally.note({ habit: 'polls-too-fast', where: 'POST /oauth/token' });
  tally.note({ habit: 'polls-too-fast', where: 'POST /oauth/token' });
  tally.note({ habit: 'builds-page-urls', where: HOSTILE });
  return proxyReport(tally, {
    target: 'http://127.0.0.1:1',
    release: '18.0',
    offering: 'self-managed',
    startedAt: new Date(0),
    traffic: '1 exchange judged; 1 exchange no rule judges; 2 requests the target did not answer (ECONNREFUSED ×2)',
  });
}

describe('the client section of a proxy report', () => {
  it('is in the JSON, valid against the schema, and no rule of the provider', () => {
    const json = JSON.parse(renderJson(report())) as ReturnType<typeof report>;
    expect(validateReport(json)).toEqual([]);
    expect(json.client?.exchanges).toBe(2);
    expect(json.client?.traffic).toMatch(/^1 exchange judged; /);
    expect(json.client?.habits.map((h) => [h.habit, h.count])).toEqual([
      ['polls-too-fast', 2],
      ['builds-page-urls', 1],
    ]);
    expect(json.client?.habits[0].where).toEqual(['POST /oauth/token']);
    expect(json.rules.find((r) => r.id === 'TOK-NO-STORE')?.status).toBe('passed');
    expect(json.rules.filter((r) => r.status === 'failed')).toEqual([]);
    expect(json.summary.failed).toBe(0);
  });

  it('reads in the console, Markdown and HTML, inert', () => {
    const r = report();
    const text = formatConsole(r, { color: false });
    expect(text).toMatch(/The client's side[\s\S]*polls-too-fast \(2×\): the client polled the device grant sooner/);
    const markdown = renderMarkdown(r);
    expect(markdown).toMatch(/### The client's side[\s\S]*- builds-page-urls \(1×\)/);
    const html = renderHtml(r);
    expect(html).toMatch(/<section id="client">[\s\S]*polls-too-fast \(2×\)/);
    // What the console's last line said of the traffic is in the files too (a CI job keeps only those).
    const traffic = '2 requests the target did not answer (ECONNREFUSED ×2)';
    expect(markdown).toMatch(
      new RegExp(`### The client's side[^\\n]*\\n\\n[^\\n]*${traffic.replace(/[()]/g, '\\$&')}`),
    );
    expect(html).toMatch(new RegExp(`<section id="client">.*<p>[^<]*${traffic.replace(/[()]/g, '\\$&')}`));
    // Markup is inert where it would be read as markup; control and bidi characters everywhere.
    for (const out of [markdown, html]) expect(out).not.toContain('<script>alert');
    for (const out of [text, markdown, html]) {
      expect(out).not.toContain('\u202e');
      expect(out).not.toContain('\u001b[31m');
    }
  });

  it('lists the rules the traffic judged and counts the rest, each said as not exercised', () => {
    const r = report();
    const text = formatConsole(r, { color: false });
    const table = text.slice(text.indexOf('Rules ('), text.indexOf('\nArea'));
    expect(table).toMatch(/^TOK-NO-STORE +must .* passed/m);
    // An untested must rule is no line of the proxy's console (257 rows before): counted instead.
    expect(table).not.toMatch(/^AUTH-BEARER-HEADER /m);
    expect(table).toContain(`${r.rules.length - 1} rules the traffic did not exercise (untested)`);
    // Where a rule's reason is said (Markdown's table), it is the traffic's, not a selection's.
    const markdown = renderMarkdown(r);
    expect(markdown).toMatch(/AUTH-BEARER-HEADER.*the traffic did not exercise it/);
    expect(markdown).not.toContain('no selected check proves it');
  });

  it('names the first exchange that showed each habit, by its number, in every format', () => {
    const tally = createTally();
    tally.add([]);
    // Judged as their answers end: exchange 7 may be noted before exchange 4.
    tally.note({ habit: 'polls-too-fast', where: 'POST /oauth/token' }, 7);
    tally.note({ habit: 'polls-too-fast', where: 'POST /oauth/token?page=4' }, 4);
    tally.note({ habit: 'polls-too-fast', where: 'POST /oauth/token' }, 12);
    tally.note({ habit: 'builds-page-urls', where: HOSTILE }, 9);
    const r = proxyReport(tally, { target: 'x', release: '18.0', offering: 'self-managed', startedAt: new Date(0) });
    const json = JSON.parse(renderJson(r)) as typeof r;
    expect(validateReport(json)).toEqual([]);
    expect(json.client?.habits.map((h) => [h.habit, h.count, h.first])).toEqual([
      ['polls-too-fast', 3, { exchange: 4, where: 'POST /oauth/token?page=4' }],
      ['builds-page-urls', 1, { exchange: 9, where: HOSTILE }],
    ]);
    const text = formatConsole(r, { color: false });
    const markdown = renderMarkdown(r);
    const html = renderHtml(r);
    // Markdown's #4 is no live reference to issue 4 (a report posted as a PR comment): split as the rest.
    const number = { text: '#', markdown: String.raw`\#<wbr>`, html: '#' };
    for (const [format, out] of Object.entries({ text, markdown, html })) {
      const sign = number[format as keyof typeof number].replace(/\\/g, '\\\\');
      expect(out).toMatch(
        new RegExp(
          `polls-too-fast \\(3×\\): the client [^\\n]*; first at exchange ${sign}4 \\(POST /oauth/token\\?page=4\\); seen at `,
        ),
      );
      expect(out).toMatch(new RegExp(`builds-page-urls \\(1×\\): [^\\n]*; first at exchange ${sign}9 \\(GET /api/v4/`));
      expect(out).not.toContain('\u202e');
    }
    expect(markdown).not.toMatch(/(?<!&)#\d/);
    for (const out of [markdown, html]) expect(out).not.toContain('<script>alert');
  });

  it("is inert end to end: the client's own paths and query strings, judged, reach no format as markup", () => {
    const tally = createTally();
    const flows = createFlows();
    const page = (target: string): Observed => ({
      method: 'GET',
      target,
      requestHeaders: new Headers(),
      status: 200,
      responseHeaders: new Headers({ 'content-type': 'application/json', 'x-page': '2' }),
      responseBody: Buffer.from('[]'),
      at: 0,
    });
    const script = '<script>alert(1)</script>';
    // Pages never linked, so built: a script in the query string, in the path, a Markdown link and image in the path.
    for (const [n, target] of [
      `/api/v4/projects?page=2&search=${script}`,
      `/api/v4/${script}?page=2`,
      '/api/v4/[x](javascript:alert(1))/![y](http://127.0.0.2/t.png)?page=2&q="><img src=x onerror=alert(1)>',
    ].entries())
      judgeExchange(page(target), flows, (note) => tally.note(note, n + 1));
    tally.add([]);
    const r = proxyReport(tally, { target: 'x', release: '18.0', offering: 'self-managed', startedAt: new Date(0) });
    expect(r.client?.habits.map((h) => [h.habit, h.count, h.first])).toEqual([
      ['builds-page-urls', 3, { exchange: 1, where: 'GET /api/v4/projects' }],
    ]);
    // The query string is never said (it may carry a code or a token); the path is, escaped.
    expect(r.client?.habits[0].where.join(' ')).not.toContain('search=');
    const markdown = renderMarkdown(r);
    const html = renderHtml(r);
    for (const out of [markdown, html]) expect(out).not.toMatch(/<script>alert|<img src=x|"><img/i);
    // No live Markdown link or image in the client's lines (the rules' own links are elsewhere).
    const line = markdown.split('\n').find((l) => l.startsWith('- builds-page-urls'))!;
    expect(line).toContain('javascript:alert');
    expect(line).not.toMatch(/(?<!\\)[[\]]/);
    expect(html).not.toMatch(/href="javascript|src="http:\/\/127\.0\.0\.2/);
  });

  it('says so when none of the habits was seen', () => {
    const tally = createTally();
    tally.add([]);
    const r = proxyReport(tally, { target: 'x', release: '18.0', offering: 'self-managed', startedAt: new Date(0) });
    expect(validateReport(JSON.parse(renderJson(r)))).toEqual([]);
    expect(formatConsole(r, { color: false })).toContain('None of the habits the proxy looks for, in 1 exchanges.');
  });
});
