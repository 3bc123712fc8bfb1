/**
 * The proof of `idp-conformance diff`: with the embedded simulator under one `--fault X` as the
 * target and the clean simulator as the reference, the diff names X's operation and what X
 * changes there (status, error code, member, type, header, redirect), linked to X's rules; and
 * a clean target against the reference differs in nothing, so normalisation hides every
 * generated value. Each fault runs only the checks of its rules (as in the fault matrix).
 */
import { describe, expect, it } from 'vitest';
import { faults } from '../../spec/index.js';
import { executeDiff, type DiffFlags } from '../../cli/diff.js';
import { allChecks } from '../../suites/index.js';
import type { Difference, Report } from '../../suites/report/model.js';
import { renderJson, validateReport } from '../../reporters/index.js';

const SEED = '20260';

/**
 * The keyset checks repeat per list (one per row of the support table) over the same simulator
 * code: a fault shows on one list as on all, so the diffs here run them on the project jobs list
 * only (the offset checks still walk every collection).
 */
const OTHER_LISTS = /^pagination\.keyset-(rows-)?list-(?!project-jobs$)/;
const checks = () => allChecks().filter((c) => !OTHER_LISTS.test(c.id));

async function diff(flags: DiffFlags): Promise<{ code: number; report: Report; out: string }> {
  let report: Report | undefined;
  const out: string[] = [];
  const code = await executeDiff(
    { runs: '1', seed: SEED, ...flags },
    { out: (t) => void out.push(t), err: () => {}, onReport: (r) => (report = r), checks },
    {},
  );
  return { code, report: report!, out: out.join('') };
}

/** Per fault: the operation, kind and subject of the difference it must cause. */
const EXPECTED: Partial<Record<string, Pick<Difference, 'operation' | 'kind' | 'subject'> & { target?: string }>> = {
  'invalid-client-no-challenge': { operation: 'POST /oauth/token', kind: 'status', subject: 'status', target: '400' },
  'code-reusable': { operation: 'POST /oauth/token', kind: 'status', subject: 'status', target: '200' },
  'no-slow-down': { operation: 'POST /oauth/token', kind: 'error', subject: 'error', target: 'authorization_pending' },
  'token-info-no-aliases': {
    operation: 'GET /oauth/token/info',
    kind: 'member',
    subject: '$.scopes',
    target: 'absent',
  },
  'jwks-private-members': { operation: 'GET /oauth/discovery/keys', kind: 'member', subject: '$.keys[].d' },
  'token-type-case': {
    operation: 'POST /oauth/token',
    kind: 'type',
    subject: '$.token_type',
    target: 'string "Bearer"',
  },
  'device-uri-complete-no-user-code': {
    operation: 'POST /oauth/authorize_device',
    kind: 'type',
    subject: '$.verification_uri_complete',
    target: 'string',
  },
  'token-info-expiry-never-null': { operation: 'GET /oauth/token/info', kind: 'type', subject: '$.expires_in' },
  'token-cacheable': { operation: 'POST /oauth/token', kind: 'header', subject: 'cache-control', target: 'absent' },
  'token-error-cacheable': {
    operation: 'POST /oauth/token',
    kind: 'header',
    subject: 'cache-control',
    target: 'absent',
  },
  'link-drops-params': { operation: 'GET /api/v4/projects/{id}/issues', kind: 'header', subject: 'link' },
  'cors-allows-x-requested-with': {
    operation: 'OPTIONS /oauth/token',
    kind: 'header',
    subject: 'access-control-allow-headers',
  },
  'state-dropped': { operation: 'POST /oauth/authorize', kind: 'location', subject: 'location' },
  'legacy-jwks-served': { operation: 'GET /-/jwks', kind: 'status', subject: 'status', target: '200' },
  'http-redirect-accepted': { operation: 'POST /user_settings/applications', kind: 'status', subject: 'status' },
  // Values: where the spec fixes them (a const of spec/openapi.yaml), or by what they say of the request and the page.
  'device-timings-doubled': { operation: 'POST /oauth/authorize_device', kind: 'value', subject: '$.expires_in' },
  'x-total-off-by-one': {
    operation: 'GET /api/v4/projects/{id}/issues',
    kind: 'header',
    subject: 'x-total',
    target: 'number (disagrees with the records)',
  },
  'x-page-zero-based': {
    operation: 'GET /api/v4/projects/{id}/issues',
    kind: 'header',
    subject: 'x-page',
    target: 'number (≠ page asked)',
  },
  'per-page-not-clamped': {
    operation: 'GET /api/v4/projects/{id}/issues',
    kind: 'header',
    subject: 'x-per-page',
    target: 'number (≠ per_page asked, capped)',
  },
};

