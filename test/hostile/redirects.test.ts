/**
 * Redirects from the endpoints that take credentials in the body: the token and revocation
 * endpoints answer 307 or 308 (which a client that follows would answer by sending the same body,
 * the client secret in it, again) to another origin, to themselves with credentials in the
 * authority (`http://user:pass@…`), or to themselves (a loop). The harness follows no redirect of
 * a POST: the answer is judged as it came, nothing reaches the other origin, and each run ends with
 * its verdict and report, no check crashed. A proxy in front of the simulator answers in their place.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Report } from '../../suites/report/model.js';
import type { CheckContext } from '../../suites/types.js';
import { allChecks } from '../../suites/index.js';
import { runCli } from '../suites/loopback.js';
import { proxiedSimulator, startCollector, type Collector } from './collector.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-hostile-redirects-'));
let front: Awaited<ReturnType<typeof proxiedSimulator>>;
let collector: Collector;
/** Where the endpoints send the client, from the URL asked. */
let redirect: ((asked: string) => string) | undefined;
let status = 307;

const CHECKS = ['grants.code-unknown', 'grants.client-authentication-failures', 'tokens.revoke-unknown-token'];

beforeAll(async () => {
  front = await proxiedSimulator(dir, (req, answer) =>
    req.method === 'POST' && /^\/oauth\/(token|revoke)/.test(req.url ?? '') && redirect
      ? { status, headers: [['location', redirect(`${front.proxy.url}${req.url}`)]], body: Buffer.alloc(0) }
      : answer,
  );
  // The collector answers as the simulator does: a harness that followed would get what it asked.
  collector = await startCollector((req, res, body) => front.proxy.handle(req, res, body));
  front.sim.options.controlHosts!.push(new URL(collector.url).host);
});

afterAll(async () => {
  await collector?.close();
  await front?.close();
});

describe('the token and revocation endpoints redirect', () => {
  it.each([
    ['307 to another origin', 307, (asked: string) => asked.replace(front.proxy.url, collector.url)],
    ['308 to another origin', 308, (asked: string) => asked.replace(front.proxy.url, collector.url)],
    ['307 to themselves, credentials in the authority', 307, (asked: string) => asked.replace('//', '//user:pass@')],
    ['307 to themselves (a loop)', 307, (asked: string) => asked],
  ])(
    '%s: followed nowhere, judged as answered, the run ends with its verdict',
    async (_, code, where) => {
      // From the first check on: the start-up would take a redirect for no endpoint at all.
      const checks = allChecks()
        .filter((c) => CHECKS.includes(c.id))
        .map((check, i) => (i ? check : { ...check, run: (t: CheckContext) => ((redirect = where), check.run(t)) }));
      status = code;
      collector.received.length = 0;
      const file = join(dir, 'report.json');
      const r = await runCli({ config: front.config, seed: '3', runs: '1', report: `json=${file}` }, { checks });
      redirect = undefined;
      expect(collector.received).toEqual([]);
      expect([0, 1, 2]).toContain(r.code);
      const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
      expect(report.checks.map((c) => c.id).sort()).toEqual([...CHECKS].sort());
      for (const check of report.checks) {
        expect(check.message ?? '').not.toMatch(/crashed/);
        // A redirect is no answer of the endpoint's: never a pass of its rules.
        expect(check.status).not.toBe('passed');
      }
    },
    120_000,
  );
});
