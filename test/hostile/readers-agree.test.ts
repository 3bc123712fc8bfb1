/**
 * The hand-written readers that replaced patterns (so their work is counted: redos.test.ts) find
 * exactly what the patterns found. THE ORACLES: the patterns and refreshOf as they were before,
 * kept here only, compared on random texts of the characters that matter and on adversarial ones
 * (the pieces the patterns reacted to, repeated and mixed), with fixed seeds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bearerTokens,
  cutJwtStart,
  headerLines,
  isSpace,
  jwtSpans,
  pairHead,
  pairValue,
  userinfoSpans,
} from '../../suites/report/credential-reading.js';
import { REFRESH_MAX_SECONDS, refreshOf } from '../../suites/drivers/html.js';

const JWT = /(?<![\w-])eyJ[\w-]*\.[\w-]*\.[\w-]*/g;
const JWT_CUT = /(?<![\w-])eyJ[\w-]*(?:\.[\w-]*){0,2}$/;
const AUTH_LINE = /\b((?:proxy-)?authorization)(["']?\s*[:=]\s*["']?)(?:([A-Za-z][\w.-]*)([ \t]+))?([^\s"',;)}\]]+)/gi;
const TOKEN_LINE = /\b(private-token|job-token|deploy-token)(["']?\s*[:=]\s*["']?)([^\s"',;)}\]]+)/gi;
const COOKIE_LINE = /\b(set-cookie|cookie)(["']?\s*:\s*["']?)([^\r\n"']+)/gi;
const BEARER = /\b(Bearer)([ \t]+)([A-Za-z0-9\-._~+/]+=*…?)/g;
const USERINFO = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)([^\s/@]+)(@)/gi;
const USERINFO_CUT = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)([^\s/@]+)(@|$)/gi;
const PAIR_HEAD = /(["']?)(?<![\w\-.%[\]/])([A-Za-z_][\w\-.%[\]]*)\1(\s*[:=]\s*)/g;
const PAIR_VALUE = /"((?:[^"\\\r\n]|\\.)*)"|'([^'\r\n]*)'|([^\s"'&,;<>#)}\]]+)/y;
const PAIR_VALUE_CUT = /"((?:[^"\\\r\n]|\\.)*)(?:"|\\?$)|'([^'\r\n]*)(?:'|$)|([^\s"'&,;<>#)}\]]+)/y;

/** refreshOf before it was read by hand. */
function oracleRefreshOf(content: string, maxSeconds = REFRESH_MAX_SECONDS) {
  const trimmed = content.trimStart();
  const delay = /^\d+/.exec(trimmed)?.[0];
  if (delay === undefined || Number(delay) > maxSeconds) return undefined;
  let rest = trimmed
    .slice(delay.length)
    .replace(/^[\d.]*/, '')
    .trimStart();
  if (rest[0] === ';' || rest[0] === ',') rest = rest.slice(1).trimStart();
  const written = rest.replace(/^url\s*=\s*/i, '');
  const quote = written[0] === '"' || written[0] === "'" ? written[0] : '';
  const end = quote ? written.indexOf(quote, 1) : -1;
  const url = (quote ? written.slice(1, end < 0 ? undefined : end) : written).trim();
  return url ? { seconds: Number(delay), url } : undefined;
}

/** Texts of `pieces` and single characters of `alphabet`, mixed: adversarial runs and random noise. */
const texts = (alphabet: string[], pieces: string[], maxLength = 40) =>
  fc
    .array(fc.oneof(fc.constantFrom(...alphabet), fc.constantFrom(...pieces)), { maxLength })
    .map((parts) => parts.join(''));

const RUNS = { numRuns: 2000 };

it("isSpace is the patterns' \\s on every UTF-16 code unit", () => {
  const differ: number[] = [];
  for (let code = 0; code <= 0xffff; code++) {
    const c = String.fromCharCode(code);
    if (isSpace(c) !== /\s/.test(c)) differ.push(code);
  }
  expect(differ).toEqual([]);
});

describe('the JWT readers find what the patterns found', () => {
  const jwtTexts = texts(
    ['e', 'y', 'J', '.', '-', '_', 'a', '9', ' ', '/', '+', '=', 'é'],
    ['eyJ', '-eyJ', 'eyJ.', '..'],
  );
  it('jwtSpans: every token, left to right (fixed seed)', () => {
    fc.assert(
      fc.property(jwtTexts, (text) => {
        const expected = [...text.matchAll(JWT)].map((m) => [m.index, m.index + m[0].length]);
        expect(jwtSpans(text)).toEqual(expected);
      }),
      { ...RUNS, seed: 519 },
    );
  });
  it('cutJwtStart: the token the end interrupts (fixed seed)', () => {
    fc.assert(
      fc.property(jwtTexts, (text) => {
        expect(cutJwtStart(text)).toBe(JWT_CUT.exec(text)?.index);
      }),
      { ...RUNS, seed: 7519 },
    );
  });
});

describe('the header readers find what the patterns found', () => {
  const lines = texts(
    ['a', 'B', '_', '-', '.', ':', '=', '"', "'", ' ', '\t', '\n', '\r', ';', ',', ')', ']', '\u00a0', '…', 'K', 'ſ'],
    [
      'Authorization',
      'proxy-',
      'PRIVATE-TOKEN',
      'job-token',
      'deploy-token',
      'set-cookie',
      'Cookie',
      'Bearer',
      'x ',
      '==',
      'Bearer a=…',
      'Bearer\tz…',
    ],
  );
  const found = (pattern: RegExp, text: string) =>
    [...text.matchAll(pattern)].map((m) => {
      const value = m[m.length - 1];
      return { name: m[1], value: m.index + m[0].length - value.length, end: m.index + m[0].length };
    });
  it('headerLines: authorization, token and cookie lines (fixed seed)', () => {
    fc.assert(
      fc.property(lines, (text) => {
        expect(headerLines(text, 'authorization'), 'authorization').toEqual(found(AUTH_LINE, text));
        expect(headerLines(text, 'token'), 'token').toEqual(found(TOKEN_LINE, text));
        expect(headerLines(text, 'cookie'), 'cookie').toEqual(found(COOKIE_LINE, text));
      }),
      { ...RUNS, seed: 6750 },
    );
  });
  it('bearerTokens: every bare Bearer token (fixed seed)', () => {
    fc.assert(
      fc.property(lines, (text) => {
        expect(bearerTokens(text)).toEqual(found(BEARER, text).map(({ value, end }) => [value, end]));
      }),
      { ...RUNS, seed: 7235 },
    );
  });
});

describe('the userinfo reader finds what the patterns found', () => {
  const urls = texts(
    ['a', 'Z', '9', '+', '.', '-', '_', ':', '/', '@', ' ', '\n', '\u00a0', 'é', 'ſ', 'K'],
    ['://', 'http://', 'u:p@', 'a://:', ':@'],
  );
  it('userinfoSpans: every password, cut or not (fixed seed)', () => {
    fc.assert(
      fc.property(urls, (text) => {
        for (const cut of [false, true]) {
          const expected = [...text.matchAll(cut ? USERINFO_CUT : USERINFO)].map((m) => ({
            start: m.index,
            password: m.index + m[1].length,
            passwordEnd: m.index + m[1].length + m[2].length,
            end: m.index + m[0].length,
          }));
          expect(userinfoSpans(text, cut), `cut ${cut}`).toEqual(expected);
        }
      }),
      { ...RUNS, seed: 3986 },
    );
  });
});

describe('the pair readers find what the patterns found', () => {
  const pairTexts = texts(
    [
      'a',
      'Z',
      '_',
      '9',
      '-',
      '.',
      '%',
      '[',
      ']',
      '/',
      '"',
      "'",
      ':',
      '=',
      ' ',
      '\t',
      '\n',
      '\r',
      '\\',
      '&',
      ';',
      '#',
      ')',
      '\u00a0',
      '\u2028',
      'é',
    ],
    ['token', 'code', '="', "='", '"a":', 'x\\"', 'a[b]'],
  );
  it('pairHead: the first head at or after each position (fixed seed)', () => {
    fc.assert(
      fc.property(pairTexts, (text) => {
        for (let from = 0; from <= text.length; from++) {
          const head = new RegExp(PAIR_HEAD.source, 'g');
          head.lastIndex = from;
          const m = head.exec(text);
          const expected = m && { start: m.index, quote: m[1], name: m[2], separator: m[3], end: head.lastIndex };
          expect(pairHead(text, from) ?? null, `from ${from}`).toEqual(expected);
        }
      }),
      { ...RUNS, seed: 6749 },
    );
  });
  it('pairValue: the value at each position, cut or not (fixed seed)', () => {
    fc.assert(
      fc.property(pairTexts, (text) => {
        for (const cut of [false, true])
          for (let at = 0; at <= text.length; at++) {
            const value = new RegExp((cut ? PAIR_VALUE_CUT : PAIR_VALUE).source, 'y');
            value.lastIndex = at;
            const v = value.exec(text);
            const expected = v && {
              whole: v[0],
              ...(v[1] !== undefined ? { dq: v[1] } : {}),
              ...(v[2] !== undefined ? { sq: v[2] } : {}),
              ...(v[3] !== undefined ? { bare: v[3] } : {}),
              end: value.lastIndex,
            };
            expect(pairValue(text, at, cut) ?? null, `at ${at}, cut ${cut}`).toEqual(expected);
          }
      }),
      { ...RUNS, seed: 7009 },
    );
  });
});

describe('the refresh reader reads what refreshOf read', () => {
  const contents = texts(
    [
      '0',
      '1',
      '5',
      '.',
      ';',
      ',',
      ' ',
      '\t',
      '\n',
      '\u00a0',
      '\u3000',
      '\ufeff',
      '=',
      '"',
      "'",
      'u',
      'R',
      'l',
      '/',
      'x',
    ],
    ['url', 'URL=', '0;url=', "'/a'", '"/b', '11', '1.5'],
  );
  it('on random and adversarial contents, with and without a bound (fixed seed)', () => {
    fc.assert(
      fc.property(contents, fc.constantFrom(REFRESH_MAX_SECONDS, Infinity, 0), (content, max) => {
        expect(refreshOf(content, max)).toEqual(oracleRefreshOf(content, max));
      }),
      { ...RUNS, seed: 8628 },
    );
  });
});
