/**
 * Text a target sends is read in linear time: the redaction (`-eyJ` repeated used to make the JWT
 * pattern quadratic: a 256 KB userinfo body took 33.7 s), the form parser (an unclosed `<form>`
 * or `<button>` repeated), a refresh's content and the challenge reader (a WWW-Authenticate of `"`
 * then `\"` repeated, a quote never closed: 64 KB took 2.5 s, and a header may hold 256 KB). Each
 * reader counts the characters it passes over (tagReading, refreshReading, challengeReading,
 * credentialReading: a count, not a clock), and a LARGE hostile text may cost at most a few passes.
 */
import { describe, expect, it } from 'vitest';
import {
  metaRefresh,
  openingTags,
  pageText,
  parseForms,
  parseLinks,
  refreshReading,
  submitsItself,
  tagReading,
} from '../../suites/drivers/html.js';
import { challengeReading, namesError } from '../../suites/shared/challenge.js';
import type { HttpResponse } from '../../suites/types.js';
import { credentialReading } from '../../suites/report/credential-reading.js';
import { redactText } from '../../suites/report/redact.js';
import { createRedactor, RECORD_LIMIT } from '../../suites/runner/redact.js';

const LARGE = 64 * 1024;

const repeat = (unit: string) => (length: number) => unit.repeat(Math.ceil(length / unit.length));

/**
 * The readers' work counted, not timed: the characters they pass over for a LARGE text, at most
 * MAX_PASSES passes (the comments' and the tags' make two). Reading on from each opening again (a
 * `<form>` never closed searched for its end from every `<form>`, a JWT read from every `eyJ` of a
 * run) counts thousands of passes.
 */
function passes(counter: { steps: number }, read: (text: string) => unknown, text: string): number {
  // Another page first: each reader here strips this one of its comments itself.
  pageText('<p>another page</p>');
  counter.steps = 0;
  read(text);
  return counter.steps / text.length;
}
const MAX_PASSES = 3;

const exchangeOf = (body: string) => ({
  request: { method: 'GET', url: 'http://127.0.0.1:1/oauth/userinfo', headers: {} },
  response: { status: 200, headers: { 'content-type': 'text/plain' }, body },
});

/**
 * The redaction's readers (credential-reading.ts: the Authorization, token and cookie lines, bare
 * Bearer tokens, URL passwords, JWTs, pairs) look at each character once, the pairs' a value and a
 * name after it again: eight passes of hostile text at most, ten allowed. Quadratic is thousands.
 */
const MAX_REDACTION_PASSES = 10;

describe('redaction reads hostile text in linear time (counted)', () => {
  it.each([
    ['-eyJ repeated (a JWT start after every dash)', repeat('-eyJ')],
    ['eyJ. repeated', repeat('eyJ.')],
    ['one long word', repeat('a')],
    ['token="…', (n: number) => 'token="' + 'a'.repeat(n)],
  ])('redactText: %s', (_name, attack) => {
    // Cut or not (a text cut at its end reads a JWT or a quote the end interrupts too).
    for (const cut of [false, true])
      expect(
        passes(credentialReading, (text) => redactText(text, { cut }), attack(LARGE)),
        `cut ${cut}`,
      ).toBeLessThanOrEqual(MAX_REDACTION_PASSES);
  });

  it('an exchange is cut before it is redacted: a body is read as far as RECORD_LIMIT, however long', () => {
    const redactor = createRedactor(['a-configured-secret']);
    const read = (length: number) => {
      credentialReading.steps = 0;
      redactor.exchange(exchangeOf(repeat('-eyJ')(length)));
      return credentialReading.steps;
    };
    const large = read(4 * LARGE);
    expect(4 * LARGE).toBeGreaterThan(MAX_REDACTION_PASSES * RECORD_LIMIT);
    // Both cut to RECORD_LIMIT first: the same characters read, a few passes over the cut at most.
    expect(read(16 * LARGE)).toBe(large);
    expect(large).toBeLessThanOrEqual(MAX_REDACTION_PASSES * RECORD_LIMIT);
  });
});

describe('the form parser reads hostile pages in linear time (counted)', () => {
  it.each([
    ['<form> never closed', repeat('<form>')],
    ['<button> never closed', repeat('<form><button>')],
    ['<input never closed', repeat('<form><input')],
    ['< repeated', repeat('<')],
  ])('%s', (_name, attack) => {
    expect(passes(tagReading, parseForms, attack(LARGE))).toBeLessThanOrEqual(MAX_PASSES);
  });

  it.each([
    ['<!-- never closed, repeated', repeat('<!--')],
    ['<!--> repeated', repeat('<!--><a href=x>')],
    ['<script> never closed, repeated', repeat('<script>')],
    ['<script repeated, no >', repeat('<script ')],
    ['-- repeated in one comment', (n: number) => `<!--${'-'.repeat(n)}`],
  ])('comments: %s (parseForms, pageText, parseLinks)', (_name, attack) => {
    for (const [name, read] of [
      ['parseForms', parseForms],
      ['pageText', pageText],
      ['parseLinks', parseLinks],
    ] as const)
      expect(passes(tagReading, read, attack(LARGE)), name).toBeLessThanOrEqual(MAX_PASSES);
  });

  // A form_post's one form, its button in <noscript>, the rest of the page the attack.
  const formPost = parseForms('<form><noscript><button>Continue</button></noscript></form>')[0];
  it.each([
    ['<!-- never closed, repeated', repeat('<!--')],
    ['<script> never closed, repeated', repeat('<script>')],
    ['<noscript> repeated', repeat('<noscript>')],
  ])('submitsItself: %s', (_name, attack) => {
    expect(passes(tagReading, (page) => submitsItself(page, formPost), attack(LARGE))).toBeLessThanOrEqual(MAX_PASSES);
  });

  // Tags of a page no refresh is in: read in one pass.
  it.each([
    ['<meta repeated', repeat('<meta http-equiv=refresh content=0 ')],
    ['<script> never closed, repeated', repeat('<script>')],
    ['<textarea> closed, repeated', repeat('<textarea></textarea>')],
  ])('metaRefresh: %s', (_name, attack) => {
    expect(passes(tagReading, metaRefresh, attack(LARGE))).toBeLessThanOrEqual(MAX_PASSES);
  });

  // A refresh's content of spaces, or a quote never closed: its tag and its content read a few times at most.
  it.each([
    ['a refresh of spaces', (n: number) => `<meta http-equiv="refresh" content="0${' '.repeat(n)}x">`],
    ['a quote never closed', (n: number) => `<meta http-equiv="refresh" content="0;url='${' '.repeat(n)}">`],
  ])('metaRefresh: %s', (_name, attack) => {
    for (const counter of [tagReading, refreshReading])
      expect(passes(counter, metaRefresh, attack(LARGE))).toBeLessThanOrEqual(MAX_PASSES);
  });
});

