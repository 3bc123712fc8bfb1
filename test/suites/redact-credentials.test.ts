/**
 * Review 13: what the run's redactor takes for a credential. A value the target issued under a
 * secret name is one whatever its shape, unless it is the harness's own text; the config's
 * secrets are masked whatever their length.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ownWords, readOwnText, readWords } from '../../suites/runner/own-words.js';
import { createRedactor, userCodeMasking, userCodePattern } from '../../suites/runner/redact.js';
import { credentialReading, maskCode } from '../../suites/report/credential-reading.js';
import { validateTargetConfig } from '../../suites/target/config.js';
import { formatConsole, renderHtml, renderJson, renderJunit, renderMarkdown } from '../../reporters/index.js';
import { fixtureReport } from '../reporters/fixture.js';

const SEED = 20240517;
const BASE = 'http://127.0.0.1:47200';

/** A redactor that met `issued` as a token response's members. */
function issuing(issued: Record<string, string>, own: Array<string | number> = [SEED, BASE]) {
  const r = createRedactor([], own);
  r.learn({
    request: { method: 'POST', url: `${BASE}/oauth/token`, headers: {}, body: 'grant_type=device_code' },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(issued) },
  });
  return r;
}

/** A redactor that sent `code` back as a device page's user code (a form the harness posted). */
function sentBack(code: string) {
  const r = createRedactor([], [SEED, BASE]);
  r.learn({
    request: {
      method: 'POST',
      url: `${BASE}/oauth/device`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `user_code=${encodeURIComponent(code)}`,
    },
  });
  return r;
}

describe('real credential shapes the target issued are masked wherever they turn up (review 13, item 5)', () => {
  it.each([
    ['9 letters A-Z', 'ELSUCARVH'],
    ['A-Z 4-5', 'EZBM-IRCDH'],
    ['lower-case 4-4', 'avvy-gdde'],
    ['A-Z 3-3-3', 'WEG-XIZ-ZPU'],
    ['Entra-style 9 of A-Z0-9', 'AAEZYXEVJ'],
    ['8 letters of random case', 'TeKoVuRa'],
    ['lower-case 8', 'kefowaxu'],
    ['lower-case 16', 'lirabotemanusoke'],
  ])('%s (%s)', (_shape, code) => {
    const r = issuing({ user_code: code, access_token: code });
    expect(r.text(`the page said ${code} here`)).not.toContain(code);
  });

  it('a device user code is masked in the device page body and in the message quoting it', () => {
    const r = issuing({ device_code: 'dc_EZBM-IRCDH', user_code: 'EZBM-IRCDH' });
    const page = r.exchange({
      request: { method: 'GET', url: `${BASE}/oauth/device`, headers: {} },
      response: {
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: '<p>Confirm the code EZBM-IRCDH shown on your device</p>',
      },
    });
    expect(page.response?.body).toBe('<p>Confirm the code … shown on your device</p>');
    expect(r.text('the device page did not accept the user code EZBM-IRCDH')).toBe(
      'the device page did not accept the user code …',
    );
  });

  it('random tokens of common formats, issued or sent back, are masked (fixed seed)', () => {
    const chars = (alphabet: string, min: number, max = min) =>
      fc.string({ unit: fc.constantFrom(...alphabet), minLength: min, maxLength: max });
    const AZ = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const groups = (alphabet: string) =>
      fc.array(chars(alphabet, 3, 5), { minLength: 2, maxLength: 3 }).map((parts) => parts.join('-'));
    const issued = fc.oneof(
      chars(`${AZ}${AZ.toLowerCase()}0123456789-_`, 8, 43),
      chars('0123456789abcdef', 32, 64),
      chars(AZ, 8, 10),
      chars(AZ.toLowerCase(), 8, 16),
      chars(`${AZ}0123456789`, 8, 12),
      groups(AZ).filter((code) => code.length >= 8),
      groups(AZ.toLowerCase()).filter((code) => code.length >= 8),
      groups(`${AZ}0123456789`).filter((code) => code.length >= 8),
      chars('0123456789', 8),
    );
    fc.assert(
      fc.property(issued, (token) => {
        const r = issuing({ access_token: token });
        expect(r.text(`the page said ${token} here`)).not.toContain(token);
      }),
      { seed: 13, numRuns: 400 },
    );
    fc.assert(
      fc.property(chars('0123456789', 6, 8), (code) => {
        expect(sentBack(code).text(`the page said ${code} here`)).not.toContain(code);
      }),
      { seed: 13, numRuns: 100 },
    );
  });
});

