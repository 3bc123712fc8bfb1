/**
 * What `run` says against targets that are not good providers: one line for what is plainly not a
 * provider, a failed check (never a crash, never unbounded memory) for a hostile body, report paths
 * judged before the run, and a verdict that says how much was tested.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../../simulator/core.js';
import { toNodeListener } from '../../simulator/adapters/node.js';
import { checkReportTargets, errnoWords, validateReport } from '../../reporters/index.js';
import {
  endlessBody,
  everything500,
  htmlEverywhere,
  listen,
  runCli,
  shortBody,
  bodyOf,
  sendAnswer,
  simulatorWith,
  staticFiles,
  type Loopback,
} from './loopback.js';

import { checks as tokenChecks } from '../../suites/tokens/index.js';
import { allChecks } from '../../suites/index.js';
import { executeRun } from '../../cli/run.js';
import type { Report } from '../../suites/report/model.js';
import { verdict } from '../../suites/report/verdict.js';

const dir = mkdtempSync(join(tmpdir(), 'run-outcomes-'));
const servers: Loopback[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});
const started = async <T extends Loopback>(server: Promise<T>): Promise<T> => {
  const s = await server;
  servers.push(s);
  return s;
};

describe('a target that is plainly not an identity provider', () => {
  it.each([
    ['a static file server', staticFiles, /GET \/\.well-known\/openid-configuration answered 404 text\/html/],
    ['a server answering 500 to everything', everything500, /answered 500 text\/plain, no discovery document/],
    [
      'a server answering HTML everywhere',
      htmlEverywhere,
      /POST \/oauth\/token answered 200 text\/html, no OAuth error/,
    ],
  ])('stops %s with one line and exit code 2, before any check', async (_name, handler, found) => {
    const { url } = await started(listen(handler));
    const r = await runCli({ target: url });
    expect(r.code).toBe(2);
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^idp-conformance: ${url} is not an identity provider of this spec \\(`));
    expect(lines[0]).toMatch(found);
    expect(lines[0]).toMatch(/GET \/api\/v4\/user answered \d+ [^,]+, not JSON\); no check was run$/);
    expect(r.out).toBe('');
  });

  it.each(['/api/v4', '/oauth', '/oauth/token'])(
    'stops a baseUrl one path too deep (%s) with one line that names the baseUrl to give, before any check',
    async (path) => {
      // The simulator answers JSON 404s under unknown paths, as GitLab does: no provider answer.
      const { url } = await started(simulatorWith(() => false));
      const r = await runCli({ target: url + path, check: 'oidc.discovery', seed: '1' });
      expect(r.code).toBe(2);
      const lines = r.err.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`${url}${path} is not an identity provider of this spec (`);
      expect(lines[0]).toContain('GET /api/v4/user answered 404 application/json, not found');
      expect(lines[0]).toMatch(new RegExp(`; ${url} answers as one: .*so set baseUrl to ${url}; no check was run$`));
      expect(r.out).toBe('');
    },
  );

  it('stops at a TLS certificate it does not trust with one line saying how to trust it, not "not a provider"', async () => {
    // A self-signed certificate for 127.0.0.1 (test/fixtures, valid for a century), the simulator behind.
    const fixture = (name: string) => readFileSync(new URL(`../fixtures/self-signed.${name}.pem`, import.meta.url));
    const sim = createSimulator();
    const server = createHttpsServer({ cert: fixture('cert'), key: fixture('key') }, toNodeListener(sim));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const config = join(dir, 'tls.json');
      writeFileSync(config, JSON.stringify({ baseUrl: base }));
      // --target asks the target's own config first; --config starts with the probe.
      for (const [flags, first] of [
        [{ target: base }, 'GET /-/simulator/config'],
        [{ config }, 'GET /.well-known/openid-configuration'],
      ] as const) {
        const r = await runCli({ ...flags, check: 'oidc.discovery', seed: '1' });
        expect(r.code).toBe(2);
        expect(r.err.trim().split('\n')).toEqual([
          `idp-conformance: target ${base} is not trusted: ${first}: the TLS certificate of ${base.slice(8)} is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT): to trust its CA, give its certificate (PEM) with NODE_EXTRA_CA_CERTS=/path/to/ca.pem`,
        ]);
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('stops a configured issuer with no discovery document whose provider names another, before any check', async () => {
    const { url } = await started(simulatorWith(() => false));
    const config = join(dir, 'issuer.json');
    // A realm misspelt: before, the id_tokens failed OIDC-ID-TOKEN-CLAIMS on their iss and OIDC-DISCOVERY warned.
    writeFileSync(config, JSON.stringify({ baseUrl: url, issuer: `${url}/realms/qa` }));
    const r = await runCli({ config, check: 'oidc.discovery', seed: '1' });
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toEqual([
      `idp-conformance: issuer ${url}/realms/qa has no discovery document (GET /realms/qa/.well-known/openid-configuration answered 404), and the one at baseUrl names issuer ${url}: set issuer to ${url}, or leave it out (it is then read from discovery); no check was run`,
    ]);
    // The same issuer with a trailing slash is the same issuer: the run goes on.
    writeFileSync(config, JSON.stringify({ baseUrl: url, issuer: `${url}/` }));
    expect((await runCli({ config, check: 'oidc.discovery', seed: '1' })).err).not.toMatch(/issuer/);
  });

  it('lets a provider through: the simulator over HTTP passes the probe', async () => {
    const { url } = await started(simulatorWith(() => false));
    const r = await runCli({ target: url, check: 'oidc.discovery', seed: '1' });
    expect(r.err).not.toMatch(/not an identity provider/);
    expect(r.code).toBe(0);
  });
});

/** Peak resident memory while `work` runs, above what it was before. */
async function peakRssGrowth<T>(work: () => Promise<T>): Promise<{ value: T; growthMb: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, growthMb: (peak - before) / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

describe('bounded memory against hostile bodies', () => {
  const keysPath = (req: { url?: string }) => req.url?.startsWith('/oauth/discovery/keys') === true;

  it.each([
    [
      'an endless body',
      endlessBody,
      /the body went on past \d+ bytes, more than the 1 MiB a response may have \(--max-body\)/,
    ],
    [
      'a Content-Length of 2 GiB never delivered',
      shortBody(2 ** 31),
      /the answer announced a body of 2147483648 bytes, more than the 1 MiB a response may have \(--max-body\)/,
    ],
  ])('%s fails the check that read it, with a report, and memory stays bounded', async (_name, hostile, message) => {
    const { url } = await started(simulatorWith((req, res) => keysPath(req) && (hostile(req, res), true)));
    const report = join(dir, `hostile-${Math.random().toString(36).slice(2)}.json`);
    const { value: r, growthMb } = await peakRssGrowth(() =>
      runCli({ target: url, check: 'oidc.jwks', seed: '3', maxBody: '1M', report: `json=${report}` }),
    );
    expect(r.code, r.err + r.out).toBe(1);
    expect(r.out).toMatch(/FAILED oidc oidc\.jwks/);
    expect(r.out).toMatch(message);
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(validateReport(json)).toEqual([]);
    expect(json.checks[0]).toMatchObject({ id: 'oidc.jwks', status: 'failed' });
    expect(json.checks[0].message).toMatch(message);
    // Without the cap an endless body grows until the process dies; with it, a few MB.
    expect(growthMb).toBeLessThan(300);
  });

  it('an oversized token answer is said once, no rule blamed where the checks are not about it; the later checks that needed it are untested', async () => {
    // Every POST to the token endpoint, the start-up's too: each announces a body past --max-body.
    const grant = (req: { url?: string; method?: string }) => req.method === 'POST' && req.url === '/oauth/token';
    const { url } = await started(simulatorWith((req, res) => grant(req) && (shortBody(2 ** 31)(req, res), true)));
    const report = join(dir, 'oversized-token.json');
    const ids = ['tokens.revoke-access-token', 'tokens.info-presentations', 'tokens.revoke-refresh-token'];
    const r = await runCli(
      { target: url, seed: '3', maxBody: '1M', report: `json=${report}` },
      { checks: tokenChecks.filter((c) => ids.includes(c.id)) },
    );
    const json = JSON.parse(readFileSync(report, 'utf8')) as Report;
    const [first, ...later] = json.checks;
    // Before, the first failed GRANT-CODE-PARAMS, a rule none of these checks is about.
    expect(first).toMatchObject({ status: 'errored' });
    expect(first.broken ?? []).toEqual([]);
    expect(first.message).toMatch(
      /too large to read.*POST \/oauth\/token: the answer announced a body of 2147483648 bytes/,
    );
    expect(later.map((c) => [c.status, c.message?.match(/\(([\w.-]+) reports it, once\)$/)?.[1]])).toEqual(
      later.map(() => ['skipped', first.id]),
    );
    expect(r.code, r.err).toBe(2);
  });

  it("an oversized code exchange fails the check about that answer on the token endpoint's own rule, once", async () => {
    const grant = (req: { url?: string; method?: string }) => req.method === 'POST' && req.url === '/oauth/token';
    const { url } = await started(simulatorWith((req, res) => grant(req) && (shortBody(2 ** 31)(req, res), true)));
    const report = join(dir, 'oversized-exchange.json');
    const r = await runCli({
      target: url,
      seed: '3',
      maxBody: '1M',
      report: `json=${report}`,
      check: 'grants.token-response-fields',
    });
    const json = JSON.parse(readFileSync(report, 'utf8')) as Report;
    expect(json.checks[0]).toMatchObject({
      id: 'grants.token-response-fields',
      status: 'failed',
      broken: ['GRANT-CODE-PARAMS'],
    });
    expect(r.code, r.err).toBe(1);
  });

  it('an oversized refresh answer blames no rule of the code exchange (review 15): the refresh check errs, saying so', async () => {
    // Only the refresh grant's answers are oversized; code exchanges are the simulator's own.
    const front = await started(
      simulatorWith((req, res) => {
        if (req.method !== 'POST' || req.url !== '/oauth/token') return false;
        void bodyOf(req).then((raw) => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
          if (new URLSearchParams(raw.toString('utf8')).get('grant_type') === 'refresh_token')
            return shortBody(2 ** 31)(req, res);
          const url = new URL('/oauth/token', front.url);
          sendAnswer(res, front.sim.handle(new Request(url, { method: 'POST', headers, body: new Uint8Array(raw) })));
        });
        return true;
      }),
    );
    const report = join(dir, 'oversized-refresh.json');
    const r = await runCli({
      target: front.url,
      seed: '3',
      maxBody: '1M',
      report: `json=${report}`,
      check: 'grants.refresh-rotation',
    });
    const json = JSON.parse(readFileSync(report, 'utf8')) as Report;
    // Before, it failed GRANT-CODE-PARAMS: the code exchange's rule, for a refresh answer.
    expect(json.checks[0]).toMatchObject({ id: 'grants.refresh-rotation', status: 'errored' });
    expect(json.checks[0].broken ?? []).toEqual([]);
    expect(json.checks[0].message).toMatch(/too large to read/);
    expect(r.code, r.err).toBe(2);
  });

  it('an oversized userinfo answer fails OIDC-USERINFO in oidc.userinfo once, though a revocation check met it first and erred (review 28)', async () => {
    const userinfo = (req: { url?: string; method?: string; headers: Record<string, unknown> }) =>
      req.method === 'GET' && req.url === '/oauth/userinfo' && req.headers.authorization !== undefined;
    const { url } = await started(simulatorWith((req, res) => userinfo(req) && (shortBody(2 ** 31)(req, res), true)));
    const report = join(dir, 'oversized-userinfo.json');
    const ids = ['tokens.revoke-access-token', 'oidc.userinfo', 'oidc.userinfo-requires-openid'];
    const r = await runCli(
      { target: url, seed: '3', maxBody: '1M', report: `json=${report}` },
      { checks: allChecks().filter((c) => ids.includes(c.id)) },
    );
    const json = JSON.parse(readFileSync(report, 'utf8')) as Report;
    const why = json.checks.map((c) => `${c.status} ${c.id}: ${c.message}`).join('\n');
    // Before, oidc.userinfo was untested: the first check to meet the answer said it, errored.
    expect(
      json.checks.map((c) => [c.id, c.status, c.broken ?? []]),
      why,
    ).toEqual([
      ['tokens.revoke-access-token', 'errored', []],
      ['oidc.userinfo', 'failed', ['OIDC-USERINFO']],
      ['oidc.userinfo-requires-openid', 'skipped', []],
    ]);
    expect(json.checks[2].message, why).toMatch(/\(tokens\.revoke-access-token reports it, once\)$/);
    expect(r.code, r.err).toBe(1);
  });

  it('a body shorter than announced, under the cap, ends at the request timeout as an errored check', async () => {
    const { url } = await started(simulatorWith((req, res) => keysPath(req) && (shortBody(5000)(req, res), true)));
    const r = await runCli({ target: url, check: 'oidc.jwks', seed: '3', timeout: '300' });
    // The target did not answer: no evidence about the rule the check is about.
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/ERRORED oidc oidc\.jwks/);
    expect(r.out).toMatch(/GET \/oauth\/discovery\/keys: the answer did not end within 300 ms/);
  });

  it('refuses a --max-body that is not a size', async () => {
    const r = await runCli({ maxBody: 'lots' });
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'idp-conformance: --max-body must be a size of at least 1024 bytes, like 8M or 512k, got "lots"\n',
    );
  });
});

