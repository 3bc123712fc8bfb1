import { describe, expect, it } from 'vitest';
import { executeRun, parseRunFlags, reproduceArgs, type RunFlags } from '../../cli/run.js';
import { CI_SEED } from '../../suites/runner/defaults.js';
import type { Check, CheckContext } from '../../suites/types.js';
import type { RuleId } from '../../spec/ids.js';

async function run(flags: RunFlags, checks: Check[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await executeRun(
    flags,
    { out: (t) => void out.push(t), err: (t) => void err.push(t), checks: () => checks },
    {},
  );
  return { code, out: out.join(''), err: err.join('') };
}

/** A check that always fails, naming one rule. */
const ALWAYS_FAILS: Check = {
  id: 'grants.always-fails',
  suite: 'grants',
  title: 'fails',
  rules: ['GRANT-CODE-FLOW'],
  run: async (t) => t.fail('on purpose'),
};

describe('idp-conformance run: flags and exit codes', () => {
  it('exits 2 with one line when the target does not answer', async () => {
    const r = await run({ target: 'http://127.0.0.1:1' });
    expect(r.code).toBe(2);
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^idp-conformance: target http:\/\/127\.0\.0\.1:1 does not answer: .*unreachable/);
    expect(r.out).toBe('');
  });

  it('says that --timeout does nothing on the embedded simulator, instead of ignoring it silently', async () => {
    const r = await run({ timeout: '1000' });
    expect(r.err).toMatch(/^idp-conformance: --timeout has no effect on the embedded simulator/m);
    expect((await run({})).err).not.toMatch(/--timeout/);
  });

  it.each<[RunFlags, RegExp]>([
    [{ runs: 'many' }, /--runs must be a whole number/],
    [{ runs: '0' }, /--runs must be a whole number from 1/],
    [{ seed: '-3' }, /--seed must be a whole number/],
    [{ offering: 'cloud' }, /--offering must be self-managed or hosted, got "cloud"$/],
    [{ offering: 'hostd' }, /--offering must be self-managed or hosted, got "hostd" \(did you mean hosted\?\)$/],
    [{ release: 'latest' }, /--release: release "latest" is not a release number like 17\.1 \(known: 15\.0 to 19\.x/],
    [
      { release: '99.0' },
      /--release: unknown release "99\.0" \(known: 15\.0 to 19\.x, changing at 15\.0, 15\.1, .*19\.0\)/,
    ],
    [{ release: '1.0' }, /--release: unknown release "1\.0"/],
    [{ suite: 'grants,nope' }, /unknown suite nope/],
    [{ target: 'http://127.0.0.1:1', config: 'x.yaml' }, /not both/],
    [{ target: 'http://127.0.0.1:1', fault: ['x'] }, /--fault applies only to the embedded simulator/],
    [{ report: 'pdf=x.pdf' }, /unknown report kind/],
    [{ config: '/nonexistent/t.yaml' }, /cannot read/],
    [{ target: 'ftp://x' }, /--target must be an http\(s\) URL/],
    [{ timeout: '1.5' }, /--timeout must be a whole number/],
    [{ quiet: true, verbose: true }, /give --quiet or --verbose, not both/],
    [{ origin: 'RFC 99999' }, /no rule has origin "RFC 99999" \(origins: .*documented.*rfc.*source/],
    [{ origin: ' , ' }, /--origin needs origins/],
    [{ origin: 'RFC 7636', rule: 'TOK-EXPIRES-IN' }, /none of the --rule ids has origin RFC 7636/],
  ])('refuses %j with exit code 2 and one line', async (flags, message) => {
    const r = await run(flags);
    expect(r.code).toBe(2);
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });

  it('uses a fixed seed in CI and a drawn one elsewhere, and prints it', () => {
    expect(parseRunFlags({}, { CI: 'true' }).seed).toBe(CI_SEED);
    expect(parseRunFlags({ seed: '42' }, { CI: 'true' }).seed).toBe(42);
    const drawn = new Set([1, 2, 3, 4, 5].map(() => parseRunFlags({}, {}).seed));
    expect(drawn.size).toBeGreaterThan(1);
  });

  it('builds reproduce arguments that point at the same target and settings', () => {
    const s = parseRunFlags({ config: 't.yaml', release: '17.1', runs: '50', slow: true }, {});
    expect(reproduceArgs(s)).toEqual(['--config', 't.yaml', '--release', '17.1', '--runs', '50', '--slow']);
    expect(reproduceArgs(parseRunFlags({ fault: ['a,b'] }, {}))).toEqual(['--fault', 'a', '--fault', 'b']);
  });

  it('prints the seed and returns 1 when a check fails against the embedded simulator', async () => {
    const r = await run({ seed: '9' }, [ALWAYS_FAILS]);
    expect(r.err).toContain('seed 9,');
    expect(r.code).toBe(1);
    expect(r.out).toContain('idp-conformance run --check grants.always-fails --seed 9');
  });

  it("the footer's rerun command is the run's own: selection, runs, faults and seed (review 27)", async () => {
    const r = await run({ seed: '9', suite: 'tokens,grants', runs: '3', fault: ['refresh-token-reusable'] }, [
      ALWAYS_FAILS,
    ]);
    expect(r.out).toContain(
      'seed: 9 (rerun: npx idp-conformance run --suite tokens,grants --runs 3 --fault refresh-token-reusable --seed 9)',
    );
  });

  it('--origin narrows the run to the checks proving rules of those origins, intersected with --rule', async () => {
    const catalogue = (await import('../../suites/runner/rules.js')).ruleCatalogue();
    const pkce = parseRunFlags({ origin: 'RFC 7636' }, {}).rules;
    expect(pkce.length).toBeGreaterThan(0);
    expect(pkce.sort()).toEqual(
      catalogue
        .filter((r) => r.origin.startsWith('RFC 7636'))
        .map((r) => r.id)
        .sort(),
    );
    const source = parseRunFlags({ origin: 'source' }, {}).rules;
    expect(source).toEqual(catalogue.filter((r) => r.origin === 'source').map((r) => r.id));
    expect(parseRunFlags({ origin: 'source', rule: `${source[0]},${pkce[0]}` }, {}).rules).toEqual([source[0]]);
    // The checks that run are those proving a selected rule.
    const seen: string[] = [];
    const check = (id: string, rule: RuleId): Check => ({
      id,
      suite: 'grants',
      title: id,
      rules: [rule],
      run: async (t: CheckContext) => {
        seen.push(id);
        await t.http.get('/oauth/discovery/keys');
        t.expect(true, `${id} ran`, { rules: [rule] });
      },
    });
    const r = await run({ origin: 'RFC 7636', seed: '1' }, [
      check('grants.a', pkce[0] as RuleId),
      check('grants.b', source[0] as RuleId),
    ]);
    expect(seen).toEqual(['grants.a']);
    expect(r.code).toBe(0);
  });

  it('--verbose lists every rule in the per-rule table, passed ones included', async () => {
    const passing: Check = {
      id: 'tokens.keys',
      suite: 'tokens',
      title: 'keys',
      rules: ['OIDC-JWKS'],
      run: async (t: CheckContext) => {
        const res = await t.http.get('/oauth/discovery/keys');
        t.expect(res.status === 200, 'keys answer 200', { rules: ['OIDC-JWKS'] });
      },
    };
    const quiet = await run({ seed: '1' }, [passing]);
    const verbose = await run({ seed: '1', verbose: true }, [passing]);
    expect(quiet.code).toBe(0);
    expect(verbose.code).toBe(0);
    expect(quiet.out).not.toMatch(/^OIDC-JWKS\s/m);
    expect(verbose.out).toMatch(/^Rule\s+Level\s+Origin\s+Verdict\s+Checks\s+First failure$/m);
    expect(verbose.out).toMatch(/^OIDC-JWKS\s+must\s+source\s+passed\s+tokens\.keys$/m);
  });
});
