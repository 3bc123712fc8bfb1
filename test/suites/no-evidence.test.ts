/**
 * No pass without evidence: a target that answers 404 to everything, and one that answers 500 to
 * everything, with a full target config naming applications, a user, a token and fixtures. The
 * probe would stop both (so it is bypassed, as `--no-probe` does); then every check runs, and no
 * `must` rule may come out passed: each check fails, errs or skips, and says why.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { everything404, everything500, listen, runCli, type Handler, type Loopback } from './loopback.js';

const dir = mkdtempSync(join(tmpdir(), 'no-evidence-'));
const servers: Loopback[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

function configFor(url: string): string {
  const file = join(dir, `${url.split(':').at(-1)}.yaml`);
  const app = (id: string, scopes: string[], secret = true) =>
    `{ clientId: ${id}, ${secret ? `clientSecret: ${id}-secret-0123456789, ` : ''}redirectUri: "https://client.test/cb", scopes: [${scopes.join(', ')}] }`;
  writeFileSync(
    file,
    [
      `baseUrl: ${url}`,
      'release: "18.0"',
      'driver: { kind: form }',
      'user: { username: qa-bot, password: "pass-0123456789" }',
      'personalAccessToken: "glpat-0123456789abcdef"',
      'applications:',
      `  confidential: ${app('conf0123456789', ['api', 'read_user', 'openid'])}`,
      `  public: ${app('pub0123456789', ['api', 'openid'], false)}`,
      `  limited: ${app('lim0123456789', ['read_user'])}`,
      'fixtures: { project: group/subgroup/project, group: group }',
      '',
    ].join('\n'),
  );
  return file;
}

describe('no pass without evidence', () => {
  it.each<[string, boolean, Handler]>([
    ['404', true, everything404],
    ['500', true, everything500],
    ['404', false, everything404],
    ['500', false, everything500],
  ])(
    'against a target answering %s to everything (with a config: %s), no must rule passes and every check says why',
    async (status, withConfig, handler) => {
      const server = await listen(handler);
      servers.push(server);
      const report = join(dir, `${status}-${withConfig}.json`);
      const where = withConfig ? { config: configFor(server.url) } : { target: server.url };
      const r = await runCli({ ...where, probe: false, seed: '7', runs: '3', report: `json=${report}` });
      const json = JSON.parse(readFileSync(report, 'utf8')) as {
        rules: { id: string; level: string; status: string; checks: string[] }[];
        checks: { id: string; status: string; message?: string }[];
      };
      const passedMust = json.rules.filter((rule) => rule.level === 'must' && rule.status === 'passed');
      expect(
        passedMust.map((rule) => `${rule.id} (by ${rule.checks.join(', ')})`),
        r.err,
      ).toEqual([]);
      const silent = json.checks.filter((c) => c.status !== 'passed' && !c.message);
      expect(silent.map((c) => c.id)).toEqual([]);
      // What does run finds the provider wanting (a failed rule was tested); the verdict says how little that is.
      expect(r.code).toBe(1);
      expect(r.out).toMatch(/^FAIL \(partial: \d+ of \d+ must rules tested\)/m);
    },
    300_000,
  );
});