describe('report paths are judged before the run, in words', () => {
  const file = join(dir, 'a-file');
  writeFileSync(file, 'x');

  it.each([
    [
      `json=${join(file, 'r.json')}`,
      `cannot write the json report to ${join(file, 'r.json')}: ${file} is not a directory`,
    ],
    [`html=${dir}`, `cannot write the html report to ${dir}: ${dir} is a directory`],
    [`md=${join(file, 'deeper', 'r.md')}`, `${file} is not a directory`],
    // A folder that looks writable and takes no file (procfs): tried, not only looked at.
    ...(process.platform === 'linux'
      ? [
          [
            `json=/proc/idp-conformance-x.json,md=${dir}/z2.md`,
            'cannot write the json report to /proc/idp-conformance-x.json: ',
          ],
          // Folders still to be made, under one that takes none: the first is tried before the run
          // and named as the write after it would name it (review 27: PASS, then the failure).
          [
            'json=/proc/idp-conformance-none/deeper/x.json',
            'cannot write the json report to /proc/idp-conformance-none/deeper/x.json: /proc/idp-conformance-none: ',
          ],
        ]
      : []),
  ])('%s: exit 2 with the path, and no check ran', async (report, words) => {
    const r = await runCli({ report, seed: '1' });
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain(words);
    expect(r.out).toBe('');
  });

  it('a report that cannot be written after the run loses neither the verdict nor the other reports', async () => {
    const late = join(dir, 'late');
    const kept = join(dir, 'kept.md');
    const out: string[] = [];
    const err: string[] = [];
    const code = await executeRun(
      { check: 'oidc.discovery', seed: '1', report: `json=${join(late, 'r.json')},md=${kept}` },
      {
        out: (t) => void out.push(t),
        err: (t) => void err.push(t),
        // The disk changed during the run: a file now where the json report's folder was to be made.
        onReport: () => writeFileSync(late, 'x'),
      },
      {},
    );
    expect(code).toBe(2);
    expect(out.join('')).toMatch(/^PASS/m);
    expect(out.join('')).toContain(`md report: ${kept}`);
    expect(err.join('')).toContain(
      `idp-conformance: cannot write the json report to ${join(late, 'r.json')}: ${late} is not a directory\n`,
    );
    expect(readFileSync(kept, 'utf8')).toMatch(/idp-conformance: PASS/);
  });

  it('names permission problems in words, with the code', () => {
    expect(errnoWords(Object.assign(new Error('x'), { code: 'EACCES' }))).toBe('permission denied (EACCES)');
    expect(errnoWords(Object.assign(new Error('x'), { code: 'EROFS' }))).toBe('read-only file system (EROFS)');
  });

  it('accepts a path whose folders do not exist yet', async () => {
    await expect(checkReportTargets([{ kind: 'json', path: join(dir, 'new', 'deep', 'r.json') }])).resolves.toBe(
      undefined,
    );
    // The first folder to be made was tried and removed: nothing is left behind.
    expect(existsSync(join(dir, 'new'))).toBe(false);
  });
});

