/**
 * The runner's pure pieces with exact outputs, one input changed at a time: shard slices and their
 * balance, known deviations (`--expect`), the merge of shard reports, and why a rule is not in force.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rulesInForce as specRulesInForce } from '../../spec/index.js';
import { ConfigError, ReportError, SelectionError } from '../../suites/errors.js';
import type { CheckResult, Report } from '../../suites/report/model.js';
import { TransportError } from '../../suites/target/types.js';
import { FAKE_BASE, fakeTarget } from './fakes.js';
import {
  applyToCheck,
  loadExpectations,
  parseExpectations,
  reasonFor,
  type Expectation,
} from '../../suites/runner/expect.js';
import { mergeReports } from '../../suites/runner/merge.js';
import { buildReport, exitCodeOf, ruleStatus, type ReportRule } from '../../suites/runner/report.js';
import { rulesInForce, whyNotInForce, type RuleInfo } from '../../suites/runner/rules.js';
import { notAProvider, probeTarget } from '../../suites/runner/probe.js';
import { assignShards, durationsOf, parseShard, shardOf } from '../../suites/runner/shard.js';

describe('parseShard', () => {
  it('reads i/n with spaces around the numbers', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, total: 3 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, total: 1 });
    expect(parseShard('1000/1000')).toEqual({ index: 1000, total: 1000 });
    expect(parseShard('3/3')).toEqual({ index: 3, total: 3 });
  });
  it.each(['0/3', '4/3', '1/0', '1/1001', '2', '2/3x', 'x2/3', 'a/b', '-1/3', ''])('refuses %j, naming it', (text) => {
    expect(() => parseShard(text)).toThrow(SelectionError);
    expect(() => parseShard(text)).toThrow(`--shard must be i/n with 1 <= i <= n <= 1000, like 2/3, got "${text}"`);
  });
});

describe('shard assignment', () => {
  it('durationsOf keeps every check that ran, skipped ones out', () => {
    expect(
      durationsOf([
        { id: 'a', status: 'passed', durationMs: 5 },
        { id: 'b', status: 'skipped', durationMs: 0 },
        { id: 'c', status: 'failed', durationMs: 7 },
        { id: 'd', status: 'errored', durationMs: 1 },
      ]),
    ).toEqual(
      new Map([
        ['a', 5],
        ['c', 7],
        ['d', 1],
      ]),
    );
  });
  it('without known durations, round robin by position', () => {
    expect(assignShards(['a', 'b', 'c', 'd', 'e'], 3)).toEqual([0, 1, 2, 0, 1]);
    expect(assignShards(['a', 'b', 'c'], 2, new Map([['z', 9]]))).toEqual([0, 1, 0]);
    expect(assignShards(['a', 'b'], 1)).toEqual([0, 0]);
  });
  it('longest first onto the least loaded shard; ties by fewer checks, then the lower shard', () => {
    // a(10) → 0; c(5) → 1; d(5) → 1 (5 < 10); b(1): loads 10 and 10, shard 0 has fewer checks.
    const d = new Map([
      ['a', 10],
      ['b', 1],
      ['c', 5],
      ['d', 5],
    ]);
    expect(assignShards(['a', 'b', 'c', 'd'], 2, d)).toEqual([0, 0, 1, 1]);
    // Equal weights keep their order: p → 0, q → 1, r → 2.
    const equal = new Map([
      ['p', 3],
      ['q', 3],
      ['r', 3],
    ]);
    expect(assignShards(['p', 'q', 'r'], 3, equal)).toEqual([0, 1, 2]);
    expect(assignShards(['r', 'q', 'p'], 3, equal)).toEqual([0, 1, 2]);
  });
  it('checks of no weight go to the shard with fewer checks, not always the first', () => {
    const zero = new Map(['a', 'b', 'c', 'd', 'e'].map((id) => [id, 0]));
    expect(assignShards(['a', 'b', 'c', 'd', 'e'], 2, zero)).toEqual([0, 1, 0, 1, 0]);
    expect(assignShards(['a', 'b', 'c', 'd'], 3, zero)).toEqual([0, 1, 2, 0]);
  });
  it('a check the durations do not know weighs as the average one', () => {
    // x weighs 5 (the average of 6 and 4): a(6) → 0, x(5) → 1, b(4) → 2.
    const d = new Map([
      ['a', 6],
      ['b', 4],
    ]);
    expect(assignShards(['a', 'b', 'x'], 3, d)).toEqual([0, 2, 1]);
    // With a zero average x goes last: a → 0, b → 1, x → 2.
    expect(
      assignShards(
        ['a', 'b', 'x'],
        3,
        new Map([
          ['a', 0],
          ['b', 0],
        ]),
      ),
    ).toEqual([0, 1, 2]);
  });
  it('shardOf keeps the checks of the 1-based slice, in their order', () => {
    const checks = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id }));
    expect(shardOf(checks, { index: 1, total: 2 }).map((c) => c.id)).toEqual(['a', 'c', 'e']);
    expect(shardOf(checks, { index: 2, total: 2 }).map((c) => c.id)).toEqual(['b', 'd']);
    const d = new Map([
      ['a', 1],
      ['b', 1],
      ['c', 1],
      ['d', 1],
      ['e', 100],
    ]);
    expect(shardOf(checks, { index: 1, total: 2 }, d).map((c) => c.id)).toEqual(['e']);
  });
});

const KNOWN = { rules: new Set(['GRANT-CODE-SINGLE-USE', 'TOK-NO-STORE']), checks: new Set(['grants.code-once']) };

describe('parseExpectations', () => {
  it('returns the entries of a valid file', () => {
    const text =
      'expected:\n  - rule: GRANT-CODE-SINGLE-USE\n    checks: [grants.code-once]\n    reason: "VENDOR-1"\n  - { rule: TOK-NO-STORE, reason: cdn }\n';
    expect(parseExpectations(text, 'e.yaml', KNOWN)).toEqual([
      { rule: 'GRANT-CODE-SINGLE-USE', checks: ['grants.code-once'], reason: 'VENDOR-1' },
      { rule: 'TOK-NO-STORE', reason: 'cdn' },
    ]);
  });
  it.each([
    [
      'expected: [',
      'e.yaml: not valid YAML or JSON (Flow sequence in block collection must be sufficiently indented and end with a ] at line 1, column 12:)',
    ],
    [
      'nothing: []',
      'e.yaml: 2 problems: file: missing required property expected; file: unknown property nothing (see spec/expect.schema.json)',
    ],
    [
      'expected: [{ rule: TOK-NO-STORE, reason: ab }]',
      'e.yaml: expected.0.reason must NOT have fewer than 3 characters (see spec/expect.schema.json)',
    ],
    ['expected: [{ rule: GRANT-UNKNOWN, reason: abc }]', 'e.yaml: expected.0.rule: unknown rule GRANT-UNKNOWN'],
    [
      'expected: [{ rule: TOK-NO-STORE, reason: abc }, { rule: TOK-NO-STORE, checks: [grants.code-once, a.b, c.d], reason: abc }]',
      'e.yaml: expected.1.checks: unknown check a.b, c.d',
    ],
  ])('%j is refused with one line', (text, message) => {
    expect(() => parseExpectations(text, 'e.yaml', KNOWN)).toThrow(ConfigError);
    expect(() => parseExpectations(text, 'e.yaml', KNOWN)).toThrow(message);
  });
});

describe('loadExpectations', () => {
  it('reads a file, and names one it cannot read with its error code', () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-expect-unit-'));
    const file = join(dir, 'known.yaml');
    writeFileSync(file, 'expected:\n  - { rule: TOK-NO-STORE, reason: cdn strips it }\n');
    expect(loadExpectations(file, KNOWN)).toEqual([{ rule: 'TOK-NO-STORE', reason: 'cdn strips it' }]);
    expect(() => loadExpectations(join(dir, 'missing.yaml'), KNOWN)).toThrow(
      new ConfigError(`cannot read ${join(dir, 'missing.yaml')} (ENOENT)`),
    );
    expect(() => loadExpectations(join(dir, 'missing.yaml'), KNOWN)).toThrow(ConfigError);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('rulesInForce of spec/rules.yaml', () => {
  it("is the ids of the spec's own reading", () => {
    const ids = rulesInForce('18.0', 'self-managed', {});
    expect([...ids].sort()).toEqual(
      specRulesInForce('18.0', 'self-managed', {})
        .map((r) => r.id)
        .sort(),
    );
    expect(ids.has('GRANT-CODE-SINGLE-USE')).toBe(true);
  });
});

const check = (over: Partial<CheckResult> = {}): CheckResult => ({
  id: 'grants.code-once',
  suite: 'grants',
  title: 'once',
  rules: ['R-A', 'R-B'],
  status: 'failed',
  durationMs: 1,
  ...over,
});

describe('applyToCheck and reasonFor', () => {
  const expectations: Expectation[] = [
    { rule: 'R-A', reason: 'first' },
    { rule: 'R-B', reason: 'second' },
    { rule: 'R-B', reason: 'first' },
    { rule: 'R-C', checks: ['other.check'], reason: 'only there' },
  ];
  it('a failure or a warning whose broken rules are all excused is expected, each reason once', () => {
    expect(applyToCheck(check(), expectations)).toEqual({
      ...check(),
      status: 'expected',
      expectedReason: 'first; second',
    });
    expect(applyToCheck(check({ status: 'warned', broken: ['R-B'] }), expectations)).toEqual({
      ...check({ broken: ['R-B'] }),
      status: 'expected',
      expectedReason: 'second; first',
    });
  });
  it('anything else stays as it is', () => {
    for (const status of ['passed', 'skipped', 'errored'] as const)
      expect(applyToCheck(check({ status }), expectations)).toEqual(check({ status }));
    expect(applyToCheck(check(), [])).toEqual(check());
    // R-C is excused only for another check; R-D for none; an empty broken list excuses nothing.
    expect(applyToCheck(check({ broken: ['R-A', 'R-C'] }), expectations)).toEqual(check({ broken: ['R-A', 'R-C'] }));
    expect(applyToCheck(check({ broken: ['R-A', 'R-D'] }), expectations)).toEqual(check({ broken: ['R-A', 'R-D'] }));
    expect(applyToCheck(check({ broken: [] }), expectations)).toEqual(check({ broken: [] }));
    expect(applyToCheck(check({ id: 'other.check', broken: ['R-C'] }), expectations)).toEqual({
      ...check({ id: 'other.check', broken: ['R-C'] }),
      status: 'expected',
      expectedReason: 'only there',
    });
  });
  it('reasonFor joins the distinct reasons of a listed rule', () => {
    expect(reasonFor(expectations, 'R-B')).toBe('second; first');
    expect(reasonFor(expectations, 'R-C')).toBe('only there');
    expect(reasonFor(expectations, 'R-D')).toBeUndefined();
  });
});

const RULES: ReportRule[] = [
  { id: 'R-A', title: 'a', level: 'must', source: 's', origin: 'source' },
  { id: 'R-B', title: 'b', level: 'should', source: 's', origin: 'source' },
];

function shard(checks: CheckResult[], over: Partial<Report> = {}, startedAt = '2026-11-23T10:00:00.000Z'): Report {
  return {
    ...buildReport({
      target: 't',
      release: '18.0',
      offering: 'hosted',
      seed: 3,
      startedAt: new Date(startedAt),
      durationMs: 1000,
      checks,
      rules: RULES,
    }),
    ...over,
  };
}

describe('mergeReports', () => {
  it('refuses no reports, reports of other runs, and a check run twice', () => {
    expect(() => mergeReports([])).toThrow(new ReportError('report merge needs at least one report'));
    const a = shard([check({ id: 'a.one', rules: ['R-A'], status: 'passed' })]);
    for (const [field, value] of [
      ['target', 'u'],
      ['release', '17.0'],
      ['offering', 'self-managed'],
      ['seed', 4],
    ] as const)
      expect(() =>
        mergeReports([
          { name: 'x.json', report: a },
          { name: 'y.json', report: { ...a, checks: [], [field]: value } },
        ]),
      ).toThrow(`y.json is not a shard of the run of x.json: ${field} ${value} is not ${String(a[field])}`);
    expect(() =>
      mergeReports([
        { name: 'x.json', report: a },
        { name: 'y.json', report: a },
      ]),
    ).toThrow('check a.one is in both x.json and y.json');
  });

  it('recomputes rules from every shard, orders checks as asked, spans the run', () => {
    const one = shard([check({ id: 'a.one', rules: ['R-A'], status: 'passed' })], {}, '2026-11-23T10:00:00.000Z');
    const two = shard(
      [check({ id: 'a.two', rules: ['R-A', 'R-B'], status: 'failed', broken: ['R-A'] })],
      { invocation: { args: ['--runs', '5'] } },
      '2026-11-23T10:00:02.000Z',
    );
    const merged = mergeReports(
      [
        { name: 'one', report: one },
        { name: 'two', report: two },
      ],
      ['a.two', 'a.one'],
    );
    expect(merged.checks.map((c) => c.id)).toEqual(['a.two', 'a.one']);
    expect(merged.rules.map((r) => [r.id, r.status, r.checks])).toEqual([
      ['R-A', 'failed', ['a.two', 'a.one']],
      ['R-B', 'untested', []],
    ]);
    expect(merged.startedAt).toBe('2026-11-23T10:00:00.000Z');
    expect(merged.durationMs).toBe(3000);
    expect(merged.summary).toEqual({ passed: 1, failed: 1, warned: 0, skipped: 0, errored: 0 });
    expect(merged.invocation).toBeUndefined();
    expect('expected' in merged.summary).toBe(false);
    expect(merged.interrupted).toBeUndefined();
    // Checks no order names keep the order of the shards, after the named ones.
    expect(
      mergeReports(
        [
          { name: 'two', report: two },
          { name: 'one', report: one },
        ],
        ['a.one'],
      ).checks.map((c) => c.id),
    ).toEqual(['a.one', 'a.two']);
    expect(
      mergeReports([
        { name: 'two', report: two },
        { name: 'one', report: one },
      ]).checks.map((c) => c.id),
    ).toEqual(['a.two', 'a.one']);
  });

  it('adds up the requests the target rate-limited in each shard, and says none when none was', () => {
    const one = shard([check({ id: 'a.one', rules: ['R-A'], status: 'errored' })], { rateLimited: 2 });
    const two = shard([check({ id: 'a.two', rules: ['R-A'], status: 'errored' })], { rateLimited: 3 });
    const three = shard([check({ id: 'a.three', rules: ['R-A'], status: 'passed' })]);
    const names = (...reports: (typeof one)[]) => reports.map((report, i) => ({ name: String(i), report }));
    expect(mergeReports(names(one, two, three)).rateLimited).toBe(5);
    expect('rateLimited' in mergeReports(names(three))).toBe(false);
  });

  it('adds up the tokens each shard left unrevoked, and says none when none was', () => {
    const one = shard([check({ id: 'a.one', rules: ['R-A'], status: 'passed' })], { unrevokedTokens: 2 });
    const two = shard([check({ id: 'a.two', rules: ['R-A'], status: 'passed' })]);
    const three = shard([check({ id: 'a.three', rules: ['R-A'], status: 'passed' })], { unrevokedTokens: 5 });
    const names = (...reports: (typeof one)[]) => reports.map((report, i) => ({ name: String(i), report }));
    expect(mergeReports(names(one, two, three)).unrevokedTokens).toBe(7);
    expect('unrevokedTokens' in mergeReports(names(two))).toBe(false);
  });

  it('orders the named checks as named, the others after them in the order of the shards', () => {
    const ids = ['k1', 'k2', 'u1', 'k3', 'u2', 'u3'].map((id) => `a.${id}`);
    const one = shard(ids.map((id) => check({ id, rules: ['R-A'], status: 'passed' })));
    expect(mergeReports([{ name: 'one', report: one }], ['a.k1', 'a.k2', 'a.k3']).checks.map((c) => c.id)).toEqual([
      'a.k1',
      'a.k2',
      'a.k3',
      'a.u1',
      'a.u2',
      'a.u3',
    ]);
  });

  it("keeps the first shard's row of a rule; a shard without coverage or required share is fine", () => {
    const one = shard([check({ id: 'a.one', rules: ['R-A'], status: 'passed' })]);
    const two = shard([check({ id: 'a.two', rules: ['R-A'], status: 'passed' })], {
      rules: [{ ...one.rules[0], title: 'another title' }],
      coverage: { must: 1, mustTested: 1, required: 40 },
    });
    const { coverage: _, ...three } = shard([check({ id: 'a.three', rules: ['R-B'], status: 'passed' })]);
    const merged = mergeReports([
      { name: 'one', report: one },
      { name: 'two', report: two },
      { name: 'three', report: three },
    ]);
    expect(merged.rules.map((r) => r.title)).toEqual(['a', 'b']);
    expect(merged.coverage).toEqual({ must: 1, mustTested: 1, required: 40 });
  });

  it('carries the invocation its shards share, a required coverage, an interruption and the expect readings', () => {
    const listed = [{ rule: 'R-A', reason: 'known' }];
    const one = {
      ...buildReport({
        target: 't',
        release: '18.0',
        offering: 'hosted',
        seed: 3,
        startedAt: new Date('2026-11-23T10:00:00.000Z'),
        durationMs: 500,
        checks: [check({ id: 'a.one', rules: ['R-A'], status: 'passed' })],
        rules: RULES,
        expect: listed,
        requiredCoverage: 80,
        invocation: { args: ['--seed', '3'] },
      }),
    };
    const two = shard([check({ id: 'a.two', rules: ['R-B'], status: 'passed' })], {
      interrupted: 'SIGTERM',
      invocation: { args: ['--seed', '3'] },
    });
    const merged = mergeReports([
      { name: 'one', report: one },
      { name: 'two', report: two },
    ]);
    expect(merged.invocation).toEqual({ args: ['--seed', '3'] });
    expect(merged.coverage).toEqual({ must: 1, mustTested: 1, required: 80 });
    expect(merged.interrupted).toBe('SIGTERM');
    expect(merged.summary.expected).toBe(0);
    expect(merged.rules.map((r) => [r.id, r.status, r.expectedReason])).toEqual([
      ['R-A', 'stale', 'known'],
      ['R-B', 'passed', undefined],
    ]);
  });
});

describe('whyNotInForce', () => {
  const rule = (over: Partial<RuleInfo>): RuleInfo => ({
    id: 'R-X',
    title: 't',
    level: 'must',
    source: 's',
    origin: 'source',
    ...over,
  });
  it('names the release window first, then the flag, then the offering; null when in force', () => {
    expect(whyNotInForce(rule({ since: '17.0' }), '16.0', 'hosted', {})).toBe(
      'R-X applies from release 17.0 (this run: 16.0)',
    );
    expect(whyNotInForce(rule({ until: '16.0' }), '17.0', 'hosted', {})).toBe(
      'R-X applies until release 16.0 (this run: 17.0)',
    );
    expect(whyNotInForce(rule({ since: '15.0', until: '16.0' }), '17.0', 'hosted', {})).toBe(
      'R-X applies until release 16.0 (this run: 17.0)',
    );
    expect(
      whyNotInForce(
        rule({ since: '17.0', flag: 'device_authorization_grant', offering: 'hosted' }),
        '16.0',
        'self-managed',
        {},
      ),
    ).toBe('R-X applies from release 17.0 (this run: 16.0)');
    expect(
      whyNotInForce(rule({ flag: 'device_authorization_grant', offering: 'hosted' }), '18.0', 'self-managed', {
        device_authorization_grant: false,
      }),
    ).toBe('R-X needs feature flag device_authorization_grant, which is off');
    expect(whyNotInForce(rule({ offering: 'hosted' }), '18.0', 'self-managed', {})).toBe(
      'R-X applies to the hosted offering only (this run: self-managed)',
    );
    expect(
      whyNotInForce(rule({ since: '17.0', flag: 'device_authorization_grant', offering: 'hosted' }), '18.0', 'hosted', {
        device_authorization_grant: true,
      }),
    ).toBeNull();
    expect(whyNotInForce(rule({}), '15.0', 'self-managed', {})).toBeNull();
  });
});

describe('probeTarget: is this an identity provider of the spec at all', () => {
  const HTML = { headers: { 'content-type': 'text/html; charset=utf-8' } };
  /** Answers by `METHOD path`; anything not listed is a 404 page. */
  function target(answers: Record<string, () => Response>, seen: string[] = []) {
    return fakeTarget((r) => {
      const key = `${r.method} ${new URL(r.url).pathname}`;
      seen.push(`${key} ${r.headers.get('accept')} ${r.headers.get('content-type')} ${r.body ?? ''}`);
      return answers[key]?.() ?? new Response('<p>nothing</p>', { status: 404, ...HTML });
    });
  }
  const DISCOVERY = 'GET /.well-known/openid-configuration';
  const METADATA = 'GET /.well-known/oauth-authorization-server';
  const TOKEN = 'POST /oauth/token';
  const USER = 'GET /api/v4/user';

  it('asks the four questions in order, with the exact requests, and names what each got', async () => {
    const seen: string[] = [];
    const t = target({}, seen);
    const result = await probeTarget(t);
    expect(seen).toEqual([
      `${DISCOVERY} application/json null `,
      `${METADATA} application/json null `,
      `${TOKEN} application/json application/x-www-form-urlencoded grant_type=authorization_code`,
      `${USER} application/json null `,
    ]);
    expect(result).toEqual({
      provider: false,
      found: [
        `${DISCOVERY} answered 404 text/html, no discovery document`,
        `${METADATA} answered 404 text/html, no authorization server metadata`,
        `${TOKEN} answered 404 text/html, no OAuth error`,
        `${USER} answered 404 text/html, not JSON`,
      ],
    });
    expect(notAProvider(t, result)).toBe(
      `${FAKE_BASE} is not an identity provider of this spec (${result.found.join('; ')}); no check was run`,
    );
  });

  it('one provider answer is enough, and stops the questions', async () => {
    const cases: [Record<string, () => Response>, number][] = [
      [{ [DISCOVERY]: () => Response.json({ issuer: 'x' }) }, 1],
      [{ [DISCOVERY]: () => Response.json({ token_endpoint: 'x' }) }, 1],
      [{ [METADATA]: () => Response.json({ issuer: 'x' }) }, 2],
      [{ [METADATA]: () => Response.json({ token_endpoint: 'x' }) }, 2],
      [{ [TOKEN]: () => Response.json({ error: 'invalid_grant' }, { status: 400 }) }, 3],
      [{ [TOKEN]: () => Response.json({ error: 'invalid_client' }, { status: 499 }) }, 3],
      [{ [USER]: () => Response.json({ message: '401 Unauthorized' }, { status: 401 }) }, 4],
      [{ [USER]: () => Response.json([], { status: 499 }) }, 4],
    ];
    for (const [answers, asked] of cases) {
      const seen: string[] = [];
      expect(await probeTarget(target(answers, seen))).toEqual({ provider: true, found: [] });
      expect(seen).toHaveLength(asked);
    }
  });

  it("asks RFC 8414's metadata where §3.1 puts it under a base URL with a path, as the run reads it", async () => {
    const seen: string[] = [];
    const answers = { [`${METADATA}/tenant`]: () => Response.json({ issuer: `${FAKE_BASE}/tenant` }) };
    expect(await probeTarget(target(answers, seen), `${FAKE_BASE}/tenant`)).toEqual({ provider: true, found: [] });
    expect(seen.map((s) => s.split(' ').slice(0, 2).join(' '))).toEqual([
      'GET /tenant/.well-known/openid-configuration',
      `${METADATA}/tenant`,
    ]);
  });

  it('says the metadata path it asked under a base URL with a path, not the one under the host', async () => {
    const { found } = await probeTarget(target({}), `${FAKE_BASE}/tenant`);
    expect(found).toContain(`${METADATA}/tenant answered 404 text/html, no authorization server metadata`);
  });

  it('near misses are not a provider', async () => {
    const misses: Record<string, () => Response>[] = [
      { [DISCOVERY]: () => Response.json({ issuer: 1, token_endpoint: null }) },
      { [DISCOVERY]: () => Response.json({ issuer: 'x' }, { status: 201 }) },
      { [DISCOVERY]: () => Response.json([{ issuer: 'x' }]) },
      { [DISCOVERY]: () => Response.json('issuer') },
      { [DISCOVERY]: () => Response.json(null) },
      { [DISCOVERY]: () => new Response(undefined, { status: 200 }) },
      { [METADATA]: () => Response.json({ issuer: 1 }) },
      { [METADATA]: () => Response.json({ token_endpoint: 'x' }, { status: 201 }) },
      { [TOKEN]: () => Response.json({ error: 'invalid_grant' }, { status: 500 }) },
      { [TOKEN]: () => Response.json({ error: 'invalid_grant' }, { status: 399 }) },
      { [TOKEN]: () => Response.json({ error: 1 }, { status: 400 }) },
      { [TOKEN]: () => Response.json([{ error: 'x' }], { status: 400 }) },
      { [TOKEN]: () => Response.json(null, { status: 400 }) },
      { [USER]: () => Response.json({ message: 'boom' }, { status: 500 }) },
      { [USER]: () => new Response('not json', { status: 200 }) },
      // A JSON 404 is a router's "no such path" (a baseUrl too deep), not an API or a token endpoint.
      { [USER]: () => Response.json({ message: '404 Not Found' }, { status: 404 }) },
      { [TOKEN]: () => Response.json({ error: '404 Not Found' }, { status: 404 }) },
    ];
    for (const answers of misses)
      expect((await probeTarget(target(answers))).provider, JSON.stringify(answers)).toBe(false);
  });

  it('a timeout stops it at the first question (the target does not answer); so does an unreachable target or another error', async () => {
    let asked = 0;
    const failing = (error: Error) =>
      fakeTarget(() => {
        asked++;
        return Promise.reject(error);
      });
    // The rest would wait as long for nothing, and silence is no sign of what the target is.
    await expect(
      probeTarget(failing(new TransportError('GET /.well-known/openid-configuration: timed out', 'timeout'))),
    ).rejects.toThrow('timed out');
    expect(asked).toBe(1);
    await expect(probeTarget(failing(new TransportError('refused', 'unreachable')))).rejects.toThrow('refused');
    await expect(probeTarget(failing(new Error('bug')))).rejects.toThrow('bug');
    // Refused for now (rate-limited) with no provider answer besides: no "not a provider", the refusal stops the run.
    const limited = new TransportError(
      'the target rate-limited this request (GET /x): 429 after 2 retries',
      'rate-limited',
    );
    await expect(probeTarget(failing(limited))).rejects.toBe(limited);
    const tokenServed = fakeTarget((r) =>
      new URL(r.url).pathname === '/oauth/token'
        ? Response.json({ error: 'invalid_grant' }, { status: 400 })
        : Promise.reject(limited),
    );
    expect(await probeTarget(tokenServed)).toEqual({ provider: true, found: [] });
    const noType = fakeTarget(() => new Response(null, { status: 204 }));
    expect((await probeTarget(noType)).found[0]).toBe(
      `${DISCOVERY} answered 204 no content type, no discovery document`,
    );
  });
});