describe("a target cannot blank the harness's own words by issuing them as credentials (review 13, item 4)", () => {
  const LINE = `POST /oauth/token answered W (application/json, 127.0.0.1:47200, 2 retries, ${SEED})`;
  const SENTENCES = [
    LINE,
    'nothing was seen; the check did not finish',
    'expected status 401 within 15000 ms (OIDC Core), text/html from api/v4/user over HTTP/1.1',
    `npx idp-conformance run --check grants.state-unchanged --seed ${SEED} --target ${BASE}`,
  ];

  it.each([
    'oauth/token',
    '/oauth/token',
    '127.0.0.1',
    '127.0.0.1:47200',
    BASE,
    '2 retries',
    String(SEED),
    'nothing was seen',
    'did not finish',
    'status 401',
    '15000 ms',
    'application/json',
    'text/html',
    'api/v4/user',
    'OIDC Core',
    'HTTP/1.1',
    'grants.state-unchanged',
    'Expected',
  ])('issued %j, sent back too: every sentence survives', (word) => {
    const r = issuing({ access_token: word, refresh_token: word, id_token: word, user_code: word });
    r.learn({
      request: { method: 'GET', url: `${BASE}/api/v4/user`, headers: { authorization: `Bearer ${word}` } },
    });
    r.remember(word);
    for (const sentence of SENTENCES) expect(r.text(sentence)).toBe(sentence);
  });

  it("the target's own host and the seed are the run's words only when the run says so", () => {
    const host = 'login.idp-vendor.example';
    const seed = '31415926';
    const line = `GET https://${host}/authorize (seed ${seed})`;
    expect(issuing({ access_token: host, refresh_token: seed }, [seed, `https://${host}`]).text(line)).toBe(line);
    // Another run's host and seed are values the target chose like any other: masked.
    expect(issuing({ access_token: host, refresh_token: seed }, [SEED, BASE]).text(line)).not.toContain(seed);
  });
});

describe("the config's secrets are masked whatever their length (review 13, item 6)", () => {
  it.each([
    ['abc12', 'wrong password abc12', 'wrong password …'],
    ['12345', 'pin 12345 refused', 'pin … refused'],
    ['pass', 'the word passes', 'the word …es'],
    ['ab1', 'password ab1, not ab12 or cab1', 'password …, not ab12 or cab1'],
    ['x', 'user x signed in; max 1', 'user … signed in; max 1'],
  ])('%j in %j', (secret, text, shown) => {
    expect(createRedactor([secret]).text(text)).toBe(shown);
  });

  it('a short one in an exchange body is masked too', () => {
    const shown = createRedactor(['abc12']).exchange({
      request: { method: 'POST', url: `${BASE}/users/sign_in`, headers: {}, body: 'pw is abc12' },
    });
    expect(shown.request.body).toBe('pw is …');
  });
});

describe("the harness's own words are the strings its modules write", () => {
  it('strings are read, comments are not (they cite tokens reviews found), a missing folder is none', () => {
    const root = mkdtempSync(join(tmpdir(), 'own-words-'));
    try {
      mkdirSync(join(root, 'suites'));
      writeFileSync(
        join(root, 'suites', 'checks.js'),
        [
          "// the token 'zqxjvwkp' was shown whole",
          '/* and `bcdfghjk` too */',
          "const a = 'answered Expected'; const b = `at ${'api/v4'}`;",
        ].join('\n'),
      );
      writeFileSync(join(root, 'suites', 'checks.test.js'), "const c = 'fromatest';");
      expect([...readWords(root)].sort()).toEqual(['answered', 'api', 'at', 'expected', 'v4']);
      // Each string whole too, lower-cased (a template as written), and the segments and tails of one with `/`.
      expect([...readOwnText(root).literals].sort()).toEqual([
        'answered expected',
        "at ${'api",
        "at ${'api/v4'}",
        "v4'}",
      ]);
    } finally {
      rmSync(root, { recursive: true });
    }
  });

  it("this harness's: its words, not a token its comments cite", () => {
    const words = ownWords();
    for (const word of ['expected', 'oauth', 'token', 'retries', 'finish', 'application', 'json'])
      expect(words.has(word), word).toBe(true);
    // suites/runner/redact.ts's comments cite the user codes `ELSUCARVH` and `EZBM-IRCDH`.
    for (const cited of ['elsucarvh', 'ezbm', 'ircdh']) expect(words.has(cited), cited).toBe(false);
  });
});