/** Every report kind under `dir`, named `name.kind`, and the --report value that writes them. */
function everyReport(name: string) {
  const reports = ['json', 'junit', 'html', 'md'].map((kind) => ({ kind, path: join(dir, `${name}.${kind}`) }));
  return { reports, report: reports.map((x) => `${x.kind}=${x.path}`).join(',') };
}

describe('the verdict says how much was tested', () => {
  it('names the share of must rules tested, in the console and every report, and --quiet prints only that', async () => {
    const { reports, report } = everyReport('cov');
    const r = await runCli({ suite: 'oidc', seed: '5', runs: '2', quiet: true, report });
    expect(r.code).toBe(0);
    const [verdictLine, ...written] = r.out.trimEnd().split('\n');
    expect(verdictLine).toMatch(
      /^PASS \((partial: )?\d+ of \d+ must rules tested\): 0 failed, \d+ warned, \d+ skipped, \d+ passed in /,
    );
    expect(written).toEqual([
      ...reports.map((x) => `${x.kind} report: ${x.path}`),
      // The rule catalogue the HTML and Markdown reports link to, beside them.
      ...['html', 'md'].map((kind) => `rule catalogue: ${join(dir, `rules.${kind}`)}`),
    ]);
    const json = JSON.parse(readFileSync(reports[0].path, 'utf8'));
    expect(json.coverage.must).toBe(json.rules.filter((x: { level: string }) => x.level === 'must').length);
    const share = `${json.coverage.mustTested} of ${json.coverage.must} must rules tested`;
    expect(verdictLine).toContain(share);
    for (const { path } of reports.slice(1)) expect(readFileSync(path, 'utf8')).toContain(share);
    // Not a progress line, not a table: quiet is quiet.
    expect(r.err).toBe('');
  });

  it('says partial when must rules went untested, and --require-coverage fails such a run', async () => {
    // Against a live-looking target most checks skip: no control API.
    const { url } = await started(simulatorWith(() => false, { control: false }));
    const plain = await runCli({ target: url, suite: 'oidc,cors', seed: '5', runs: '2' });
    expect(plain.code).toBe(0);
    expect(plain.out).toMatch(/^PASS \(partial: \d+ of \d+ must rules tested\)/m);
    const strict = await runCli({ target: url, suite: 'oidc,cors', seed: '5', runs: '2', requireCoverage: '100' });
    expect(strict.code).toBe(1);
    expect(strict.out).toMatch(/^FAIL \(partial: \d+ of \d+ must rules tested, below the required 100%\)/m);
  });
});

