/**
 * The runner's building blocks with exact outputs: how a request is built and recorded, what the
 * redactor learns, rule statuses and the report, exit codes, failures naming rules, seeds and the
 * seeded random source.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TransportError, type RawRequest } from '../../suites/target/types.js';
import {
  BrokenExchange,
  CheckFailure,
  CheckSkipped,
  HarnessError,
  DeadlineCut,
  NoAnswer,
  NoVerdict,
  RateLimited,
  noAnswer,
} from '../../suites/runner/errors.js';
import { DEADLINE_REACHED, INTERRUPTED } from '../../suites/runner/session.js';
import { CI_SEED, MAX_SEED, defaultSeed } from '../../suites/runner/defaults.js';
import { EXCHANGES_KEPT, createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRandom } from '../../suites/runner/random.js';
import { BODY_LIMIT, createRedactor } from '../../suites/runner/redact.js';
import { buildReport, exitCodeOf, packageVersion, ruleStatus } from '../../suites/runner/report.js';
import { inForceOf, originMatches, rulesOfOrigins } from '../../suites/runner/rules.js';
import type { CheckResult } from '../../suites/report/model.js';
import { FAKE_BASE, RULES, fakeTarget } from './fakes.js';

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

function harness(answer: (r: RawRequest) => Response | Promise<Response> = () => new Response('{}')) {
  const sent: Sent[] = [];
  const recorder = createRecorder();
  const redactor = createRedactor();
  const seen: string[] = [];
  const http = createHttp(
    fakeTarget((r) => {
      sent.push({ method: r.method, url: r.url, headers: Object.fromEntries(r.headers), body: r.body });
      return answer(r);
    }),
    recorder,
    redactor,
    (raw, res) => seen.push(`${raw.method} ${res.status}`),
  );
  return { http, sent, recorder, redactor, seen };
}

describe('createHttp builds each request exactly', () => {
  it('query parameters appended in order, arrays repeated, encoded; ? or & as the path needs', async () => {
    const h = harness();
    await h.http.get('/a', { query: { x: 'a b', list: ['1', 2], flag: true } });
    await h.http.get('b?y=1', { query: { z: 'é' } });
    await h.http.get('/c', { query: {} });
    expect(h.sent.map((s) => s.url)).toEqual([
      `${FAKE_BASE}/a?x=a%20b&list=1&list=2&flag=true`,
      `${FAKE_BASE}/b?y=1&z=%C3%A9`,
      `${FAKE_BASE}/c`,
    ]);
    expect(h.sent.map((s) => s.method)).toEqual(['GET', 'GET', 'GET']);
  });

  it('form and JSON bodies with their content type; undefined form fields left out', async () => {
    const h = harness();
    await h.http.post('/f', { form: { a: '1', skip: undefined, b: 'x y' } });
    await h.http.post('/g', { form: new URLSearchParams([['k', 'v']]) });
    await h.http.post('/j', { json: { n: 1 } });
    await h.http.post('/e');
    expect(h.sent).toEqual([
      {
        method: 'POST',
        url: `${FAKE_BASE}/f`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'a=1&b=x+y',
      },
      {
        method: 'POST',
        url: `${FAKE_BASE}/g`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'k=v',
      },
      { method: 'POST', url: `${FAKE_BASE}/j`, headers: { 'content-type': 'application/json' }, body: '{"n":1}' },
      { method: 'POST', url: `${FAKE_BASE}/e`, headers: {}, body: undefined },
    ]);
  });

  it('send: the method defaults to POST with a body and GET without, and is upper-cased', async () => {
    const h = harness();
    await h.http.send({ path: '/x', form: { a: '1' } });
    await h.http.send({ path: '/y' });
    await h.http.send({ path: '/z', method: 'delete' });
    expect(h.sent.map((s) => `${s.method} ${s.url}`)).toEqual([
      `POST ${FAKE_BASE}/x`,
      `GET ${FAKE_BASE}/y`,
      `DELETE ${FAKE_BASE}/z`,
    ]);
  });

  it('bearer and basic credentials, explicit headers winning, and the secrets remembered', async () => {
    const h = harness();
    await h.http.get('/b', { bearer: 'bearer-secret-value-1' });
    await h.http.get('/c', { basic: { user: 'app', password: 'basic-secret-value-1' } });
    await h.http.get('/d', { bearer: 'another-secret-1', headers: { Authorization: 'Bearer forged' } });
    expect(h.sent.map((s) => s.headers.authorization)).toEqual([
      'Bearer bearer-secret-value-1',
      `Basic ${Buffer.from('app:basic-secret-value-1').toString('base64')}`,
      'Bearer forged',
    ]);
    expect(h.redactor.text('bearer-secret-value-1 basic-secret-value-1 another-secret-1')).toBe('bear… basi… anot…');
  });

  it('Accept: application/json on the OAuth endpoints that answer JSON (spec/openapi.yaml), as clients send it; an undefined header sends none', async () => {
    const h = harness();
    await h.http.post('/oauth/token', { form: { grant_type: 'x' } });
    await h.http.post('/oauth/authorize_device', { form: {} });
    await h.http.post('/oauth/revoke', { form: {} });
    await h.http.get('/oauth/token/info?access_token=x');
    await h.http.get('/oauth/userinfo');
    await h.http.get('/.well-known/openid-configuration');
    await h.http.get('/oauth/discovery/keys');
    // Pages, the REST API, a preflight, a method the endpoint has not: as the check wrote them.
    await h.http.get('/oauth/authorize');
    await h.http.get('/oauth/device');
    await h.http.get('/api/v4/user');
    await h.http.send({ path: '/oauth/token', method: 'OPTIONS' });
    await h.http.get('/oauth/token');
    // The check's own header wins, and undefined sends no Accept at all.
    await h.http.post('/oauth/token', { form: {}, headers: { accept: 'text/html' } });
    await h.http.post('/oauth/token', { form: {}, headers: { accept: undefined } });
    expect(h.sent.map((s) => `${s.method} ${s.url.slice(FAKE_BASE.length)} ${s.headers.accept ?? '-'}`)).toEqual([
      'POST /oauth/token application/json',
      'POST /oauth/authorize_device application/json',
      'POST /oauth/revoke application/json',
      'GET /oauth/token/info?access_token=x application/json',
      'GET /oauth/userinfo application/json',
      'GET /.well-known/openid-configuration application/json',
      'GET /oauth/discovery/keys application/json',
      'GET /oauth/authorize -',
      'GET /oauth/device -',
      'GET /api/v4/user -',
      'OPTIONS /oauth/token -',
      'GET /oauth/token -',
      'POST /oauth/token text/html',
      'POST /oauth/token -',
    ]);
  });

  it('follow: an absolute URL of the target as it is, a relative one against the base URL, another origin never', async () => {
    const h = harness();
    await h.http.follow(`${FAKE_BASE}/x?y=1`);
    await h.http.follow(`${FAKE_BASE.toUpperCase()}/z`);
    await h.http.follow('/rel');
    await h.http.follow('rel2', { query: { a: '1' } });
    await expect(h.http.follow('http://elsewhere.test/x?y=1')).rejects.toBeInstanceOf(HarnessError);
    expect(h.sent.map((s) => s.url)).toEqual([
      `${FAKE_BASE}/x?y=1`,
      `${FAKE_BASE.toUpperCase()}/z`,
      `${FAKE_BASE}/rel`,
      `${FAKE_BASE}/rel2?a=1`,
    ]);
    expect(h.sent.map((s) => s.method)).toEqual(['GET', 'GET', 'GET', 'GET']);
  });

  it('records the exchange, joins Set-Cookie headers, leaves an empty body out, and tells the observer', async () => {
    const h = harness(() => {
      const headers = new Headers({ 'content-type': 'text/plain' });
      headers.append('set-cookie', 'a=1');
      headers.append('set-cookie', 'b=2');
      return new Response(null, { status: 204, headers });
    });
    const res = await h.http.post('/r', { json: {} });
    expect(res.status).toBe(204);
    expect(res.url).toBe(`${FAKE_BASE}/r`);
    expect(h.recorder.exchanges).toEqual([
      {
        request: { method: 'POST', url: `${FAKE_BASE}/r`, headers: { 'content-type': 'application/json' }, body: '{}' },
        response: { status: 204, headers: { 'content-type': 'text/plain', 'set-cookie': 'a=1\nb=2' } },
      },
    ]);
    expect(h.seen).toEqual(['POST 204']);
    h.http.record({ request: { method: 'GET', url: 'manual', headers: {} } });
    expect(h.recorder.count).toBe(2);
  });

  it('json(): parses once, and names a body that is not JSON with its redacted start', async () => {
    const h = harness(
      () => new Response(`oops access_token=${'s'.repeat(20)}`, { headers: { 'content-type': 'text/html' } }),
    );
    const res = await h.http.get('/page?private_token=abcdefghijklmnop');
    let error: unknown;
    try {
      res.json();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CheckFailure);
    expect((error as CheckFailure).message).toBe(
      `GET ${FAKE_BASE}/page?private_token=abcd… answered 200 with a body that is not JSON`,
    );
    expect((error as CheckFailure).details).toEqual({ contentType: 'text/html', body: 'oops access_token=ssss…' });
    const ok = harness(() => new Response('{"a":1}'));
    const r = await ok.http.get('/');
    expect(r.json()).toEqual({ a: 1 });
    expect(r.json()).toBe(r.json());
  });

  it('a transport error rejects with its redacted message, by its kind, and still records the request', async () => {
    // A broken exchange (refused, reset, no valid HTTP) and silence judge no rule; an answer past the
    // limits did come and fails the check; a refusal to serve now is the rate limit's.
    const kinds = [
      ['unreachable', BrokenExchange],
      ['protocol', BrokenExchange],
      ['too-large', CheckFailure],
      ['timeout', NoAnswer],
      ['rate-limited', RateLimited],
    ] as const;
    for (const [code, kind] of kinds) {
      const h = harness(() => {
        throw new TransportError('connect refused for token abcdefghij0123456789', code);
      });
      h.redactor.remember('abcdefghij0123456789');
      const rejected = await h.http.get('/t').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(rejected, code).toBeInstanceOf(kind);
      if (kind !== CheckFailure) expect(rejected, code).not.toBeInstanceOf(CheckFailure);
      expect((rejected as Error).message, code).toBe('connect refused for token abcd…');
      expect(h.recorder.exchanges).toEqual([{ request: { method: 'GET', url: `${FAKE_BASE}/t`, headers: {} } }]);
    }
    const other = harness(() => {
      throw new RangeError('bug');
    });
    await expect(other.http.get('/t')).rejects.toThrow(RangeError);
  });
});

describe('createRecorder', () => {
  it('keeps the last exchanges up to its limit, counts all, pauses and clears', () => {
    expect(EXCHANGES_KEPT).toBe(6);
    const r = createRecorder(2);
    const ex = (url: string) => ({ request: { method: 'GET', url, headers: {} } });
    r.add(ex('1'));
    r.add(ex('2'));
    r.add(ex('3'));
    expect(r.exchanges.map((e) => e.request.url)).toEqual(['2', '3']);
    expect(r.count).toBe(3);
    r.enabled = false;
    r.add(ex('4'));
    expect(r.count).toBe(3);
    r.enabled = true;
    r.clear();
    expect(r.exchanges).toEqual([]);
    expect(r.count).toBe(0);
    const d = createRecorder();
    for (let i = 0; i < 7; i++) d.add(ex(String(i)));
    expect(d.exchanges.map((e) => e.request.url)).toEqual(['1', '2', '3', '4', '5', '6']);
  });
});

describe('createRedactor learns the secrets an exchange carries', () => {
  const masked = (r: ReturnType<typeof createRedactor>, value: string) => !r.text(`x ${value} y`).includes(value);

  it('from the query, Authorization (without its scheme), Location, secret-named headers, JSON and form bodies', () => {
    const r = createRedactor();
    r.learn({
      request: {
        method: 'POST',
        url: 'http://h/p?state=plainstate1&code=query-code-1#access_token=fragment-token-1',
        headers: {
          Authorization: 'Bearer header-bearer-1',
          'PRIVATE-TOKEN': 'private-token-1',
          'content-type': 'application/x-www-form-urlencoded',
          'x-other': 'not-a-secret-1',
        },
        // A `+` is a space (a value with whitespace is no token, review 13): encoded, it is a `+`.
        body: 'client_secret=form%2Bsecret%2B1&refresh_token=plus+spaced+1&name=form-name-1&bad=%E0%A4%A',
      },
      response: {
        status: 302,
        headers: { location: 'http://app/cb?code=location-code-1', 'content-type': 'application/json' },
        body: JSON.stringify({ nested: [{ refresh_token: 'json-refresh-1' }], id: 'json-id-value-1' }),
      },
    });
    for (const secret of [
      'query-code-1',
      'fragment-token-1',
      'header-bearer-1',
      'private-token-1',
      'form+secret+1',
      'location-code-1',
      'json-refresh-1',
    ])
      expect(masked(r, secret), secret).toBe(true);
    for (const plain of ['plainstate1', 'Bearer', 'not-a-secret-1', 'form-name-1', 'json-id-value-1', 'plus spaced 1'])
      expect(masked(r, plain), plain).toBe(false);
  });

  it('remembers values of six characters or more only, and initial secrets whatever their length (review 13)', () => {
    const r = createRedactor(['initial-secret', undefined, 'short']);
    // What the run meets must look like a credential (learnedAs); the config's secrets are taken as they are.
    r.remember('a1b2c3');
    r.remember('a1b2c');
    r.remember(null);
    expect(r.text('initial-secret short a1b2c3 a1b2c')).toBe('init… … … a1b2c');
  });

  it('learns tokens of random letters and numeric codes the target issued, sent back or answered; never words (review 12)', () => {
    const r = createRedactor();
    const issued = {
      access_token: 'qwhvzkpxmrtbnlfdgcjsyaue',
      refresh_token: 'QWHVZKPXMRTBNLFDGCJS',
      device_code: 'BCD-FGH-JKL',
    };
    r.learn({
      request: { method: 'POST', url: 'http://h/oauth/token', headers: {}, body: 'grant_type=device_code' },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(issued) },
    });
    r.learn({
      request: {
        method: 'POST',
        url: 'http://h/oauth/device',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'user_code=482913&csrf_token=Approval',
      },
    });
    // A session cookie's value the flows remember (a capital, then lower case: read as a word before).
    r.remember('Hkqzwprtvbnmlsdf');
    for (const value of [...Object.values(issued), '482913', 'Hkqzwprtvbnmlsdf'])
      expect(r.text(`the page said ${value}`), value).not.toContain(value);
    // Words stay the harness's, sent back or not: 'Approval' is read, never learned.
    expect(r.text('an approval page')).toBe('an approval page');
  });

  it('does not parse a body that is too large, names no secret, or has another type', () => {
    const r = createRedactor();
    const big = JSON.stringify({ access_token: 'big-body-token', pad: 'x'.repeat(16 * 1024) });
    const exchange = (body: string, type: string) => ({
      request: { method: 'POST', url: 'http://h/', headers: { 'content-type': type }, body },
    });
    r.learn(exchange(big, 'application/json'));
    r.learn(exchange(JSON.stringify({ note: 'tokenless-value-1' }), 'application/json'));
    r.learn(exchange('access_token=text-plain-token', 'text/plain'));
    r.learn(exchange('{"access_token": broken', 'application/json'));
    r.learn(
      exchange(
        JSON.stringify({ access_token: 'exact-limit-t0ken', pad: 'x'.repeat(16 * 1024 - 45) }),
        'application/json',
      ),
    );
    expect(r.text('big-body-token tokenless-value-1 text-plain-token')).toBe(
      'big-body-token tokenless-value-1 text-plain-token',
    );
    expect(r.text('exact-limit-t0ken')).toBe('exac…');
  });

  it('shows an exchange masked, bodies cut at the limit with their length', () => {
    const r = createRedactor(['remembered-secret']);
    const long = 'a'.repeat(BODY_LIMIT + 5);
    const shown = r.exchange({
      request: { method: 'POST', url: 'http://h/?x=remembered-secret', headers: {}, body: long },
      response: { status: 200, headers: {}, body: 'b'.repeat(BODY_LIMIT) },
    });
    expect(BODY_LIMIT).toBe(2000);
    expect(shown.request.url).toBe('http://h/?x=reme…');
    expect(shown.request.body).toBe(`${'a'.repeat(BODY_LIMIT)}… truncated, ${BODY_LIMIT + 5} bytes`);
    expect(shown.response?.body).toBe('b'.repeat(BODY_LIMIT));
    expect(r.url('http://h/remembered-secret')).toBe('http://h/reme…');
    const bare = r.exchange({ request: { method: 'GET', url: 'http://h/', headers: {} } });
    expect(bare).toEqual({ request: { method: 'GET', url: 'http://h/', headers: {} } });
  });
});

describe('rule statuses, the report and the exit code', () => {
  it('ruleStatus: the worst check decides; errored checks say nothing; only a must rule fails', () => {
    expect(ruleStatus('must', [])).toBe('untested');
    expect(ruleStatus('must', ['errored'])).toBe('untested');
    expect(ruleStatus('must', ['passed', 'errored'])).toBe('passed');
    expect(ruleStatus('must', ['passed', 'failed', 'warned'])).toBe('failed');
    expect(ruleStatus('should', ['passed', 'failed'])).toBe('warned');
    expect(ruleStatus('info', ['failed'])).toBe('warned');
    expect(ruleStatus('must', ['skipped', 'warned', 'passed'])).toBe('warned');
    expect(ruleStatus('must', ['skipped', 'passed'])).toBe('passed');
    expect(ruleStatus('must', ['skipped'])).toBe('skipped');
  });

  it('buildReport: each rule judged by the checks that speak for it, and the summary counted', () => {
    const check = (id: string, status: CheckResult['status'], extra: Partial<CheckResult> = {}): CheckResult => ({
      id,
      suite: 'grants',
      title: id,
      rules: ['T-MUST', 'T-SHOULD'],
      status,
      durationMs: 1,
      ...extra,
    });
    const checks = [
      check('a', 'passed', { proved: ['T-MUST'] }),
      check('b', 'failed', { broken: ['T-MUST-2'] }),
      check('c', 'skipped'),
      check('d', 'errored'),
      check('e', 'passed'),
    ];
    const startedAt = new Date(Date.now() - 5);
    const report = buildReport({
      target: 'http://t',
      release: '18.0',
      offering: 'self-managed',
      seed: 3,
      startedAt,
      checks,
      rules: RULES.slice(0, 3),
    });
    const { durationMs, ...rest } = report;
    expect(durationMs).toBeGreaterThanOrEqual(5);
    expect(rest).toEqual({
      tool: 'idp-conformance',
      version: packageVersion(),
      target: 'http://t',
      release: '18.0',
      offering: 'self-managed',
      seed: 3,
      startedAt: startedAt.toISOString(),
      summary: { passed: 2, failed: 1, warned: 0, skipped: 1, errored: 1 },
      coverage: { must: 2, mustTested: 2 },
      rules: [
        {
          id: 'T-MUST',
          title: 'a must rule',
          level: 'must',
          source: 'test',
          origin: 'source',
          status: 'passed',
          checks: ['a', 'c', 'd', 'e'],
        },
        {
          id: 'T-MUST-2',
          title: 'another must rule',
          level: 'must',
          source: 'test',
          origin: 'source',
          status: 'failed',
          checks: ['b'],
        },
        {
          id: 'T-SHOULD',
          title: 'a should rule',
          level: 'should',
          source: 'test',
          origin: 'source',
          status: 'passed',
          checks: ['c', 'd', 'e'],
        },
      ],
      checks,
    });
  });

  it('packageVersion is the version of package.json', () => {
    expect(packageVersion()).toBe(JSON.parse(readFileSync('package.json', 'utf8')).version);
  });

  it('exitCodeOf: 1 for a failure, else 2 for an error, else 0', () => {
    const of = (failed: number, errored: number, warned = 0) =>
      exitCodeOf({ summary: { passed: 1, failed, warned, skipped: 0, errored }, rules: [] } as never);
    expect(of(0, 0, 3)).toBe(0);
    expect(of(1, 0)).toBe(1);
    expect(of(1, 1)).toBe(1);
    expect(of(0, 1)).toBe(2);
  });
});

describe('rules in force of a catalogue, failures, seeds and random', () => {
  it('inForceOf follows the release window, the offering and the flags', () => {
    const catalogue = [
      ...RULES,
      {
        id: 'T-HOSTED',
        title: 'h',
        level: 'must' as const,
        source: 't',
        origin: 'source',
        offering: 'hosted' as const,
      },
      {
        id: 'T-FLAG',
        title: 'f',
        level: 'must' as const,
        source: 't',
        origin: 'source',
        flag: 'device_authorization_grant',
      },
      { id: 'T-OLD', title: 'o', level: 'must' as const, source: 't', origin: 'source', until: '17.0' },
    ];
    expect([...inForceOf(catalogue, '18.0', 'self-managed', {})].sort()).toEqual([
      'T-FLAG',
      'T-MUST',
      'T-MUST-2',
      'T-SHOULD',
    ]);
    expect([...inForceOf(catalogue, '16.0', 'hosted', {})].sort()).toEqual([
      'T-HOSTED',
      'T-MUST',
      'T-MUST-2',
      'T-OLD',
      'T-SHOULD',
    ]);
    expect(inForceOf(catalogue, '18.0', 'self-managed', { device_authorization_grant: false }).has('T-FLAG')).toBe(
      false,
    );
    expect(inForceOf(catalogue, '99.0', 'self-managed', {}).has('T-FUTURE')).toBe(true);
  });

  it('CheckFailure.rules: a non-empty list of strings, else none', () => {
    expect(new CheckFailure('m', { rules: ['A', 'B'] }).rules).toEqual(['A', 'B']);
    expect(new CheckFailure('m', { rules: [] }).rules).toBeUndefined();
    expect(new CheckFailure('m', { rules: ['A', 1] }).rules).toBeUndefined();
    expect(new CheckFailure('m', { rules: 'A' }).rules).toBeUndefined();
    expect(new CheckFailure('m').rules).toBeUndefined();
    const f = new CheckFailure('m', { a: 1 }, '[1]');
    expect([f.name, f.message, f.details, f.counterexample]).toEqual(['CheckFailure', 'm', { a: 1 }, '[1]']);
    expect(new CheckSkipped('s').name).toBe('CheckSkipped');
    expect(new HarnessError('h').name).toBe('HarnessError');
  });

  it('defaultSeed: the CI seed in CI, a 31-bit seed elsewhere', () => {
    expect(MAX_SEED).toBe(2147483647);
    expect(defaultSeed({ CI: 'true' })).toBe(CI_SEED);
    expect(CI_SEED).toBe(20240517);
    const seeds = new Set(Array.from({ length: 20 }, () => defaultSeed({})));
    for (const s of seeds) expect(s >= 0 && s < MAX_SEED && Number.isInteger(s)).toBe(true);
    expect(seeds.size).toBeGreaterThan(1);
  });

  it('createRandom repeats for a seed, differs between seeds, and draws from the alphabet only', () => {
    const a = createRandom(7);
    const b = createRandom(7);
    const xs = Array.from({ length: 50 }, () => a.int(1000));
    expect(Array.from({ length: 50 }, () => b.int(1000))).toEqual(xs);
    expect(new Set(xs).size).toBeGreaterThan(40);
    for (const x of xs) expect(x >= 0 && x < 1000).toBe(true);
    expect(Array.from({ length: 5 }, () => createRandom(8).int(1000))).not.toEqual(xs.slice(0, 5));
    // Golden values of mulberry32 for seed 1: the generator itself is pinned.
    const g = createRandom(1);
    expect([g.int(2 ** 32), g.int(2 ** 32), g.int(2 ** 32)]).toEqual(GOLDEN);
    const s = createRandom(3).string(200, 'xyz');
    expect(s).toMatch(/^[xyz]{200}$/);
    expect(new Set(s).size).toBe(3);
  });
});

// mulberry32(1) as published: 0.6270739405881613, 0.002735721180215478, 0.5274470399599522.
const GOLDEN = [2693262067, 11749833, 2265367787];

describe('origin filters (--origin)', () => {
  it.each<[string, string, boolean]>([
    ['source', 'source', true],
    ['source', 'SOURCE', true],
    ['documented', 'source', false],
    ['RFC 6749 §5.2', 'rfc', true],
    ['OIDC Core §2', 'rfc', false],
    ['RFC 6749 §5.2', 'RFC 6749', true],
    ['RFC 6749 §5.2', 'rfc 6749 §5.2', true],
    ['RFC 6749 §4.1.2.1', 'RFC 6749 §4.1', true],
    ['RFC 6749 §4.10', 'RFC 6749 §4.1', false],
    ['RFC 6749 §5.2', 'RFC 67', false],
    ['RFC 6749 §5.2', 'RFC 6749 §', true],
    ['OIDC Core §3.1.3.3', 'OIDC Core', true],
    ['OIDC Core §3.1.3.3', 'oidc', true],
    ['source', '', false],
    ['source', 'sourc', false],
  ])('%s under %j: %s', (origin, filter, expected) => {
    expect(originMatches(origin, filter)).toBe(expected);
  });

  const catalogue = [
    { id: 'A', origin: 'source' },
    { id: 'B', origin: 'RFC 7636 §4.6' },
    { id: 'C', origin: 'RFC 6749 §5.2' },
    { id: 'D', origin: 'OIDC Core §2' },
  ].map((r) => ({ ...r, title: r.id, level: 'must' as const, source: 's' }));

  it('selects the rules of any of the filters, in catalogue order', () => {
    expect(rulesOfOrigins(catalogue, ['RFC 6749', 'source'])).toEqual(['A', 'C']);
    expect(rulesOfOrigins(catalogue, ['rfc'])).toEqual(['B', 'C']);
  });
  it('refuses a filter no rule falls under, naming it and the origins there are', () => {
    expect(() => rulesOfOrigins(catalogue, ['source', 'RFC 9999'])).toThrow(
      'no rule has origin "RFC 9999" (origins: OIDC Core, rfc, source, or an RFC and section such as "RFC 6749 §5.2")',
    );
  });
});

describe('noAnswer: reads a request that got no answer as none, and lets every stop of the check through', () => {
  it('the request unanswered or broken off: undefined', () => {
    for (const error of [
      new NoAnswer('the target did not answer'),
      new BrokenExchange('reset'),
      new TransportError('refused', 'unreachable'),
      new HarnessError('the driver found no control'),
    ])
      expect(noAnswer(error), error.message).toBeUndefined();
  });

  it("the session's skips past --deadline or on interrupt, any skip, a cut and a rate limit: thrown on (review 18)", () => {
    for (const error of [
      new CheckSkipped(DEADLINE_REACHED),
      new CheckSkipped(INTERRUPTED),
      new NoVerdict('off the target'),
      new DeadlineCut('cut'),
      new TransportError('cut', 'deadline'),
      new RateLimited('429 after 3 tries'),
    ])
      expect(() => noAnswer(error), error.message).toThrow(error);
  });
});