describe('review 14, item 5: what the harness took for its own text', () => {
  it.each([
    ['Cyrillic letters', 'секретныйключ'],
    ['Cyrillic around a harness word', 'ключ-token-доступа'],
    ['CJK', '秘密のトークン値です'],
    ['Latin letters with diacritics', 'ÄÖÜäöüßÄÖÜ'],
  ])('a value with non-ASCII letters is a credential (%s)', (_shape, token) => {
    const r = issuing({ access_token: token });
    const shown = r.text(`GET /api/v4/user with ${token} echoed on a page`);
    expect(shown).not.toContain(token);
    expect(shown).toMatch(/^GET \/api\/v4\/user with \S*… echoed on a page$/u);
  });

  it.each([
    'user:48291375',
    'session:1234567890123',
    'code.9876543210',
    'v4/83746529120',
    '12.34.56.78',
    '1234:5678:9012',
  ])("a long number after `.`, `:` or `/`, or numbers alone, are the target's (%j)", (token) => {
    const r = issuing({ access_token: token });
    const shown = r.text(`the page said ${token} here`);
    expect(shown).not.toContain(token);
    expect(shown).toMatch(/^the page said \S*… here$/);
  });

  it.each(['HTTP/1.1', 'api/v4/user', '127.0.0.1:47200', '127.0.0.1', `localhost:47200`])(
    "a short number after `.`, `:` or `/` with the harness's words, or the run's own address, is not (%j)",
    (word) => {
      const line = `GET ${word} answered`;
      expect(issuing({ access_token: word }, [SEED, BASE, 'http://localhost:47200']).text(line)).toBe(line);
    },
  );

  it("a learned number or date is masked where it stands alone, never inside the harness's longer numbers", () => {
    const r = createRedactor([], [SEED, BASE]);
    r.learn({
      request: {
        method: 'POST',
        url: `${BASE}/oauth/token`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=x&csrf_token=1048576',
      },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ access_token: '2026-11-27' }),
      },
    });
    const harness = 'response truncated, 10485760 bytes; started 2026-11-27T05:28:58Z';
    expect(r.text(harness)).toBe(harness);
    const alone = r.text('csrf 1048576 sent back; token "2026-11-27" accepted');
    expect(alone).not.toMatch(/1048576|2026-11-27/);
    expect(alone).toMatch(/^csrf \S*… sent back; token "\S*…" accepted$/);
  });
});

describe('review 15: what the config vouches for', () => {
  it('a long run of letters and digits in a config value (a redirect URI query) vouches for no token', () => {
    const own = [SEED, BASE, 'https://app.test/cb?key=Zq9Vv8Ww7Uu6', 'website-prod'];
    const r = issuing({ access_token: 'Zq9Vv8Ww7Uu6', refresh_token: 'website-prod' }, own);
    // The token equal to the query value is learned (before, the config's run vouched for it); a
    // name of the config is still its own, never blanked.
    expect(r.text('later: Zq9Vv8Ww7Uu6 and website-prod')).toBe('later: Zq9V… and website-prod');
  });

  it('a user or password in the issuer or a redirect URI is refused, as in baseUrl', () => {
    const base = { baseUrl: 'http://127.0.0.1:3000' };
    expect(() => validateTargetConfig({ ...base, issuer: 'https://qa:Hunter2Secret@idp.test' }, 'c.yaml')).toThrow(
      'c.yaml: issuer must not carry a user or password',
    );
    const app = { clientId: 'c', redirectUri: 'https://u:p@app.test/cb', scopes: ['api'] };
    expect(() => validateTargetConfig({ ...base, applications: { confidential: app } }, 'c.yaml')).toThrow(
      'c.yaml: applications.confidential.redirectUri must not carry a user or password',
    );
  });
});