describe('a run that tested nothing is no pass (review 21)', () => {
  it('every selected check skipped: ERROR with the skip reason, exit 2, in the console and every report, whatever --require-coverage asks', async () => {
    const { reports, report } = everyReport('none');
    const r = await runCli({ check: 'grants.password-removed', requireCoverage: '80', seed: '5', report });
    expect(r.code).toBe(2);
    const line =
      'ERROR (0 of 0 must rules tested, below the required 80%): nothing was tested, 1 check skipped (its rules are not in force: VER-PASSWORD-GRANT-REMOVED applies from release 19.0 (this run: 18.0)), so nothing is passed';
    expect(r.out.split('\n')).toContain(line);
    // The JSON report is data (no verdict line): its summary and the check's reason say the same.
    const json = JSON.parse(readFileSync(reports[0].path, 'utf8'));
    expect(json.summary).toEqual({ passed: 0, failed: 0, warned: 0, skipped: 1, errored: 0 });
    expect(json.checks[0].message).toMatch(/^its rules are not in force/);
    for (const { path } of reports.slice(1))
      expect(readFileSync(path, 'utf8')).toContain('nothing was tested, 1 check skipped');
  });

  it('"0 of 0 must rules tested" is 0 % for --require-coverage when something was tested', () => {
    const report = {
      summary: { passed: 1, failed: 0, warned: 0, skipped: 0, errored: 0 },
      coverage: { must: 0, mustTested: 0, required: 1 },
      rules: [],
      checks: [],
    } as unknown as Report;
    expect(verdict(report)).toBe('fail');
    expect(verdict({ ...report, coverage: { must: 0, mustTested: 0 } })).toBe('pass');
  });
});

