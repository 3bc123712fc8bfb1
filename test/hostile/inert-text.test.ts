/**
 * Inert text in every format: a report whose every free-text field (ids, titles, messages,
 * exchanges, header names and values, reproduce lines, reasons) carries control and bidi
 * characters and lines shaped like Markdown renders, in the console, HTML, JUnit (both) and
 * Markdown, no such character raw, each written the same way (`\u202e`), and in the Markdown no
 * line outside a fenced block starts with the target's text. Secrets the target echoes base64 or
 * base64url encoded are masked like the secrets themselves.
 */
import { describe, expect, it } from 'vitest';
import {
  formatConsole,
  renderHtml,
  renderJunit,
  renderJunitRules,
  renderMarkdown,
  terminalSafe,
} from '../../reporters/index.js';
import { renderJson } from '../../reporters/json.js';
import { redact } from '../../suites/report/redact.js';
import { inert } from '../../suites/report/inert.js';
import { failureText } from '../../suites/vitest.js';
import { createRedactor } from '../../suites/runner/redact.js';
import type { Report } from '../../suites/report/model.js';
import { fixtureReport } from '../reporters/fixture.js';

/** What the target says: an override, terminal escapes, a bell, a lone CR, isolates, and Markdown. */
const HOSTILE =
  ' \u202etnarg_dilavni\u202c \u001b[2J\u001b]0;title\u0007 \u0000\u007f\u0085\u2028\u200f\r ' +
  ' \u200bZW\u2060WJ\ufeffBOM\u00adSHY\u{E0049}\u{E0047}TAG ' +
  '\n# EVIL heading\n> EVIL quote\n- EVIL item\n| EVIL | cell |\n```\nEVIL fence\n\u2066EVIL isolate\u2069\n    EVIL indented\n1. EVIL list';
/**
 * Every character the reports must never carry raw; but U+FE0F after an emoji of the harness's own
 * ("⚠️ warned", "♻️", "⏭️" in Markdown), which asks for the emoji's picture (inert escapes the target's).
 */
const RAW =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\p{Default_Ignorable_Code_Point}](?<!\p{Extended_Pictographic}\ufe0f)/u;

/** Fields the renderers read as vocabulary (statuses, levels, the tool, dates) stay as they are. */
const VOCABULARY = new Set(['status', 'level', 'tool', 'startedAt', 'reason']);

function hostile(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return VOCABULARY.has(key) ? value : value + HOSTILE;
  if (Array.isArray(value)) return value.map((v) => hostile(v, key));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [key === 'headers' ? `x-${k}${HOSTILE.slice(0, 20)}` : k, hostile(v, k)]),
    );
  return value;
}

const report = () => hostile(fixtureReport()) as Report;