describe('a device user code is learned in every form a page may show it (RFC 8628 §6.1)', () => {
  /** RFC 8628 §6.1's base-20 alphabet, in groups a provider separates for reading. */
  const BASE20 = 'BCDFGHJKLMNPQRSTVWXZ';
  const SEPARATORS = ['-', ' ', ''];
  const groups = fc.array(fc.string({ unit: fc.constantFrom(...BASE20), minLength: 4, maxLength: 5 }), {
    minLength: 2,
    maxLength: 3,
  });
  const casing = fc.constantFrom<(s: string) => string>(
    (s) => s,
    (s) => s.toLowerCase(),
    (s) => [...s].map((c, i) => (i % 2 ? c.toLowerCase() : c)).join(''),
  );

  /** A redactor that met the device authorization answer: the code in `user_code`, in `verification_uri_complete`, or both. */
  function started(given: string, where: 'member' | 'uri' | 'both') {
    const r = createRedactor([], [SEED, BASE]);
    const complete = `${BASE}/oauth/device?user_code=${encodeURIComponent(given)}`;
    r.learn({
      request: { method: 'POST', url: `${BASE}/oauth/authorize_device`, headers: {}, body: 'client_id=app' },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          device_code: 'dc-5f0c1e9a7b3d4c2e8f6a',
          ...(where !== 'uri' ? { user_code: given } : {}),
          verification_uri: `${BASE}/oauth/device`,
          ...(where !== 'member' ? { verification_uri_complete: complete } : {}),
        }),
      },
    });
    return r;
  }

  const halves = (code: string) => [code.slice(0, code.length >> 1), code.slice(code.length >> 1)];

  /** Whether `shown` still shows the code's groups with any separator, in any casing. */
  const leaks = (shown: string, runs: string[]) =>
    SEPARATORS.some((s) => shown.toLowerCase().includes(runs.join(s).toLowerCase()));

  it('given with a dash, a space or none, shown with any of them in any casing: masked (fixed seed)', () => {
    fc.assert(
      fc.property(
        groups,
        fc.constantFrom(...SEPARATORS),
        fc.constantFrom(...SEPARATORS),
        casing,
        fc.constantFrom('member' as const, 'uri' as const, 'both' as const),
        (groups, given, shownWith, cased, where) => {
          // A code given whole is grouped in halves, as RFC 8628 §6.1's example is.
          const runs = given ? groups : halves(groups.join(''));
          const r = started(runs.join(given), where);
          const shown = cased(runs.join(shownWith));
          const page = r.exchange({
            request: { method: 'GET', url: `${BASE}/oauth/device`, headers: {} },
            response: { status: 200, headers: { 'content-type': 'text/html' }, body: `<p>Enter ${shown} now</p>` },
          });
          const message = r.text(`the device page did not accept ${shown}`);
          expect(leaks(page.response!.body!, runs), page.response!.body).toBe(false);
          expect(leaks(message, runs), message).toBe(false);
          expect(message).toMatch(/^the device page did not accept \S*…$/);
        },
      ),
      { seed: 8628, numRuns: 300 },
    );
  });

  // Review 19, item 3: a page may regroup the code and separate its groups any way.
  const SHOWN_SEPARATORS = ['-', ' ', '', '.', '_', '\u2013', '\u00b7', '</span>-<span>', '&#45;', ' - '];
  const regroup = fc.constantFrom<(code: string) => string[]>(
    (code) => code.match(/.{1,3}/g)!,
    (code) => code.match(/.{1,4}/g)!,
    (code) => code.match(/.{1,5}/g)!,
  );

  it('shown regrouped, with any separator, a tag or an entity between groups: masked (fixed seed)', () => {
    fc.assert(
      fc.property(
        groups,
        fc.constantFrom(...SEPARATORS),
        regroup,
        fc.constantFrom(...SHOWN_SEPARATORS),
        casing,
        (groups, given, grouped, shownWith, cased) => {
          const runs = given ? groups : halves(groups.join(''));
          const r = started(runs.join(given), 'member');
          const shown = cased(grouped(groups.join('')).join(shownWith));
          const page = r.exchange({
            request: { method: 'GET', url: `${BASE}/oauth/device`, headers: {} },
            response: { status: 200, headers: { 'content-type': 'text/html' }, body: `<p>Enter ${shown} now</p>` },
          });
          const message = r.text(`the device page did not accept ${shown} now`);
          expect(page.response!.body!.toLowerCase()).not.toContain(shown.toLowerCase());
          expect(message.toLowerCase()).not.toContain(shown.toLowerCase());
          expect(message).toMatch(/^the device page did not accept .*… now$/);
        },
      ),
      { seed: 8628, numRuns: 300 },
    );
  });

  it('a code shown with tags between its groups is masked whole, no group kept as the prefix', () => {
    const r = started('WDJB-MJHT', 'member');
    expect(r.text('<span>WDJB</span>-<span>MJHT</span>')).toBe('<span>…</span>');
  });

  it('a code as a pattern is tried only where it can start, over its reach: counted, linear in the text', () => {
    const given = 'WDJB-MJHT-QXZR';
    const r = started(given, 'member');
    const code = userCodeMasking(given)!;
    // Every gap filled to its bound and the code broken just before its end, at every position.
    const unit = 'W--D--J--B--M--J--H--T--Q--X--Z--';
    const steps = (size: number) => {
      const text = unit.repeat(Math.ceil(size / unit.length));
      expect(r.text(text)).toBe(text);
      const before = credentialReading.steps;
      expect(maskCode(text, code, '…')).toBe(text);
      const counted = credentialReading.steps - before;
      // Each character passed once, the pattern given at most `reach` characters where a W stands.
      expect(counted).toBe(text.length + (text.length / unit.length) * code.reach);
      return counted;
    };
    // 4 times the hostile text, 4 times the steps (quadratic would be 16): counted, not timed.
    expect(steps(1024 * 1024) / steps(256 * 1024)).toBeLessThan(4.01);
  });

  it('a code masks exactly what its pattern over the whole text masked (the oracle)', () => {
    // Gaps up to their widest (a 10-letter tag, a 6-character entity) and near-gaps the pattern refuses.
    const gaps = ['-', ' ', '\u00a0', '·', '</abcdefghij>', '<b>', '&#abcdef;', '&amp;'];
    const nearGaps = ['&', '<', '<x', '&#;', 'x', '\ud801'];
    let masked = 0;
    fc.assert(
      fc.property(
        fc.constantFrom('WDJB-MJHT', 'wdjb mjht', 'SSWDJB', 'ßwdjbm', '𐐀WDJBM', 'WD𐐨JBM'),
        fc.array(fc.nat(), { maxLength: 80 }),
        (given, picks) => {
          // The code's letters in order, each in either case, then 0 to 4 gaps, some letters left
          // out: texts that match at their widest or come close to it.
          const letters = [...given.replace(/[\s-]/g, '')];
          let text = '';
          for (const [i, n] of picks.entries()) {
            const c = letters[i % letters.length];
            if (n % 16) text += n % 2 ? c.toUpperCase() : c.toLowerCase();
            // 0 to 3 gaps, one in 16 times 4 (one too many) or a near-gap the pattern refuses.
            for (let g = 0; g < ((n >> 5) % 16 ? (n >> 3) % 4 : 4); g++) text += gaps[(n >> (9 + g)) % gaps.length];
            if ((n >> 13) % 16 === 0) text += nearGaps[(n >> 17) % nearGaps.length];
          }
          const expected = text.replace(userCodePattern(given)!, '…');
          expect(maskCode(text, userCodeMasking(given)!, '…')).toBe(expected);
          if (expected !== text) masked++;
        },
      ),
      { seed: 2727, numRuns: 3000 },
    );
    // The texts come near enough that many are masked (a generator that never matched could not fail).
    expect(masked).toBeGreaterThan(300);
  });

  it('WDJB MJHT in every report format', () => {
    const r = started('WDJB MJHT', 'both');
    const check = {
      ...fixtureReport().checks[0],
      message: r.text('the device page showed wdjb-mjht, then WDJBMJHT, then Wdjb Mjht'),
      exchange: [
        r.exchange({
          request: { method: 'GET', url: `${BASE}/oauth/device?user_code=WDJB+MJHT`, headers: {} },
          response: { status: 200, headers: { 'content-type': 'text/html' }, body: '<b>WDJB MJHT</b>' },
        }),
      ],
    };
    const report = { ...fixtureReport(), checks: [check] };
    for (const render of [formatConsole, renderHtml, renderJson, renderJunit, renderMarkdown]) {
      const out = render(report);
      expect(leaks(out, ['WDJB', 'MJHT']), out).toBe(false);
    }
  });

  it("a spaced value of the harness's words or numbers is still not learned", () => {
    for (const words of ['2 retries', 'did not finish', 'status 401', '1234 5678']) {
      const line = `the run said ${words} twice`;
      expect(started(words, 'both').text(line)).toBe(line);
    }
  });
});