/**
 * token info's expires_in is the lifetime left, a value of the clock the two runs read at other
 * instants: no shape differs, and the target run's failure shows as one `value` row at the answer
 * it judged (suites/diff/compare.ts), linked to the fault's rule like every other.
 */
/** Exit codes: the target run's (a must rule failed: 1; a should rule warned: 0). */
const EXIT: Record<string, number> = { 'code-reusable': 1, 'token-cacheable': 1, 'token-error-cacheable': 0 };

// Every fault, as the issue asks, one diff each: a difference linked to the fault's own rules
// (the target run failed them by an assertion about that exchange), and where EXPECTED names
// one, that operation, kind and subject.
describe('diff shows what every fault changes, linked to its rules', () => {
  for (const fault of faults()) {
    it(fault.name, { timeout: 120_000 }, async () => {
      const { code, report, out } = await diff({ fault: [fault.name], rule: fault.rules.join(',') });
      const own = (d: Difference) => d.rules.some((r) => (fault.rules as string[]).includes(r));
      expect(report.diff!.differences.filter(own), out).not.toEqual([]);
      const expected = EXPECTED[fault.name];
      if (expected) {
        const found = report.diff!.differences.filter(
          (d) => d.operation === expected.operation && d.kind === expected.kind && d.subject === expected.subject,
        );
        expect(found, out).not.toEqual([]);
        if (expected.target) expect(found.map((d) => d.target)).toContain(expected.target);
        expect(found.filter(own), out).not.toEqual([]);
        expect(out).toContain(expected.operation);
        // The JSON report carries the diff section, valid against reporters/report.schema.json.
        expect(validateReport(JSON.parse(renderJson(report)))).toEqual([]);
      }
      if (fault.name in EXIT) expect(code).toBe(EXIT[fault.name]);
    });
  }
});

describe('diff of the clean simulator against the reference', () => {
  it('finds no difference: every generated value is normalised away', { timeout: 300_000 }, async () => {
    const { code, report, out } = await diff({ suite: 'grants,tokens,cors,pagination,oidc', runs: '2' });
    expect(report.diff!.exchanges.paired).toBeGreaterThan(500);
    expect(report.diff!.exchanges.target).toBe(report.diff!.exchanges.paired);
    expect(report.diff!.differences, out).toEqual([]);
    expect(out).toContain('No difference.');
    expect(code).toBe(0);
  });
});

describe('diff exit codes', () => {
  it('are listed in diff --help, after every option', async () => {
    const { Command } = await import('commander');
    const { registerDiff } = await import('../../cli/diff.js');
    const program = new Command('idp-conformance');
    registerDiff(program);
    const command = program.commands.find((c) => c.name() === 'diff')!;
    let help = '';
    command.configureOutput({ writeOut: (s) => void (help += s) });
    command.outputHelp();
    for (const flag of ['--target', '--config', '--suite', '--seed', '--runs', '--report', '--fault'])
      expect(help).toContain(flag);
    expect(help).toMatch(/Exit codes[^\n]*\n\s+0 .*\n\s+1 .*\n\s+2 /);
    // As run's: a check errored or the run stopped is 2, an interrupt 130 or 143; the bounds say their defaults.
    expect(help).toMatch(/errored/);
    expect(help).toMatch(/STOPPED/);
    expect(help).toMatch(/130 [^\n]*SIGINT[^\n]*143/);
    expect(help).toMatch(/--deadline <duration>/);
    expect(help).toMatch(/--timeout <ms>[^(]*\(default \d+\)/);
    expect(help).toMatch(/--max-body <size>[\s\S]*?\(default \d+M\)/);
  });

  it('--deadline stops the target run with its reports, STOPPED, exit 2', async () => {
    const err: string[] = [];
    let report: Report | undefined;
    // A deadline already past when the first check starts: every check is skipped, said once.
    const code = await executeDiff(
      { seed: SEED, runs: '1', suite: 'tokens', deadline: '1ms' },
      { out: () => {}, err: (t) => void err.push(t), onReport: (r) => (report = r), checks },
      {},
    );
    expect(report?.stopped?.message).toMatch(/--deadline/);
    expect(err.join('')).toMatch(/^idp-conformance: the run reached its --deadline; \d+ of \d+ checks not run$/m);
    expect(code).toBe(2);
  });

  it('is 2 with one line for bad usage', async () => {
    const err: string[] = [];
    const code = await executeDiff({ seed: 'x' }, { out: () => {}, err: (t) => void err.push(t) }, {});
    expect(code).toBe(2);
    expect(err.join('')).toMatch(/^idp-conformance: --seed must be a whole number.*\n$/);
  });
});
