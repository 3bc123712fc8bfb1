/**
 * A provider whose device verification page is not the service's GET /oauth/device (Okta's
 * /activate, Keycloak's /realms/NAME/device) names it in verification_uri: the form driver opens
 * that page, on the target's origin, and the device checks pass. Before, the driver always opened
 * /oauth/device: on such a provider a 404 with no approve button, and every check that needs an
 * approved device code errored.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeRun } from '../../cli/run.js';
import { targetConfig } from '../../simulator/control/config.js';
import { allChecks } from '../../suites/index.js';
import type { Report } from '../../suites/report/model.js';
import { simulatorWith, type Loopback } from '../suites/loopback.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-device-page-'));
let server: Loopback | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A check whose device code the driver approves on the page, and the check of the page itself. */
// (Those that approve twice or expire a code need a clock this target does not offer the form driver.)
const ON_THE_PAGE = ['device.token-response', 'device.verification-page'];

describe('a device verification page at a path of its own (verification_uri)', () => {
  it('is the page the form driver opens: the device checks pass, none errored', async () => {
    const opened: string[] = [];
    const sim = await simulatorWith((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      // Its device authorization answer names /activate (Okta's page) for verification_uri.
      if (req.method === 'POST' && url.pathname === '/oauth/authorize_device') {
        const [writeHead, end] = [res.writeHead.bind(res), res.end.bind(res)];
        const unsized = (headers: unknown) =>
          Array.isArray(headers)
            ? headers.filter((_, i, all) => !/^content-length$/i.test(String(all[i - (i % 2)])))
            : headers;
        res.writeHead = (status: number, headers?: unknown) => writeHead(status, unsized(headers) as never);
        res.end = ((body?: unknown) =>
          end(typeof body === 'string' ? body.replaceAll('/oauth/device', '/activate') : body)) as never;
      }
      // /activate is the service's page under that name.
      if (req.method === 'GET' && url.pathname === '/activate') {
        opened.push(url.pathname);
        req.url = `/oauth/device${url.search}`;
      }
      return false;
    });
    server = sim;
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ ...targetConfig(sim.sim, sim.url), driver: { kind: 'form' } }));
    const report = join(dir, 'report.json');
    let err = '';
    const checks = allChecks().filter((c) => ON_THE_PAGE.includes(c.id));
    expect(checks.map((c) => c.id).sort()).toEqual([...ON_THE_PAGE].sort());
    await executeRun(
      { config: file, report: `json=${report}`, runs: '1', seed: '5' },
      { out: () => undefined, err: (t) => void (err += t), checks: () => checks },
    );
    const json = JSON.parse(readFileSync(report, 'utf8')) as Report;
    const why = `${err}\n${json.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`).join('\n')}`;
    expect(
      json.checks.map((c) => `${c.status} ${c.id}`),
      why,
    ).toEqual(ON_THE_PAGE.map((id) => `passed ${id}`));
    // The approval opened the page the provider named (as did the page's own check), not GET /oauth/device.
    expect(opened.length, why).toBe(2);
  }, 60_000);
});