describe("a credential the target made of the harness's own words is masked where it stands as that value", () => {
  const TOKENS = ['valid-refresh-token', 'oauth-token', 'token/oauth'];
  const masked = (token: string) => (token.length >= 12 ? `${token.slice(0, 4)}…` : '…');

  it.each(TOKENS)('%j after `=`, `Bearer `, quoted after `:` or `=`, as a whole header or JSON string', (token) => {
    const r = issuing({ access_token: token });
    const m = masked(token);
    expect(r.text(`GET /api/v4/user?t=${token}&page=2`)).toBe(`GET /api/v4/user?t=${m}&page=2`);
    expect(r.text(`sent Bearer ${token} to /api/v4/user`)).toBe(`sent Bearer ${m} to /api/v4/user`);
    expect(r.text(`set _sess=${token}; path=/`)).toBe(`set _sess=${m}; path=/`);
    expect(r.text(`the answer was {"echo": "${token}"}`)).toBe(`the answer was {"echo": "${m}"}`);
    expect(r.text(`<input type="hidden" name="t" value="${token}">`)).toBe(
      `<input type="hidden" name="t" value="${m}">`,
    );
    const shown = r.exchange({
      request: {
        method: 'POST',
        url: `${BASE}/oauth/device?s=${token}`,
        headers: { 'x-echo': token, 'content-type': 'application/x-www-form-urlencoded' },
        body: `state=${token}&x=1`,
      },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ echo: token, name: 'root' }),
      },
    });
    expect(shown.request.url).toBe(`${BASE}/oauth/device?s=${m}`);
    expect(shown.request.headers['x-echo']).toBe(m);
    expect(shown.request.body).toBe(`state=${m}&x=1`);
    expect(shown.response?.body).toBe(JSON.stringify({ echo: m, name: 'root' }));
  });

  it("the run's own values whole stay readable as values too (the harness writes them in its requests)", () => {
    const r = issuing({ access_token: BASE, refresh_token: String(SEED), id_token: '127.0.0.1:47200' });
    const line = `GET /cb?target=${BASE}&seed=${SEED}&host="127.0.0.1:47200"`;
    expect(r.text(line)).toBe(line);
  });

  it.each(TOKENS)("%j in the harness's own sentences and longer values stays", (token) => {
    const r = issuing({ access_token: token, refresh_token: token });
    for (const sentence of [
      `the check wanted a ${token} here`,
      `POST /${token} answered 400 (${token}, application/json)`,
      `GET /x?t=${token}-2&u=/${token}/y`,
      `Bearer tokens are ${token}: see "${token} docs"`,
    ])
      expect(r.text(sentence)).toBe(sentence);
  });
});

