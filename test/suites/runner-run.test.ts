/**
 * The runner's run options, one input changed at a time: the selection and its refusals, the
 * rules a report lists for each kind of filter, shards, expectations, progress lines, onResult,
 * the interruption signal, the invocation and the session always closed. In process, against the
 * fake target; the clock is faked (Date only) so progress lines and the report are exact.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SelectionError } from '../../suites/errors.js';
import { INTERRUPTED } from '../../suites/runner/session.js';
import { SUITES, runConformance, selectChecks, type RunOptions } from '../../suites/runner/run.js';
import type { CheckResult } from '../../suites/report/model.js';
import type { Check, CheckContext } from '../../suites/types.js';
import { RULES, check, fakeTarget, seen } from './fakes.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
});
afterEach(() => vi.useRealTimers());

const inSuite = (c: Check, suite: Check['suite']): Check => ({ ...c, suite });

const A = check('a', ['T-MUST'], seen());
const B = inSuite(
  check('b', ['T-SHOULD', 'T-MUST-2'], async (t: CheckContext) => t.fail('it broke')),
  'cors',
);
const C = check('c', ['T-MUST-2'], async (t: CheckContext) => t.skip('no fixture'));

describe('selectChecks', () => {
  const checks = [A, B, C];
  const ids = (select: Parameters<typeof selectChecks>[1], known?: Set<string>) =>
    selectChecks(checks, select, known).map((c) => c.id);

  it('everything without a selection; each filter alone; filters together', () => {
    expect(ids(undefined)).toEqual(['grants.a', 'grants.b', 'grants.c']);
    expect(ids({ suites: ['cors'] })).toEqual(['grants.b']);
    expect(ids({ suites: [] })).toEqual(['grants.a', 'grants.b', 'grants.c']);
    // A check is selected by any of its rules.
    expect(ids({ rules: ['T-MUST-2'] })).toEqual(['grants.b', 'grants.c']);
    expect(ids({ check: 'grants.c' })).toEqual(['grants.c']);
    expect(ids({ checks: ['grants.c', 'grants.a'] })).toEqual(['grants.a', 'grants.c']);
    expect(ids({ checks: [] })).toEqual([]);
    expect(ids({ suites: ['grants'], rules: ['T-MUST-2'] })).toEqual(['grants.c']);
  });

  it('unknown suites, rules and checks are refused, every unknown name listed', () => {
    expect(() => ids({ suites: ['grants', 'nope', 'zip'] })).toThrow(
      new SelectionError(`unknown suite nope, zip (suites: ${SUITES.join(', ')})`),
    );
    expect(SUITES.join(', ')).toMatch(/^[a-z-]+(, [a-z-]+)+$/);
    const known = new Set(['T-MUST', 'T-MUST-2', 'T-SHOULD']);
    expect(() => ids({ rules: ['T-MUST', 'T-A', 'T-B'] }, known)).toThrow(
      new SelectionError('unknown rule T-A, T-B (see spec/rules.yaml)'),
    );
    expect(ids({ rules: ['T-MUST'] }, known)).toEqual(['grants.a']);
    // No catalogue to check against: a rule nobody has selects nothing.
    expect(ids({ rules: ['T-A'] }, new Set())).toEqual([]);
    expect(() => ids({ check: 'grants.x', checks: ['grants.a', 'grants.y'] })).toThrow(
      // Each unknown name with the nearest known one, if any is near (hdaily27: didYouMean).
      new SelectionError('unknown check grants.x (did you mean grants.a?), grants.y (did you mean grants.a?)'),
    );
  });
});

const base = { seed: 7, numRuns: 5, rules: RULES, reproduceArgs: ['--target', 'http://fake.test'] };

/** A run with the fake target, recording progress, results and whether the target was closed. */
async function run(over: Partial<RunOptions> = {}) {
  const lines: string[] = [];
  let closed = 0;
  const target = fakeTarget();
  target.close = async () => void closed++;
  const report = await runConformance({
    ...base,
    target,
    checks: [A, B, C],
    progress: (line) => lines.push(line),
    ...over,
  });
  return { report, lines, closed };
}

const ruleIds = (r: { report: { rules: { id: string }[] } }) => r.report.rules.map((x) => x.id);