describe('rule rows and the report, exactly', () => {
  const at = new Date('2026-11-23T10:00:00.000Z');
  const input = (checks: CheckResult[], over: Partial<Parameters<typeof buildReport>[0]> = {}) => ({
    target: 't',
    release: '18.0',
    offering: 'hosted',
    seed: 3,
    startedAt: at,
    durationMs: 5,
    checks,
    rules: RULES,
    ...over,
  });

  it('ruleStatus: an expected check ranks between warned and passed', () => {
    expect(ruleStatus('must', ['passed', 'expected'])).toBe('expected');
    expect(ruleStatus('must', ['expected', 'warned'])).toBe('warned');
    expect(ruleStatus('must', ['skipped', 'expected'])).toBe('expected');
  });

  it('a listed rule: stale when passed, expected with its reason, failed without one when not excused', () => {
    const listed: Expectation[] = [
      { rule: 'R-A', reason: 'known A' },
      { rule: 'R-B', checks: ['other.check'], reason: 'known B' },
    ];
    const passed = buildReport(input([check({ rules: ['R-A'], status: 'passed' })], { expect: listed }));
    expect(passed.rules.map((r) => ({ ...r }))).toStrictEqual([
      {
        id: 'R-A',
        title: 'a',
        level: 'must',
        source: 's',
        origin: 'source',
        status: 'stale',
        checks: ['grants.code-once'],
        expectedReason: 'known A',
      },
      { id: 'R-B', title: 'b', level: 'should', source: 's', origin: 'source', status: 'untested', checks: [] },
    ]);
    const failed = buildReport(
      input([check({ broken: ['R-A'] }), check({ id: 'b.x', broken: ['R-B'] })], { expect: listed }),
    );
    expect(failed.checks.map((c) => c.status)).toEqual(['expected', 'failed']);
    expect(failed.rules.map((r) => ({ ...r }))).toStrictEqual([
      {
        id: 'R-A',
        title: 'a',
        level: 'must',
        source: 's',
        origin: 'source',
        status: 'expected',
        checks: ['grants.code-once'],
        expectedReason: 'known A',
      },
      { id: 'R-B', title: 'b', level: 'should', source: 's', origin: 'source', status: 'warned', checks: ['b.x'] },
    ]);
    expect(failed.summary).toStrictEqual({ passed: 0, failed: 1, warned: 0, skipped: 0, errored: 0, expected: 1 });
  });

  it('carries the shard, measures the duration when none is given, and exits as the signal did', () => {
    expect(buildReport(input([], { shard: { index: 2, total: 3 } })).shard).toEqual({ index: 2, total: 3 });
    expect('shard' in buildReport(input([]))).toBe(false);
    const started = new Date(Date.now() - 5000);
    const measured = buildReport(input([], { startedAt: started, durationMs: undefined })).durationMs;
    expect(measured).toBeGreaterThanOrEqual(5000);
    expect(measured).toBeLessThan(600_000);
    const report = buildReport(input([check({ broken: ['R-A'] })]));
    expect(exitCodeOf(report)).toBe(1);
    expect(exitCodeOf({ ...report, interrupted: 'SIGINT' })).toBe(130);
    expect(exitCodeOf({ ...report, interrupted: 'SIGTERM' })).toBe(143);
  });
});