const FORMATS: [string, (r: Report) => string][] = [
  ['console', (r) => formatConsole(r, { allRules: true })],
  ['console in colour', (r) => formatConsole(r, { allRules: true, color: true }).replace(/\u001b\[\d+m/g, '')],
  ['html', renderHtml],
  ['junit', renderJunit],
  ['junit-rules', renderJunitRules],
  ['md', renderMarkdown],
  // What `vitest` prints of a check run through the suites' glue (IDP_TARGET): a terminal's too.
  ['vitest glue', (r) => r.checks.map(failureText).join('\n')],
];

describe('inert text', () => {
  it('escapes each unsafe character as \\uXXXX, keeps newlines and tabs, a CRLF as a newline', () => {
    expect(inert('a\u202eb\u001bc\u0007d\te\nf\r\ng\rh\u2069')).toBe(
      'a\\u202eb\\u001bc\\u0007d\te\nf\ng\\u000dh\\u2069',
    );
    expect(inert(inert('\u202e'))).toBe('\\u202e');
    expect(inert('a\u200bb\u00adc\u{E0041}d\ufeff')).toBe('a\\u200bb\\u00adc\\u{e0041}d\\ufeff');
    expect(terminalSafe('x\u001b[31my')).toBe('x\\u001b[31my');
  });

  it.each(FORMATS)('%s: no control or bidi character raw, each written as \\uXXXX', (_, render) => {
    const out = render(report());
    const raw = RAW.exec(out);
    expect(
      raw && `U+${raw[0].charCodeAt(0).toString(16)} at ${JSON.stringify(out.slice(raw.index - 40, raw.index + 10))}`,
    ).toBeNull();
    expect(out).toContain('\\u202etnarg_dilavni');
    expect(out).toContain('\\u001b[2J');
    expect(out).toContain('\\u200bZW\\u2060WJ\\ufeffBOM\\u00adSHY\\u{e0049}\\u{e0047}TAG');
  });

  it('json: DEL, C1, bidi, U+2028/9 and default-ignorables written as \\uXXXX, still valid JSON of the same data', () => {
    const hostileReport = report();
    const out = renderJson(hostileReport);
    const raw = RAW.exec(out);
    expect(raw && `U+${raw[0].codePointAt(0)!.toString(16)} at ${raw.index}`).toBeNull();
    expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(redact(hostileReport))));
    expect(out).toContain('\\u202etnarg_dilavni');
    expect(out).toContain('\\u0085\\u2028\\u200f');
    expect(out).toContain('\\udb40\\udc49\\udb40\\udc47TAG');
  });

  it('json: a lone surrogate the target spelled becomes U+FFFD, so strict JSON readers accept the report', () => {
    const spelled = (value: unknown): unknown =>
      typeof value === 'string'
        ? `${value}\ud800 x\udc00 pair\ud83d\ude00 end\udbff`
        : Array.isArray(value)
          ? value.map(spelled)
          : value && typeof value === 'object'
            ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, spelled(v)]))
            : value;
    const out = renderJson(spelled(fixtureReport()) as Report);
    // No unpaired surrogate escape is written (JSON.stringify writes a lone one as \udXXX).
    expect(out).not.toMatch(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/i);
    expect(out).toContain('\ufffd x\ufffd pair\ud83d\ude00 end\ufffd');
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    const strings: string[] = [];
    JSON.parse(out, (_k, v) => (typeof v === 'string' && strings.push(v), v));
    expect(strings.filter((v) => lone.test(v))).toEqual([]);
  });

  it('md: nothing raw inside fenced blocks either, and no line outside one starts with the target’s text', () => {
    const text = renderMarkdown(report());
    expect(RAW.test(text)).toBe(false);
    const lines = text.split('\n');
    let fence: string | undefined;
    const outside: string[] = [];
    for (const line of lines) {
      const marker = /^(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence) {
        if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
          fence = undefined;
        continue;
      }
      if (marker) {
        fence = marker;
        continue;
      }
      outside.push(line);
    }
    expect(fence).toBeUndefined();
    // A line the target's text begins (after at most a block marker of its own): a heading, a quote,
    // a list item, a table row, a fence or an indented block of the target's making.
    expect(outside.filter((line) => /^\s*(?:(?:#+|>|[-*+]|\d+\.|\||`{3,}|~{3,})\s*)?EVIL/.test(line))).toEqual([]);
    expect(outside.some((line) => line.includes('EVIL heading'))).toBe(true);
  });
});

/** The Markdown outside fenced blocks and code spans: the text a code host links mentions in. */
function markdownProse(text: string): string {
  const prose: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^(`{3,})/.exec(line)?.[1];
    if (fence) {
      if (line.trim() === fence) fence = undefined;
    } else if (marker) fence = marker;
    else
      prose.push(
        line
          .split('`')
          .filter((_, i) => i % 2 === 0)
          .join(''),
      );
  }
  return prose.join('\n');
}

describe('md: the target mentions no one', () => {
  it('writes no live @name or #123 of the target in prose, tables or summaries; the words stay', () => {
    const words = "@security-team please look: fixes #12, GH-34 and gh-5, see org/repo#3, mail a@b.io, it's <ok>";
    const base = fixtureReport();
    const input: Report = {
      ...base,
      checks: base.checks.map((check) => ({ ...check, message: `${check.message} ${words}` })),
    };
    const prose = markdownProse(renderMarkdown(input));
    expect(prose).toContain('security-team please look');
    expect(prose).not.toMatch(/@security-team|#12\b|repo\\?#3|\bGH-\d/i);
    // The entity of an apostrophe in a <summary> stays an entity.
    expect(prose).not.toMatch(/&#<wbr>/);
  });
});

/** The cells of a GFM table row as GitHub splits it: a backslash escapes the character after it, any other `|` divides. */
function cellsOf(row: string): number {
  let cells = 0;
  for (let i = 0; i < row.length; i++) {
    if (row[i] === '\\') i++;
    else if (row[i] === '|') cells++;
  }
  return cells - 1;
}

describe('md: a table row keeps its cells', () => {
  it('a backslash before a pipe in a code span (a check id `a\\|b`) splits no cell', () => {
    const base = fixtureReport();
    const odd = 'grants.a\\|b\\\\|c\\';
    const input: Report = {
      ...base,
      rules: base.rules.map((rule) => ({ ...rule, status: 'failed', checks: [...rule.checks, odd] })),
    };
    const rows = renderMarkdown(input)
      .split('\n')
      .filter((line) => line.startsWith('| ') && line.includes('grants.a'));
    expect(rows.length).toBeGreaterThan(0);
    // Rule, Status, Level, Origin, Title, Checks, First failure.
    for (const row of rows) expect(cellsOf(row), row).toBe(7);
  });
});

describe('reports link nowhere the target chose', () => {
  /** URLs a target hands out (a Location, a Link, a verification_uri), bare and as Markdown or HTML would link them. */
  const URLS =
    ' https://evil.example/beacon?t=1 www.evil.example/w javascript:alert(1) data:text/html,x' +
    ' ![b](https://evil.example/i.png) [x](javascript:alert(2)) <https://evil.example/a> <img src=https://evil.example/i>';
  const base = fixtureReport();
  const input: Report = {
    ...base,
    target: base.target + URLS,
    checks: base.checks.map((check) => ({ ...check, message: `${check.message}${URLS}` })),
    // A saved report is data: an id that would close a Markdown link early.
    rules: base.rules.map((rule, i) => (i ? rule : { ...rule, id: `${rule.id})www.evil.example/r` })),
  };

  it('md: no live link, autolink or image of the target’s URLs in prose, tables or summaries; the words stay', () => {
    // Our links to the rule catalogue go; what is left links nothing.
    const prose = markdownProse(renderMarkdown(input)).replace(/\]\(rules\.md#[\w%.-]+\)/g, ']');
    expect(prose).toContain('evil.example/beacon');
    // GitHub links a bare http(s):// or www. URL on its own (GFM autolinks); [..](..) and ![..](..) are links and images.
    expect(/(?:https?:\/\/|www\.)evil|<(?:https?:|img)|(?<!\\)\]\(/i.exec(prose)?.[0]).toBeUndefined();
  });

  it('html: every href is an anchor of the report or the rule catalogue, and nothing loads', () => {
    const out = renderHtml(input);
    const hrefs = [...out.matchAll(/\bhref\s*=\s*"([^"]*)"/gi)].map((m) => m[1]);
    expect(hrefs.length).toBeGreaterThan(0);
    expect(hrefs.filter((href) => !/^(#|rules\.html#)[\w%.-]+$/.test(href))).toEqual([]);
    expect(out).not.toMatch(/<img\b|<[a-z][^>]*\ssrc\s*=/i);
  });

  it.each([
    ['junit', renderJunit],
    ['junit-rules', renderJunitRules],
  ])('%s: the URLs are escaped text, no markup', (_, render) => {
    const out = render(input);
    expect(out).toContain('evil.example/beacon');
    expect(out).not.toMatch(/<img|<https/);
  });
});

/** Every base64 or base64url run in `text`, decoded at each of its four alignments. */
function decodedRuns(text: string): string[] {
  const out: string[] = [];
  for (const run of text.match(/[A-Za-z0-9+/_-]{6,}={0,2}/g) ?? [])
    for (let at = 0; at < 4; at++) {
      let chunk = run.slice(at);
      while (chunk.endsWith('=')) chunk = chunk.slice(0, -1);
      out.push(Buffer.from(chunk.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1'));
    }
  return out;
}

describe('secrets the target echoes encoded', () => {
  const TOKEN = 'glpat-Zq9xR4tLm2Wv8KsYp0Dh';
  const CLIENT = 'app-7f3c91';
  const SECRET = 'gloas-cS7mN2bQ8vX4kL9wE1tY';
  const PASSWORD = 'Corr3ct-H0rse-Battery';
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const b64url = (s: string) => Buffer.from(s).toString('base64url');

  it('are masked in base64 and base64url, at any offset, wherever the report shows them', () => {
    const redactor = createRedactor([PASSWORD, SECRET, `${CLIENT}:${SECRET}`]);
    const form = `grant_type=password&username=root&password=${PASSWORD}&client_id=${CLIENT}`;
    const request = {
      method: 'POST',
      url: 'http://127.0.0.1:1/oauth/token',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    };
    redactor.learn({ request });
    const echoes = [
      b64(`Bearer ${TOKEN}`),
      b64url(`Bearer ${TOKEN}`),
      b64(`${CLIENT}:${SECRET}`),
      b64url(`x${CLIENT}:${SECRET}`),
      b64(form),
      b64url(`ab${form}`),
    ];
    const exchange = redactor.exchange({
      request,
      response: {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-echo': echoes.join(' ') },
        body: JSON.stringify({ seen: echoes, note: `you sent ${echoes[0]}` }),
      },
    });
    const message = redactor.text(`the target said ${echoes.join(', ')}`);
    const shown = JSON.stringify(exchange) + message;
    for (const decoded of decodedRuns(shown))
      for (const secret of [TOKEN, SECRET, PASSWORD]) expect(decoded).not.toContain(secret);
    // The harness's own words stay.
    expect(message).toMatch(/^the target said /);
  });
});