describe('runConformance', () => {
  it('prints a header and one line per check: mark, id, duration, and the message unless passed', async () => {
    const long = 'x'.repeat(157);
    const { lines, report } = await run({
      checks: [
        A,
        B,
        C,
        check('warns', ['T-SHOULD'], async (t: CheckContext) => t.fail('soft')),
        check('err', ['T-MUST'], async () => undefined),
        check('fits', ['T-MUST'], async (t: CheckContext) => t.fail(long)),
        check('cut', ['T-MUST'], async (t: CheckContext) => t.fail(`${long}yz`)),
      ],
    });
    expect(lines).toEqual([
      'fake target: release 18.0 (self-managed), seed 7, 7 checks',
      '[1/7] ok   grants.a (0 ms)',
      '[2/7] FAIL grants.b (0 ms) — it broke',
      '[3/7] skip grants.c (0 ms) — no fixture',
      '[4/7] warn grants.warns (0 ms) — soft',
      '[5/7] ERR  grants.err (0 ms) — the check made no request to the target: nothing was seen, so nothing is passed',
      `[6/7] FAIL grants.fits (0 ms) — ${long}`,
      `[7/7] FAIL grants.cut (0 ms) — ${long}…`,
    ]);
    expect(report.summary).toEqual({ passed: 1, failed: 3, warned: 1, skipped: 1, errored: 1 });
  });

  it('onResult takes each result with its index and the total; progress then gets only the header', async () => {
    const seen: [string, number, number][] = [];
    const { lines } = await run({
      onResult: (r: CheckResult, i: number, total: number) => seen.push([r.id, i, total]),
    });
    expect(seen).toEqual([
      ['grants.a', 0, 3],
      ['grants.b', 1, 3],
      ['grants.c', 2, 3],
    ]);
    expect(lines).toEqual(['fake target: release 18.0 (self-managed), seed 7, 3 checks']);
  });

  it('the report: run facts, every check, the invocation, no shard and no interruption', async () => {
    const { report, closed } = await run();
    expect(report).toMatchObject({
      tool: 'idp-conformance',
      target: 'fake target',
      release: '18.0',
      offering: 'self-managed',
      seed: 7,
      startedAt: '2026-01-01T00:00:00.000Z',
      durationMs: 0,
      invocation: { args: ['--target', 'http://fake.test'] },
    });
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['grants.a', 'passed'],
      ['grants.b', 'failed'],
      ['grants.c', 'skipped'],
    ]);
    expect(report).not.toHaveProperty('shard');
    expect(report).not.toHaveProperty('interrupted');
    expect(closed).toBe(1);
    const { report: bare } = await run({ reproduceArgs: undefined });
    expect(bare.invocation).toEqual({ args: [] });
  });

  it('lists every rule in force without a filter, and only the filtered checks’ rules with one', async () => {
    expect(ruleIds(await run())).toEqual(['T-MUST', 'T-MUST-2', 'T-SHOULD']);
    expect(ruleIds(await run({ select: {} }))).toEqual(['T-MUST', 'T-MUST-2', 'T-SHOULD']);
    expect(ruleIds(await run({ select: { suites: ['grants'] } }))).toEqual(['T-MUST', 'T-MUST-2']);
    expect(ruleIds(await run({ checks: [A, inSuite(C, 'cors')], select: { suites: ['cors'] } }))).toEqual(['T-MUST-2']);
    expect(ruleIds(await run({ select: { check: 'grants.a' } }))).toEqual(['T-MUST']);
    expect(ruleIds(await run({ select: { checks: ['grants.c'] } }))).toEqual(['T-MUST-2']);
    expect(ruleIds(await run({ select: { checks: [] } }))).toEqual([]);
    // A selected rule no check is about is still listed (untested).
    const { report } = await run({ select: { rules: ['T-SHOULD'] }, checks: [A, C] });
    expect(report.checks).toEqual([]);
    expect(report.rules.map((r) => [r.id, r.status])).toEqual([['T-SHOULD', 'untested']]);
    await expect(run({ select: { rules: ['T-NOPE'] } })).rejects.toThrow(
      new SelectionError('unknown rule T-NOPE (see spec/rules.yaml)'),
    );
  });

  it('closes the session when the selection is refused', async () => {
    let closed = 0;
    const target = fakeTarget();
    target.close = async () => void closed++;
    await expect(runConformance({ ...base, target, checks: [A], select: { check: 'grants.zzz' } })).rejects.toThrow(
      SelectionError,
    );
    expect(closed).toBe(1);
  });

  it('a shard runs its slice, says so, and the report names it while listing the whole selection’s rules', async () => {
    const { report, lines } = await run({ shard: { index: 2, total: 2 } });
    expect(lines[0]).toBe('fake target: release 18.0 (self-managed), seed 7, 1 check (shard 2/2 of 3)');
    expect(report.checks.map((c) => c.id)).toEqual(['grants.b']);
    expect(report.shard).toEqual({ index: 2, total: 2 });
    const { report: first } = await run({ shard: { index: 1, total: 2 }, select: { suites: ['grants'] } });
    expect(first.checks.map((c) => c.id)).toEqual(['grants.a']);
    expect(first.rules.map((r) => r.id)).toEqual(['T-MUST', 'T-MUST-2']);
  });

  it('expectations: a listed failure is expected, a listed rule that passed is stale', async () => {
    const { report } = await run({
      expect: [
        { rule: 'T-MUST-2', reason: 'known bug 12' },
        { rule: 'T-SHOULD', reason: 'known bug 12' },
        { rule: 'T-MUST', reason: 'fixed since' },
      ],
      requiredCoverage: 50,
    });
    expect(report.checks.map((c) => [c.id, c.status, c.expectedReason])).toEqual([
      ['grants.a', 'passed', undefined],
      ['grants.b', 'expected', 'known bug 12'],
      ['grants.c', 'skipped', undefined],
    ]);
    expect(report.rules.map((r) => [r.id, r.status])).toEqual([
      ['T-MUST', 'stale'],
      ['T-MUST-2', 'expected'],
      ['T-SHOULD', 'expected'],
    ]);
    expect(report.summary).toEqual({ passed: 1, failed: 0, warned: 0, skipped: 1, errored: 0, expected: 1 });
    expect(report.coverage?.required).toBe(50);
  });

  it('left during a check’s clean-up (revoking its tokens), the run keeps the verdict the check earned (review 29)', async () => {
    const leave = new AbortController();
    let answer: (r: Response) => void = () => undefined;
    // The revocation is still unanswered when the run must leave (the grace after a signal ran out).
    const target = fakeTarget(
      (r) => {
        const path = new URL(r.url).pathname;
        const endpoint = path === '/oauth/token' || path === '/oauth/revoke';
        // The start-up's empty POSTs (is the endpoint there?) are refused, as an endpoint would.
        if (endpoint && !r.body) return Response.json({ error: 'invalid_request' }, { status: 400 });
        if (path === '/oauth/token') return Response.json({ access_token: 'clean-up-token-1' });
        if (path !== '/oauth/revoke') return new Response('{}', { status: 404 });
        leave.abort();
        return new Promise<Response>((resolve) => (answer = resolve));
      },
      { applications: { confidential: { clientId: 'c', clientSecret: 's', redirectUri: 'http://x/cb', scopes: [] } } },
    );
    const minting = check('minting', ['T-MUST'], async (t: CheckContext) => {
      await t.http.post('/oauth/token', { form: { grant_type: 'client_credentials' } });
      t.expect(true, 'x');
    });
    const report = await runConformance({
      ...base,
      target,
      checks: [minting, A],
      abandon: leave.signal,
      stopRequested: () => (leave.signal.aborted ? 'SIGINT' : undefined),
      checkTimeoutMs: 400,
    });
    answer(new Response('{}'));
    // Before, the pass was dropped: "skipped, the run was interrupted".
    expect(report.checks.map((c) => [c.id, c.status, c.message])).toEqual([
      ['grants.minting', 'passed', undefined],
      ['grants.a', 'skipped', INTERRUPTED],
    ]);
    expect(report.interrupted).toBe('SIGINT');
    // Its token, whose revocation was still unanswered, is left to expire: counted (before, 0).
    expect(report.unrevokedTokens).toBe(1);
  });

  it('left while a check runs, its tokens are counted unrevoked (review 31: a second signal before the clean-up)', async () => {
    const leave = new AbortController();
    const target = fakeTarget(
      (r) => {
        const path = new URL(r.url).pathname;
        const endpoint = path === '/oauth/token' || path === '/oauth/revoke';
        if (endpoint && !r.body) return Response.json({ error: 'invalid_request' }, { status: 400 });
        if (path === '/oauth/token') return Response.json({ access_token: 'running-check-token-1' });
        if (path === '/hang-here') {
          // The check hangs here when the run must leave: its clean-up never begins.
          leave.abort();
          return new Promise<Response>(() => undefined);
        }
        return new Response('{}', { status: 404 });
      },
      { applications: { confidential: { clientId: 'c', clientSecret: 's', redirectUri: 'http://x/cb', scopes: [] } } },
    );
    const hanging = check('hanging', ['T-MUST'], async (t: CheckContext) => {
      await t.http.post('/oauth/token', { form: { grant_type: 'client_credentials' } });
      await t.http.get('/hang-here');
      t.expect(true, 'x');
    });
    const report = await runConformance({
      ...base,
      target,
      checks: [hanging],
      abandon: leave.signal,
      stopRequested: () => (leave.signal.aborted ? 'SIGINT' : undefined),
      checkTimeoutMs: 400,
    });
    expect(report.interrupted).toBe('SIGINT');
    // Before, 0: only finished clean-ups and the one under way were counted.
    expect(report.unrevokedTokens).toBe(1);
  });

  it('interrupted before a check: every check skipped unrun, and the signal named (SIGINT when not told)', async () => {
    let ran = false;
    const never = check('never', ['T-MUST'], async () => void (ran = true));
    const { report, lines, closed } = await run({ checks: [never, A], stopRequested: () => 'SIGTERM' });
    expect(ran).toBe(false);
    expect(report.interrupted).toBe('SIGTERM');
    expect(report.checks).toEqual([
      {
        id: 'grants.never',
        suite: 'grants',
        title: 'never',
        rules: ['T-MUST'],
        status: 'skipped',
        durationMs: 0,
        message: INTERRUPTED,
      },
      {
        id: 'grants.a',
        suite: 'grants',
        title: 'a',
        rules: ['T-MUST'],
        status: 'skipped',
        durationMs: 0,
        message: INTERRUPTED,
      },
    ]);
    expect(lines.slice(1)).toEqual([
      '[1/2] skip grants.never (0 ms) — the run was interrupted',
      '[2/2] skip grants.a (0 ms) — the run was interrupted',
    ]);
    expect(closed).toBe(1);
    expect((await run({ stopRequested: () => true })).report.interrupted).toBe('SIGINT');
    expect((await run({ stopRequested: () => false })).report).not.toHaveProperty('interrupted');
  });
});