describe('the challenge reader reads a hostile WWW-Authenticate in linear time (counted)', () => {
  const refusal = (header: string) =>
    ({ status: 403, headers: new Headers({ 'www-authenticate': header }), text: '' }) as HttpResponse;
  it.each([
    ['a quote never closed, of escaped quotes', (n: number) => '"' + '\\"'.repeat(n / 2)],
    ['quotes and escapes', repeat('"\\')],
    ['a name and `="` repeated, never closed', repeat('a="')],
    ['names without `=`, blanks between', repeat('a  ')],
  ])('%s', (_name, attack) => {
    const read = (header: string) => namesError(refusal(header), 'insufficient_scope');
    expect(passes(challengeReading, read, attack(LARGE))).toBeLessThanOrEqual(MAX_PASSES);
  });
});

/**
 * A tag reads its quoted attribute values whole (a `<` or `>` in one is text), so a quote never
 * closed may run on to the page's end: the reader must still pass over each character once, not
 * scan on from each `<` again. Counted, not timed: the characters the tag reader passes over
 * (tagReading.steps) for a 256 KB page of unbalanced quotes, against a generous bound of three
 * passes (the comments' and the reader's make two). A reader that reads a tag never closed as no
 * tag and reads on from its name counted 400 to 1,400 passes on a 16 KB page of these.
 */
describe('the tag reader passes over a page of unbalanced quotes a few times at most, counted', () => {
  const SIZE = 256 * 1024;
  const formPost = parseForms('<form><noscript><button>Continue</button></noscript></form>')[0];
  const readers: Array<[string, (page: string) => unknown]> = [
    ['parseForms', parseForms],
    ['pageText', (page) => pageText(page, { shown: true })],
    ['parseLinks', parseLinks],
    ['openingTags', (page) => [...openingTags(page)]],
    ['metaRefresh', metaRefresh],
    ['submitsItself', (page) => submitsItself(page, formPost)],
  ];
  it.each([
    ['a double quote never closed, then tags', (n: number) => `<div title="${'<a href=x>'.repeat(n / 10)}`],
    ['quoted values that hold tags, alternating quotes', repeat(`<div title="x'<a>" data-y='">'>text `)],
    ['= and a quote, no closing quote, repeated', repeat('<a b="')],
    ["= and ' repeated in one tag", (n: number) => `<a ${"='".repeat(n / 2)}`],
    ['= then spaces repeated, unquoted values', repeat('<a b=   c  =   d ')],
    ['quotes outside values', repeat('<a "x" \'y\' title="z>')],
    ["= and ' repeated, a tag at each", (n: number) => '<a b=' + "<a b='".repeat(n / 6)],
    // Names HTML allows past [\w-] (review 19): a name runs to white space, `/` or `>`.
    ['dotted names holding a quote never closed', repeat('<my-el.x title="<a:b ')],
    ['names of `<` and letters, never closed', repeat('<a<x-é')],
    ['quotes inside unquoted values', repeat("<a href=/h?t='x ")],
  ])('%s', (_name, attack) => {
    const page = attack(SIZE);
    for (const [name, read] of readers) {
      // Another page first: each reader here strips this one of its comments itself.
      pageText('<p>another page</p>');
      tagReading.steps = 0;
      read(page);
      expect(tagReading.steps, name).toBeLessThanOrEqual(3 * page.length);
    }
  });
});

describe('a page read by several readers is stripped of its comments once (counted)', () => {
  it('a second reader of the same page passes over it once, the first twice (its comments, then its tags)', () => {
    const page = '<!-- c --><form action=/x><input name=a value="1"><button>Go</button></form><a href=/l>l</a>'.repeat(
      999,
    );
    pageText('<p>another page</p>');
    const count = (read: () => unknown) => {
      tagReading.steps = 0;
      read();
      return tagReading.steps;
    };
    const first = count(() => parseForms(page));
    const second = count(() => parseLinks(page));
    // Before, each reader stripped the page again: the second counted as much as the first.
    expect(second).toBeLessThan(first);
    expect(first - second).toBeGreaterThanOrEqual(page.length / 2);
  });
});