describe('review 19, item 1: a string the harness writes whole is never learned, not even as a value', () => {
  const exchange = {
    request: {
      method: 'POST',
      url: `${BASE}/oauth/token?grant_type=authorization_code`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: 'grant_type=authorization_code&redirect_uri=x',
    },
    response: {
      status: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
      body: '{"grant_types_supported":["authorization_code","refresh_token"]}',
    },
  };

  it('tokens `authorization_code`, `application/json`, `no-store`, `refresh_token` leave the exchange and the message readable', () => {
    const r = createRedactor([], [SEED, BASE]);
    for (const token of ['authorization_code', 'application/json', 'no-store', 'refresh_token']) {
      r.learn({
        request: { method: 'POST', url: `${BASE}/oauth/token`, headers: {}, body: 'grant_type=authorization_code' },
        response: {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ access_token: token }),
        },
      });
    }
    expect(r.exchange(exchange)).toEqual(exchange);
    const line = 'sent grant_type=authorization_code with accept="application/json"';
    expect(r.text(line)).toBe(line);
  });

  it('a token of the same words that the harness never writes whole is still masked there', () => {
    const r = issuing({ access_token: 'authorization_code_refresh' });
    expect(r.text('sent grant_type=authorization_code_refresh')).toBe('sent grant_type=auth…');
  });
});

