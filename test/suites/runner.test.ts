import { describe, expect, it } from 'vitest';
import * as fc from 'fast-check';
import { runConformance, selectChecks } from '../../suites/runner/run.js';
import { exitCodeOf } from '../../suites/runner/report.js';
import { formatConsole } from '../../reporters/console.js';
import { renderMarkdown } from '../../reporters/markdown.js';
import { renderHtml } from '../../reporters/html.js';
import { openSession } from '../../suites/runner/session.js';
import type { CheckContext } from '../../suites/types.js';
import { check, fakeRules, fakeTarget, RULES, seen } from './fakes.js';

const base = { seed: 7, numRuns: 20, rules: RULES, reproduceArgs: ['--target', 'http://fake.test'] };
/** RULES and T-LEAF, a rule judging a property nothing else reads (rules.yaml `leaf`). */
const rules = [
  ...RULES,
  { id: 'T-LEAF', title: 'a leaf', level: 'must' as const, source: 'test', origin: 'source', leaf: 'test' },
];

describe('runner verdicts', () => {
  it('reports passed, failed, skipped and crashed checks, and exit code 1 for a failed must', async () => {
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [
        check('ok', ['T-MUST'], seen()),
        check('bad', ['T-MUST-2'], async (t: CheckContext) => t.fail('it broke', { status: 500 })),
        check('skips', ['T-MUST'], async (t: CheckContext) => t.skip('no fixture')),
        check('crash', ['T-MUST'], async () => {
          throw new TypeError('boom');
        }),
      ],
    });
    const status = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
    expect(status).toEqual({
      'grants.ok': 'passed',
      'grants.bad': 'failed',
      'grants.skips': 'skipped',
      'grants.crash': 'errored',
    });
    expect(report.summary).toEqual({ passed: 1, failed: 1, warned: 0, skipped: 1, errored: 1 });
    expect(report.checks.find((c) => c.id === 'grants.bad')!.message).toContain('it broke (status: 500)');
    expect(report.checks.find((c) => c.id === 'grants.crash')!.message).toContain('TypeError: boom');
    expect(report.checks.find((c) => c.id === 'grants.skips')!.message).toBe('no fixture');
    expect(exitCodeOf(report)).toBe(1);
    const rule = (id: string) => report.rules.find((r) => r.id === id)!;
    // Passed by `ok`; the skipped and the errored check judge nothing.
    expect(rule('T-MUST').status).toBe('passed');
    expect(rule('T-MUST-2').status).toBe('failed');
    expect(rule('T-SHOULD').status).toBe('untested');
  });

  it('errors, never passes, a check that saw nothing or asserted nothing; the exit code is 2', async () => {
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [
        check('blind', ['T-MUST'], async (t: CheckContext) => t.expect(true, 'nothing asked')),
        check('mute', ['T-MUST-2'], async (t: CheckContext) => void (await t.http.get('/'))),
        check('harness', ['T-SHOULD'], async (t: CheckContext) => {
          await t.http.get('/');
          t.harness('no approve button on the consent page');
        }),
      ],
    });
    expect(report.checks.map((c) => c.status)).toEqual(['errored', 'errored', 'errored']);
    expect(report.checks[0].message).toMatch(/made no request/);
    expect(report.checks[1].message).toMatch(/asserted nothing/);
    expect(report.checks[2].message).toMatch(/harness could not complete this check: no approve button/);
    expect(report.checks[2].reproduce).toContain('--check grants.harness');
    // An errored check judged nothing: its rules are untested, and the run is not green.
    expect(report.rules.map((r) => r.status)).toEqual(['untested', 'untested', 'untested']);
    expect(exitCodeOf(report)).toBe(2);
  });

  it('soft assertions: a check reports every rule it broke, and one failure does not stop the next', async () => {
    let after = false;
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [
        check('several', ['T-MUST', 'T-MUST-2', 'T-SHOULD'], async (t: CheckContext) => {
          await t.http.get('/');
          t.soft(false, 'first detail wrong', { rules: fakeRules('T-SHOULD') });
          t.soft(true, 'this one holds', { rules: fakeRules('T-MUST') });
          t.soft(false, 'second detail wrong', { rules: fakeRules('T-MUST-2') });
          after = true;
        }),
      ],
    });
    expect(after).toBe(true);
    const [c] = report.checks;
    expect(c.status).toBe('failed');
    expect(c.broken).toEqual(['T-SHOULD', 'T-MUST-2']);
    expect(c.failures?.map((f) => f.message)).toEqual(['first detail wrong', 'second detail wrong']);
    const status = (id: string) => report.rules.find((r) => r.id === id)!.status;
    expect([status('T-SHOULD'), status('T-MUST-2')]).toEqual(['warned', 'failed']);
    // The rule the check did prove is not blamed, and (named by no other failure) not judged here.
    expect(status('T-MUST')).toBe('untested');
  });

  it('a pass proves only the rules its assertions named', async () => {
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [check('narrow', ['T-MUST', 'T-MUST-2'], seen(['T-MUST']))],
    });
    expect(report.checks[0]).toMatchObject({ status: 'passed', proved: ['T-MUST'] });
    expect(report.rules.find((r) => r.id === 'T-MUST')!.status).toBe('passed');
    expect(report.rules.find((r) => r.id === 'T-MUST-2')!.status).toBe('untested');
  });

  it('counts a failure of a should-only check as warned, and keeps exit code 0', async () => {
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [
        check('soft', ['T-SHOULD'], async (t: CheckContext) => t.fail('not as the RFC says')),
        check('ok', ['T-MUST'], seen()),
      ],
    });
    expect(report.checks[0].status).toBe('warned');
    expect(report.rules.find((r) => r.id === 'T-SHOULD')!.status).toBe('warned');
    expect(report.summary).toEqual({ passed: 1, failed: 0, warned: 1, skipped: 0, errored: 0 });
    expect(exitCodeOf(report)).toBe(0);
  });

  it('a failing check proving a must and a should rule fails', async () => {
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [check('mixed', ['T-SHOULD', 'T-MUST'], async (t: CheckContext) => t.fail('no'))],
    });
    expect(report.checks[0].status).toBe('failed');
    expect(report.rules.find((r) => r.id === 'T-SHOULD')!.status).toBe('warned');
  });

  it('a failure naming the should rule it broke only warns, and leaves the must rule unjudged', async () => {
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [
        check('named', ['T-SHOULD', 'T-MUST'], async (t: CheckContext) =>
          t.fail('row broke', { rules: fakeRules('T-SHOULD') }),
        ),
      ],
    });
    expect(report.checks[0].status).toBe('warned');
    expect(report.checks[0].broken).toEqual(['T-SHOULD']);
    expect(report.rules.find((r) => r.id === 'T-SHOULD')!.status).toBe('warned');
    expect(report.rules.find((r) => r.id === 'T-MUST')!.status).toBe('untested');
    expect(exitCodeOf(report)).toBe(0);
  });

  it('an untested must rule is listed by the console, the Markdown and the HTML with why (review 21)', async () => {
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [
        check('premise', ['T-MUST', 'T-MUST-2'], async (t: CheckContext) => {
          await t.http.get('/');
          t.fail('the premise broke', { rules: fakeRules('T-MUST-2') });
        }),
      ],
    });
    expect(report.rules.find((r) => r.id === 'T-MUST')!.status).toBe('untested');
    const reason = 'not judged: grants.premise failed on T-MUST-2 first';
    const line = formatConsole(report)
      .split('\n')
      .find((l) => l.startsWith('T-MUST '));
    expect(line).toMatch(
      /^T-MUST\s+must\s+source\s+untested\s+—\s+not judged: grants\.premise failed on T-MUST-2 first$/,
    );
    expect(renderMarkdown(report)).toContain(reason);
    // The HTML's rule row says it in the same column a failed rule links its first failure.
    const row = renderHtml(report)
      .split('\n')
      .find((l) => l.startsWith('<tr data-f="rule"') && l.includes('<code>T-MUST</code>'));
    expect(row).toMatch(/<td>not judged: grants\.premise failed on T-MUST-2 first<\/td><\/tr>$/);
  });

  it('a failure on leaf rules only passes the rules its held assertions named; any other broken rule leaves them untested', async () => {
    // T-MUST-2 is no leaf.
    const run = (broken: string[]) =>
      runConformance({
        ...base,
        rules,
        target: fakeTarget(),
        checks: [
          check('detail', ['T-MUST', 'T-MUST-2', 'T-SHOULD', 'T-LEAF'], async (t: CheckContext) => {
            await seen(['T-MUST'])(t);
            // Held, then broken in this check: still broken, never passed.
            t.expect(true, 'held first', { rules: fakeRules('T-LEAF') });
            for (const id of broken) t.soft(false, `${id} broke`, { rules: fakeRules(id) });
          }),
        ],
      });
    const leaf = await run(['T-LEAF']);
    expect(leaf.checks[0]).toMatchObject({ status: 'failed', broken: ['T-LEAF'], proved: ['T-MUST'] });
    const status = (report: typeof leaf) => Object.fromEntries(report.rules.map((r) => [r.id, r.status]));
    expect(status(leaf)).toMatchObject({
      'T-MUST': 'passed',
      'T-LEAF': 'failed',
      'T-MUST-2': 'untested',
      'T-SHOULD': 'untested',
    });
    expect(leaf.rules.find((r) => r.id === 'T-MUST')!.checks).toEqual(['grants.detail']);
    // A broken premise (T-MUST-2) beside the leaf: what held may have held on it (69d99bf).
    const premise = await run(['T-LEAF', 'T-MUST-2']);
    expect(premise.checks[0].proved).toBeUndefined();
    expect(status(premise)).toMatchObject({ 'T-MUST': 'untested', 'T-LEAF': 'failed', 'T-MUST-2': 'failed' });
  });

  it("a failure on a leaf rule passes the check's one rule that an assertion naming no rule saw hold", async () => {
    const report = await runConformance({
      ...base,
      rules,
      target: fakeTarget(),
      checks: [
        check('unnamed', ['T-MUST'], async (t: CheckContext) => {
          await seen()(t);
          t.soft(false, 'the leaf broke', { rules: fakeRules('T-LEAF') });
        }),
      ],
    });
    expect(report.checks[0]).toMatchObject({ status: 'failed', broken: ['T-LEAF'], proved: ['T-MUST'] });
    expect(report.rules.find((r) => r.id === 'T-MUST')!.status).toBe('passed');
  });

  it('a failure naming a must rule fails, inside a property too', async () => {
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [
        check('prop', ['T-SHOULD', 'T-MUST'], async (t: CheckContext) =>
          t.property(fc.integer(), async (n) => t.expect(n < 50, 'too big', { rules: fakeRules('T-MUST') })),
        ),
      ],
    });
    expect(report.checks[0].status).toBe('failed');
    expect(report.checks[0].broken).toEqual(['T-MUST']);
    expect(report.rules.find((r) => r.id === 'T-MUST')!.status).toBe('failed');
  });

  it('a failure naming a rule outside the check (a broken set-up step) blames that rule', async () => {
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [
        check('setup', ['T-SHOULD'], async (t: CheckContext) =>
          t.fail('minting the token failed', { rules: fakeRules('T-MUST-2') }),
        ),
      ],
    });
    expect(report.checks[0].status).toBe('failed');
    expect(report.checks[0].broken).toEqual(['T-MUST-2']);
    expect(report.rules.find((r) => r.id === 'T-MUST-2')!.status).toBe('failed');
    expect(report.rules.find((r) => r.id === 'T-MUST-2')!.checks).toEqual(['grants.setup']);
    expect(report.rules.find((r) => r.id === 'T-SHOULD')!.status).toBe('untested');
  });

  it('refuses, as a harness error, a failure naming an id that is no rule, instead of blaming every rule of the check', async () => {
    const run = runConformance({
      ...base,
      target: fakeTarget(),
      checks: [
        check('typo', ['T-SHOULD', 'T-MUST'], async (t: CheckContext) =>
          t.fail('row broke', { rules: fakeRules('T-MUST', 'T-MUT') }),
        ),
      ],
    });
    await expect(run).rejects.toThrow(
      /check grants\.typo failed naming rule T-MUT, not in the rule catalogue \(spec\/rules\.yaml\): fix the check/,
    );
  });

  it('skips, without running, a check that needs a capability the target lacks, and says which', async () => {
    let ran = false;
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [
        check('clock', ['T-MUST'], async () => void (ran = true), { needs: ['clock'] }),
        check('pat', ['T-MUST'], async () => void (ran = true), { needs: ['pat'] }),
      ],
    });
    expect(ran).toBe(false);
    expect(report.checks.map((c) => c.status)).toEqual(['skipped', 'skipped']);
    expect(report.checks[0].message).toMatch(/needs clock: .*clock control/);
    expect(report.checks[1].message).toMatch(/needs pat: .*personal access token/);
    expect(report.rules.find((r) => r.id === 'T-MUST')!.status).toBe('skipped');
  });

  it('detects capabilities from the target instead of assuming them', async () => {
    const target = fakeTarget(
      (r) => {
        const path = new URL(r.url).pathname;
        if (path === '/-/simulator/config') return Response.json({ baseUrl: 'http://fake.test' });
        if (path === '/-/simulator/clock') return Response.json({ ok: true });
        return new Response(null, { status: 404 });
      },
      {
        personalAccessToken: 'glpat-0123456789abcdef',
        applications: {
          confidential: { clientId: 'c', clientSecret: 's', redirectUri: 'http://x/cb', scopes: ['api', 'openid'] },
        },
      },
    );
    const session = await openSession({ ...base, target });
    // The device endpoint answers 404 here, so no device grant whatever the release says.
    expect(session.caps).toMatchObject({
      control: true,
      clock: true,
      device: false,
      passwordGrant: false,
      pat: true,
      oidc: true,
    });
    await session.close();
  });

  it('treats a server error as a broken feature (checks run and fail), a refusal as an absent one', async () => {
    const caps = async (status: number) => {
      const target = fakeTarget(
        (r) => {
          const path = new URL(r.url).pathname;
          if (path === '/oauth/token' || path === '/oauth/authorize_device')
            return Response.json({ error: status === 400 ? 'unsupported_grant_type' : 'x' }, { status });
          return new Response(null, { status: 404 });
        },
        {
          user: { username: 'root', password: 'secret-password' },
          applications: {
            confidential: { clientId: 'c', clientSecret: 's', redirectUri: 'http://x/cb', scopes: ['api'] },
          },
        },
      );
      const session = await openSession({ ...base, target });
      await session.close();
      return { device: session.caps.device, passwordGrant: session.caps.passwordGrant };
    };
    expect(await caps(500)).toEqual({ device: true, passwordGrant: true });
    expect(await caps(400)).toEqual({ device: false, passwordGrant: false });
  });

  it('skips a check whose rules are not in force at the release, and a slow check without --slow or a clock', async () => {
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [
        check('future', ['T-FUTURE'], async () => undefined),
        check('slow', ['T-MUST'], async () => undefined, { slow: true }),
      ],
    });
    expect(report.checks.map((c) => c.status)).toEqual(['skipped', 'skipped']);
    expect(report.checks[0].message).toContain('not in force');
    expect(report.checks[0].message).toContain('T-FUTURE applies from release 99.0');
    expect(report.checks[1].message).toContain('--slow');
    expect(report.rules.map((r) => r.id)).not.toContain('T-FUTURE');
  });

  it('says a check is skipped because a feature flag is off, not because of the release', async () => {
    const { createEmbeddedTarget } = await import('../../suites/target/embedded.js');
    const { allChecks } = await import('../../suites/index.js');
    const report = await runConformance({
      seed: 7,
      numRuns: 2,
      target: await createEmbeddedTarget({ flags: { device_authorization_grant: false } }),
      checks: allChecks().filter((c) => c.id === 'device.authorization-timings'),
    });
    expect(report.checks[0].status).toBe('skipped');
    expect(report.checks[0].message).toMatch(/needs feature flag device_authorization_grant, which is off/);
    expect(report.checks[0].message).not.toMatch(/release/);
  });

  it('gives a failure a reproduce command naming the check, the seed and the target', async () => {
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [check('bad', ['T-MUST'], async (t: CheckContext) => t.fail('x'))],
    });
    expect(report.checks[0].reproduce).toBe(
      'npx idp-conformance run --check grants.bad --seed 7 --target http://fake.test',
    );
  });

  it('captures the shrunk counterexample and the exchange of that very case', async () => {
    const report = await runConformance({
      ...base,
      target: fakeTarget((r) => Response.json({ n: Number(new URL(r.url).searchParams.get('n')) })),
      checks: [
        check('prop', ['T-MUST'], async (t: CheckContext) => {
          await t.property(fc.integer({ min: 0, max: 1000 }), async (n) => {
            const body = (await t.http.get('/echo', { query: { n } })).json<{ n: number }>();
            t.expect(body.n < 10, `n=${n} is too big`);
          });
        }),
      ],
    });
    const c = report.checks[0];
    expect(c.status).toBe('failed');
    expect(c.counterexample).toBe('[10]');
    expect(c.message).toBe('n=10 is too big');
    expect(c.exchange!.at(-1)!.request.url).toBe('http://fake.test/echo?n=10');
  });

  it('fails a property that returns false, and passes one that holds', async () => {
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [
        check('false', ['T-MUST'], async (t: CheckContext) => t.property(fc.nat(), async (n) => n < 0)),
        check('true', ['T-MUST-2'], async (t: CheckContext) =>
          t.property(fc.nat(), async (n) => (await t.http.get('/')).status > 0 && n >= 0),
        ),
      ],
    });
    expect(report.checks.map((c) => c.status)).toEqual(['failed', 'passed']);
    expect(report.checks[0].counterexample).toBe('[0]');
  });

  it('stops when interrupted: a finished check stands, the rest are skipped, not passed', async () => {
    let done = 0;
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [
        check('one', ['T-MUST'], async (t: CheckContext) => {
          await seen()(t);
          done++;
        }),
        check('two', ['T-MUST'], async () => void done++),
      ],
      stopRequested: () => done > 0,
    });
    expect(report.checks.map((c) => c.status)).toEqual(['passed', 'skipped']);
    expect(report.checks[1].message).toBe('the run was interrupted');
    expect(report.interrupted).toBe('SIGINT');
    expect(done).toBe(1);
  });

  it('stops the running check at its next request: skipped as interrupted, never passed', async () => {
    let stop = false;
    const report = await runConformance({
      ...base,
      target: fakeTarget(),
      checks: [
        check('long', ['T-MUST'], async (t: CheckContext) => {
          await seen()(t);
          stop = true;
          // A check that swallows the refusal still proves nothing.
          await t.http.get('/again').catch(() => undefined);
        }),
      ],
      stopRequested: () => (stop ? 'SIGTERM' : undefined),
    });
    expect(report.checks.map((c) => [c.status, c.message])).toEqual([['skipped', 'the run was interrupted']]);
    expect(report.interrupted).toBe('SIGTERM');
  });

  it('selects by suite, rule and check id, and refuses unknown names', () => {
    const checks = [
      check('a', ['T-MUST'], async () => undefined),
      { ...check('b', ['T-SHOULD'], async () => undefined), suite: 'cors' as const },
    ];
    expect(selectChecks(checks, { suites: ['cors'] }).map((c) => c.id)).toEqual(['grants.b']);
    expect(selectChecks(checks, { rules: ['T-MUST'] }).map((c) => c.id)).toEqual(['grants.a']);
    expect(selectChecks(checks, { check: 'grants.a' }).map((c) => c.id)).toEqual(['grants.a']);
    expect(() => selectChecks(checks, { suites: ['nope'] })).toThrow(/unknown suite nope/);
    expect(() => selectChecks(checks, { check: 'grants.zzz' })).toThrow(/unknown check/);
    expect(() => selectChecks(checks, { rules: ['T-NOPE'] }, new Set(['T-MUST']))).toThrow(/unknown rule T-NOPE/);
  });

  it('an unknown check or rule names the likely one, when one is near (review 27)', () => {
    const checks = [check('tree-missing-path-empty', ['T-MUST'], async () => undefined)];
    expect(() => selectChecks(checks, { check: 'grants.tree-missing-path-emtpy' })).toThrow(
      /^unknown check grants\.tree-missing-path-emtpy \(did you mean grants\.tree-missing-path-empty\?\)$/,
    );
    expect(() => selectChecks(checks, { checks: ['grants.zzzzzzzzzz'] })).toThrow(/^unknown check grants\.zzzzzzzzzz$/);
    expect(() => selectChecks(checks, { rules: ['T-MUT'] }, new Set(['T-MUST']))).toThrow(
      /^unknown rule T-MUT \(did you mean T-MUST\?\) \(see spec\/rules\.yaml\)$/,
    );
  });

  it('refuses a --check that --suite or --rule leaves out, naming why, instead of running nothing', () => {
    const checks = [
      check('a', ['T-MUST'], async () => undefined),
      { ...check('b', ['T-SHOULD'], async () => undefined), suite: 'cors' as const },
    ];
    expect(() => selectChecks(checks, { check: 'grants.a', suites: ['cors'] })).toThrow(
      /^check grants\.a is in suite grants, not in --suite cors$/,
    );
    expect(() => selectChecks(checks, { check: 'grants.a', rules: ['T-SHOULD'] })).toThrow(
      /^check grants\.a proves none of the selected rules \(--rule, --origin\): it proves T-MUST$/,
    );
    expect(selectChecks(checks, { check: 'grants.b', suites: ['cors'], rules: ['T-SHOULD'] })).toHaveLength(1);
  });
});
