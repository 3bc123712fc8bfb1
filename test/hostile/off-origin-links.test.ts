/**
 * Credentials stay on the target's origin (issue 19, item 1): a proxy in front of the simulator
 * rewrites the origin of every `Link` URL and of a moved project's `Location` to a collector on
 * another loopback port. The collector mirrors the simulator (so a harness that follows keeps
 * walking) and counts what it receives. Nothing may reach it; each link that leaves is a failed
 * assertion of the rule about following it (PAG-LINK-FOLLOW, ENC-MOVED-REDIRECT), nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSimulator } from '../../simulator/core.js';
import { serve, type Served } from '../../simulator/adapters/node.js';
import { targetConfig } from '../../simulator/control/config.js';
import type { Report } from '../../suites/report/model.js';
import { runCli } from '../suites/loopback.js';
import { reorigin, startCollector, startProxy, type Collector } from './collector.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-hostile-links-'));
let served: Served;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let collector: Collector;

/** The discovery document with every endpoint but the issuer moved to the collector's origin. */
function elsewhere(body: Buffer, from: string, to: string): Buffer {
  const doc = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  for (const [field, value] of Object.entries(doc))
    if (field !== 'issuer' && typeof value === 'string') doc[field] = reorigin(value, from, to);
  return Buffer.from(JSON.stringify(doc));
}

beforeAll(async () => {
  const sim = createSimulator({});
  served = await serve(sim);
  let from = '';
  let to = '';
  proxy = await startProxy(served.url, (req, answer) => ({
    ...answer,
    headers: answer.headers.map(([name, value]) =>
      /^(link|location)$/i.test(name) && req.url?.startsWith('/api/')
        ? [name, reorigin(value, from, to)]
        : [name, value],
    ),
    body: req.url?.startsWith('/.well-known/openid-configuration') ? elsewhere(answer.body, from, to) : answer.body,
  }));
  // The collector answers as the simulator does: a harness that follows it keeps going.
  collector = await startCollector((req, res, body) => proxy.handle(req, res, body));
  [from, to] = [proxy.url, collector.url];
  sim.options.controlHosts = [served.url, proxy.url, collector.url].map((u) => new URL(u).host);
  writeFileSync(join(dir, 'target.json'), JSON.stringify(targetConfig(sim, proxy.url)));
});

afterAll(async () => {
  await collector?.close();
  await proxy?.close();
  await served?.close();
});

async function run(name: string, flags: Record<string, string>) {
  const file = join(dir, `${name}.json`);
  const { code, err } = await runCli({
    config: join(dir, 'target.json'),
    seed: '19',
    runs: '2',
    report: `json=${file}`,
    ...flags,
  });
  return { code, err, report: JSON.parse(readFileSync(file, 'utf8')) as Report };
}

/** Each failed check with the rules it broke. */
const failures = (report: Report) =>
  report.checks
    .filter((c) => c.status === 'failed' || c.status === 'warned')
    .map((c) => `${c.id} ${c.broken?.join(',')}`);

describe('links and redirects that leave the target are reported, and nothing is sent along them', () => {
  it('pagination: every rel=next/first/prev/last to another origin fails PAG-LINK-FOLLOW; the collector gets nothing', async () => {
    const { code, err, report } = await run('pagination', { suite: 'pagination' });
    expect(collector.received, 'requests the collector received').toEqual([]);
    const failed = failures(report);
    expect(failed.length, err.slice(-2000)).toBeGreaterThan(0);
    for (const line of failed) expect(line).toMatch(/ PAG-LINK-FOLLOW$/);
    const walk = report.checks.find((c) => c.id === 'pagination.offset-rows');
    expect(walk?.message).toMatch(/rel=(next|first|last|prev).* leaves the target's origin .* nothing was sent there/);
    expect(code).toBe(1);
  }, 600_000);

  it("a moved project's Location to another origin fails ENC-MOVED-REDIRECT; the collector gets nothing", async () => {
    const { report } = await run('moved', { check: 'encoding.moved-path-redirect' });
    expect(collector.received).toEqual([]);
    expect(failures(report)).toEqual(['encoding.moved-path-redirect ENC-MOVED-REDIRECT']);
    expect(report.checks[0].message).toMatch(/^Location of \S+ leaves the target's origin/);
  }, 120_000);

  it('discovery: endpoints on another origin break OIDC-DISCOVERY, and no check of the suite sends anything there', async () => {
    const { report, err } = await run('discovery', { suite: 'oidc' });
    expect(collector.received).toEqual([]);
    expect(failures(report), err.slice(-2000)).toEqual(['oidc.discovery OIDC-DISCOVERY']);
    const discovery = report.checks.find((c) => c.id === 'oidc.discovery');
    expect(discovery?.message).toMatch(
      /^authorization_endpoint leaves the target's origin \(http:\/\/127\.0\.0\.1:\d+\) for /,
    );
  }, 300_000);
});