describe("review 19, item 2: a credential of the harness's words is masked wherever it stands apart as a value", () => {
  const T = 'valid-refresh-token';

  it.each([
    [`GET /api/v4/tokens/${T}/revoke`, 'GET /api/v4/tokens/vali…/revoke'],
    [`GET /api/v4/user/${T}`, 'GET /api/v4/user/vali…'],
    [`token: ${T}`, 'token: vali…'],
    [`t = ${T}`, 't = vali…'],
    [`Bearer:${T}`, 'Bearer:vali…'],
    [`t:'${T}'`, "t:'vali…'"],
    [`["${T}", "x"]`, '["vali…", "x"]'],
    [`[${T}]`, '[vali…]'],
    [`'${T}'`, "'vali…'"],
    [`(${T})`, '(vali…)'],
    [`<code>${T}</code>`, '<code>vali…</code>'],
    [`<http://127.0.0.1:47200/tokens/${T}>; rel="self"`, '<http://127.0.0.1:47200/tokens/vali…>; rel="self"'],
  ])('in a message: %j', (text, shown) => {
    expect(issuing({ refresh_token: T }).text(text)).toBe(shown);
  });

  it('in an exchange: a path, a header with a prefix, a Link, an HTML body, a JSON leaf', () => {
    const shown = issuing({ refresh_token: T }).exchange({
      request: { method: 'GET', url: `${BASE}/api/v4/user/${T}`, headers: { 'x-hint': `refresh ${T}` } },
      response: {
        status: 200,
        headers: { 'content-type': 'text/html', link: `<${BASE}/tokens/${T}>; rel="self"` },
        body: `<p>Your token: <code>${T}</code> or ${T}</p>`,
      },
    });
    const json = issuing({ refresh_token: T }).exchange({
      request: { method: 'GET', url: `${BASE}/x`, headers: {} },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ list: [`token ${T}`] }),
      },
    });
    expect(JSON.stringify([shown, json])).not.toContain(T);
  });

  it('its encoded forms: percent-encoded, JSON-escaped, base64 inside a longer value', () => {
    const r = issuing({ access_token: 'oauth/authorize-valid', refresh_token: T });
    expect(r.text('t=oauth%2Fauthorize-valid')).toBe('t=oaut…');
    expect(r.text('"t":"oauth\\/authorize-valid"')).toBe('"t":"oaut…"');
    const basic = Buffer.from(`Bearer ${T}`).toString('base64');
    expect(r.text(`t=${basic}`)).not.toContain(Buffer.from(T).toString('base64').slice(4, 20));
  });

  it("the harness's paths, ids and URLs keep their words", () => {
    // Segments and tails of its paths are its literals (`reset_registration_token`, `oauth/token`): never learned.
    const r = issuing({ access_token: 'reset_registration_token', refresh_token: 'oauth/token' });
    for (const line of [
      `POST ${BASE}/oauth/token answered 400`,
      `POST ${BASE}/api/v4/runners/reset_registration_token?page=2`,
      'check grants.valid-refresh-token.rotates failed',
    ])
      expect(r.text(line)).toBe(line);
  });
});

describe('a code sent back by a refresh is learned as one sent back by a Location', () => {
  it.each(['location', 'refresh'])('%s', (name) => {
    const r = createRedactor([], [SEED, BASE]);
    const to = `${BASE}/cb?code=Zk3PqR8sT2vW&state=s1`;
    r.learn({
      request: { method: 'POST', url: `${BASE}/oauth/authorize`, headers: {} },
      response: {
        status: name === 'location' ? 302 : 200,
        headers: { [name]: name === 'location' ? to : `0;url=${to}` },
      },
    });
    expect(r.text('the application was given Zk3PqR8sT2vW')).toBe('the application was given Zk3P…');
  });

  // Review 19, item 4: a quoted URL was learned with its quote (the code ended in `'`), a page's meta refresh not at all.
  it.each([
    ["a Refresh header quoted with '", { refresh: `0; url='${BASE}/cb?code=Zk3PqR8sT2vW'` }, ''],
    ['a Refresh header quoted with "', { refresh: `0; URL="${BASE}/cb?code=Zk3PqR8sT2vW"` }, ''],
    [
      'an HTML meta refresh',
      { 'content-type': 'text/html' },
      `<meta http-equiv="refresh" content="0;url=${BASE}/cb?code=Zk3PqR8sT2vW">`,
    ],
  ])('%s', (_what, headers: Record<string, string>, body) => {
    const r = createRedactor([], [SEED, BASE]);
    r.learn({
      request: { method: 'GET', url: `${BASE}/oauth/authorize`, headers: {} },
      response: { status: 200, headers, body },
    });
    expect(r.text('the application was given Zk3PqR8sT2vW')).toBe('the application was given Zk3P…');
  });
});