describe('the console respects people and CI', () => {
  it('piped: no colour, one progress line per area, skips grouped by reason', async () => {
    const { url } = await started(simulatorWith(() => false, { control: false }));
    const r = await runCli({ target: url, suite: 'oidc,device', seed: '5', runs: '2' });
    expect(r.out + r.err).not.toMatch(/\u001b\[/);
    const progress = r.err.trim().split('\n');
    expect(progress.slice(1)).toEqual([
      expect.stringMatching(/^device: \d+ [a-z]+(?:, \d+ [a-z]+)*$/),
      expect.stringMatching(/^oidc: \d+ [a-z]+(?:, \d+ [a-z]+)*$/),
    ]);
    expect(r.out).toMatch(/^SKIPPED \(\d+\) needs [^\n]+\n {2}(device|oidc)\.[\w-]+/m);
    expect(r.out).not.toMatch(/^SKIPPED \w+ \w+\./m);
  });

  it('on a terminal: colour and one line rewritten in place; NO_COLOR turns colour off', async () => {
    const tty = await runCli({ suite: 'oidc', seed: '5', runs: '2' }, { tty: true });
    expect(tty.out).toMatch(/\u001b\[1m/);
    expect(tty.err).toMatch(/\r\u001b\[2K\[1\/\d+\] /);
    expect(tty.err.split('\n').length).toBeLessThanOrEqual(3);
    const noColor = await runCli({ suite: 'oidc', seed: '5', runs: '2' }, { tty: true, env: { NO_COLOR: '1' } });
    expect(noColor.out).not.toMatch(/\u001b\[/);
    const ci = await runCli({ suite: 'oidc', seed: '5', runs: '2' }, { tty: true, env: { CI: 'true' } });
    expect(ci.err).not.toMatch(/\r/);
    expect(ci.err).toMatch(/^oidc: \d+ passed/m);
  });

  it('prints reproduce commands that work in a clone', async () => {
    const r = await runCli({ seed: '9', check: 'oidc.jwks', fault: ['jwks-private-members'] });
    expect(r.out).toMatch(
      /reproduce: npx idp-conformance run --check oidc\.jwks --seed 9 --fault jwks-private-members/,
    );
  });
});

describe('help and simulate say what they do', () => {
  it('run --help shows every default and the exit codes', async () => {
    const { Command } = await import('commander');
    const { registerRun } = await import('../../cli/run.js');
    const program = new Command('idp-conformance');
    registerRun(program);
    const run = program.commands.find((c) => c.name() === 'run')!;
    let help = '';
    run.configureOutput({ writeOut: (s) => void (help += s) });
    run.outputHelp();
    help = help.replace(/\n[^\S\n]+(?=\S)/g, (m) => (/\n\s{20,}/.test(m) ? ' ' : m));
    for (const option of run.options.filter(
      (o) => !o.hidden && !['--check', '--target', '--config', '--fault'].includes(o.long!),
    ))
      expect(help, option.long).toMatch(new RegExp(`${option.long}[^\\n]*default`));
    expect(help).toMatch(/default 15000\)/);
    expect(help).toMatch(/Exit codes:\n\s+0 .*\n\s+1 .*\n\s+2 .*\n(?:.*\n)*? {2,}70 .*\n\s+130 .*143/);
    expect(help).not.toContain('--no-probe');
  });

  it('simulate --write-config names the file it wrote', async () => {
    const { startSimulation } = await import('../../cli/simulate.js');
    const file = join(dir, 'written.yaml');
    const notes: string[] = [];
    const lines: string[] = [];
    const { served } = await startSimulation(
      { port: '0', writeConfig: file },
      (l) => lines.push(l),
      (l) => notes.push(l),
    );
    await served.close();
    expect(lines).toEqual([served.url]);
    expect(notes).toEqual([`target config written to ${file} (run --config ${file})`]);
  });
});
