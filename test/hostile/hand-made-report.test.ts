/**
 * A report someone made by hand (or one of an older version), read back by `report merge`, is not
 * cut where it was recorded: megabyte messages and header values, a thousand headers, made
 * megabytes of HTML, JUnit, Markdown and console output. Every format now shows a report through
 * boundReport, the bounds a run records with (shownExchange, SHOWN_LINE), in every string of the
 * report (titles, counterexamples, reproduce lines, the diff and client sections: each free-text
 * field of the schema in turn); a run's own report comes out as it went in.
 */
import { describe, expect, it } from 'vitest';
import {
  formatConsole,
  redact,
  renderHtml,
  renderJson,
  renderJunit,
  renderJunitRules,
  renderMarkdown,
} from '../../reporters/index.js';
import { boundReport } from '../../suites/report/bounded.js';
import type { Report } from '../../suites/report/model.js';
import { SHOWN_LINE, describeFailure } from '../../suites/report/cut.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { HOSTILE, fixtureReport } from '../reporters/fixture.js';
import { FIELDS, JWT, RAW, fixture as everyField } from '../reporters/every-field.js';

const MB = 1024 * 1024;
/** Markup, a terminal escape and a bidi override, then a megabyte: inert wherever the cut leaves it. */
const hostile = (size: number) => `${HOSTILE}\u001b[31m\u202e${'m'.repeat(size)}`;

function handMade(): Report {
  const report = fixtureReport();
  const headers = Object.fromEntries(Array.from({ length: 1000 }, (_, n) => [`x-h${n}`, `v${n}`]));
  report.checks.push({
    id: 'hand.made',
    suite: 'hand',
    title: 'made by hand',
    rules: [],
    status: 'failed',
    durationMs: 1,
    message: `${hostile(MB)}\n(2/2) ${hostile(MB)}`,
    failures: [{ message: hostile(MB), broken: [] }],
    exchange: [
      {
        request: { method: 'GET', url: `http://127.0.0.1:3000/${hostile(MB)}`, headers: { 'x-big': hostile(MB) } },
        response: { status: 500, headers: { ...headers, 'x-big': hostile(MB) }, body: hostile(MB) },
      },
    ],
  });
  return report;
}

const RENDER: Record<string, (report: Report) => string> = {
  html: renderHtml,
  junit: renderJunit,
  md: renderMarkdown,
  console: (report) => formatConsole(report, { allRules: true }),
  json: renderJson,
};

describe('a hand-made report with megabyte messages and headers renders bounded', () => {
  const made = handMade();
  const fixture = fixtureReport();

  it.each(Object.keys(RENDER))('%s: bounded, inert, the cut said', (kind) => {
    const render = RENDER[kind];
    const output = render(made);
    // The fixture's own output, and a bounded check more: the messages' lines and the exchange as a run shows them.
    expect(output.length).toBeLessThan(render(fixture).length + 200_000);
    expect(output).toMatch(/more characters/);
    if (kind !== 'md' && kind !== 'console') {
      expect(output).toMatch(/truncated, \d+ bytes/);
      expect(output).toMatch(/more headers? \(\d+ bytes\) left out/);
    }
    // Markup formats escape it (the text formats quote the fixture's own HOSTILE as text).
    if (kind === 'html' || kind === 'junit') expect(output).not.toContain('<script>alert');
    expect(output).not.toMatch(/[\u001b\u202e]/);
  });

  it("leaves a run's own report (redacted, as recorded) as it was, its cut exchanges and messages too", () => {
    const recorded = redact(fixture);
    // What a run records of a target's megabytes: the exchange and message as its redactor cuts them.
    const redactor = createRedactor([]);
    const big = handMade().checks.at(-1)!;
    recorded.checks.push({
      ...big,
      message: redactor.text(describeFailure({ message: big.message!, details: { body: 'b'.repeat(MB) } }, redactor)),
      failures: undefined,
      exchange: big.exchange!.map((e) => redactor.exchange(e)),
    });
    delete recorded.checks.at(-1)!.failures;
    expect(JSON.stringify(recorded).length).toBeLessThan(100_000);
    expect(boundReport(recorded)).toEqual(recorded);
  });
});

describe('a megabyte in any one free-text field renders bounded in every format', () => {
  const FORMATS: Record<string, (report: Report) => string> = {
    ...RENDER,
    'junit-rules': renderJunitRules,
  };
  const plain = everyField((raw) => raw);
  // A megabyte of plain text after the field's own value (the check title's token for 'title'),
  // which stays masked where it is a secret; every other field as it was.
  const swollen = (field: string) =>
    everyField((raw) =>
      raw === (field === 'title' ? JWT : RAW[field as keyof typeof RAW]) ? `${raw} ${hostile(MB)}` : raw,
    );
  const fields = [...FIELDS, 'title'];

  it.each(Object.keys(FORMATS))(
    '%s: at most a bounded line more per place the field is shown, the cut said',
    (kind) => {
      const render = FORMATS[kind];
      const base = render(plain).length;
      // Each place shows at most a line of a message (SHOWN_LINE.characters), a field a few places at most;
      // a value a format shows is shown cut, and says so (a message's line, or an exchange's part).
      const unbounded = fields.filter((field) => {
        const output = render(swollen(field));
        const cutSaid = /more characters|truncated, \d+ bytes/.test(output);
        return output.length - base > 10 * SHOWN_LINE.characters || (output.includes('m'.repeat(1000)) && !cutSaid);
      });
      expect(unbounded).toEqual([]);
    },
  );
});
