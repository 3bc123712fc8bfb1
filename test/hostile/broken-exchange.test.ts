/**
 * An answer that is no HTTP the harness can read (here Content-Length beside Transfer-Encoding,
 * the framing of a request-smuggling front, which Node's parser refuses) says nothing of the rule
 * the request was for: the checks that met it are errored, naming what the target did, and no
 * rule is blamed for it. Before, each such check failed every rule it holds (the revocation
 * checks: REV-EMPTY-OBJECT, REV-PARAMS, REV-UNKNOWN-TOKEN-OK, ...), one cause for many blames.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import type { Sim } from '../../simulator/types.js';
import type { Report } from '../../suites/report/model.js';
import { runCli, simulatorWith, type Loopback } from '../suites/loopback.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-broken-'));
let server: (Loopback & { sim: Sim }) | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a target whose revocation endpoint answers no valid HTTP', () => {
  it('errors the checks that met it, saying so, and blames no rule for it', async () => {
    let broken = 0;
    server = await simulatorWith((req, res) => {
      if (req.method !== 'POST' || !req.url?.startsWith('/oauth/revoke')) return false;
      broken++;
      req.resume();
      res.socket?.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n');
      return true;
    });
    const file = join(dir, 'target.json');
    writeFileSync(file, JSON.stringify(targetConfig(server.sim, server.url)));
    const report = join(dir, 'report.json');
    const { code, err } = await runCli({ config: file, suite: 'tokens', report: `json=${report}`, seed: '5' });
    const json = JSON.parse(readFileSync(report, 'utf8')) as Report;
    const why = `${err}\n${json.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`).join('\n')}`;
    expect(broken, why).toBeGreaterThan(0);
    // Nothing failed or warned: the malformed answers judged no rule.
    expect(
      json.checks.filter((c) => c.status === 'failed' || c.status === 'warned').map((c) => c.id),
      why,
    ).toEqual([]);
    const errored = json.checks.filter((c) => c.status === 'errored');
    expect(
      errored.map((c) => c.id),
      why,
    ).toEqual(expect.arrayContaining(['tokens.revoke-access-token', 'tokens.revoke-unknown-token']));
    for (const c of errored)
      expect(c.message, why).toMatch(
        /^the exchange with the target broke off, so nothing was seen: POST \/oauth\/revoke: .* answered no valid HTTP \(HPE_/,
      );
    // The checks that never revoke were judged as ever.
    expect(json.checks.filter((c) => c.status === 'passed').length, why).toBeGreaterThan(0);
    // An errored check is no verdict on the target: the run is an error (exit 2), not a failure.
    expect(code, why).toBe(2);
  }, 120_000);
});
