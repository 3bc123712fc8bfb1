/**
 * Inert text in every format: a report whose every free-text field (ids, titles, messages,
 * exchanges, header names and values, reproduce lines, reasons) carries control and bidi
 * characters and lines shaped like Markdown renders, in the console, HTML, JUnit (both) and
 * Markdown, no such character raw, each written the same way (`\u202e`), and in the Markdown no
 * line outside a fenced block starts with the target's text.
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
import { inert } from '../../suites/report/inert.js';
import type { Report } from '../../suites/report/model.js';
import { fixtureReport } from '../reporters/fixture.js';

/** What the target says: an override, terminal escapes, a bell, a lone CR, isolates, and Markdown. */
const HOSTILE =
  ' \u202etnarg_dilavni\u202c \u001b[2J\u001b]0;title\u0007 \u0000\u007f\u0085\u2028\u200f\r ' +
  '\n# EVIL heading\n> EVIL quote\n- EVIL item\n| EVIL | cell |\n```\nEVIL fence\n\u2066EVIL isolate\u2069\n    EVIL indented\n1. EVIL list';
/** Every character the reports must never carry raw. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

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
];

describe('inert text', () => {
  it('escapes each unsafe character as \\uXXXX, keeps newlines and tabs, a CRLF as a newline', () => {
    expect(inert('a\u202eb\u001bc\u0007d\te\nf\r\ng\rh\u2069')).toBe(
      'a\\u202eb\\u001bc\\u0007d\te\nf\ng\\u000dh\\u2069',
    );
    expect(inert(inert('\u202e'))).toBe('\\u202e');
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
    expect(outside.filter((line) => /^\s*(?:#+|>|[-*+]|\d+\.|\||`{3,}|~{3,})?\s*EVIL/.test(line))).toEqual([]);
    expect(outside.some((line) => line.includes('EVIL heading'))).toBe(true);
  });
});
