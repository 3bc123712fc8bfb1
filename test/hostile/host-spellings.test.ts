/**
 * Review 24: rel=next links written `http://127.0.0.1.:PORT/…` passed the origin guard (the URL
 * parser reads the host as 127.0.0.1) while the transport looked the raw name `127.0.0.1.` up in
 * DNS with the token on the request: every pagination check errored, no rule blamed, exit 2. Here
 * a proxy in front of the simulator writes its Link URLs' host another way the parser reads as
 * 127.0.0.1; each such link is refused (nothing sent, whatever the wire would have made of it),
 * the walk fails PAG-LINK-FOLLOW, exit 1. Written as the target's own host, the links are followed.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type Served } from '../../simulator/adapters/node.js';
import { targetConfig } from '../../simulator/control/config.js';
import { createSimulator } from '../../simulator/core.js';
import type { Report } from '../../suites/report/model.js';
import { runCli } from '../suites/loopback.js';
import { startProxy } from './collector.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-hostile-hosts-'));
let served: Served;
let proxy: Awaited<ReturnType<typeof startProxy>>;
/** How the proxy writes its Link URLs' host this run. */
let spelling = '127.0.0.1';
/** The Host of every request the proxy received: one sent along a respelled link says so. */
const hosts: string[] = [];

beforeAll(async () => {
  const sim = createSimulator({});
  served = await serve(sim);
  proxy = await startProxy(served.url, (req, answer) => {
    hosts.push(req.headers.host ?? '');
    return {
      ...answer,
      headers: answer.headers.map(([name, value]) =>
        /^link$/i.test(name) ? [name, value.replaceAll('//127.0.0.1:', `//${spelling}:`)] : [name, value],
      ),
    };
  });
  sim.options.controlHosts = [served.url, proxy.url].map((u) => new URL(u).host);
  writeFileSync(join(dir, 'target.json'), JSON.stringify(targetConfig(sim, proxy.url)));
});

afterAll(async () => {
  await proxy?.close();
  await served?.close();
});

async function walk(host: string) {
  spelling = host;
  hosts.length = 0;
  const file = join(dir, `${host}.json`);
  const run = await runCli({
    config: join(dir, 'target.json'),
    check: 'pagination.offset-rows',
    seed: '24',
    runs: '1',
    report: `json=${file}`,
  });
  return { ...run, check: (JSON.parse(readFileSync(file, 'utf8')) as Report).checks[0] };
}

describe('a link whose host the URL parser reads as the target but the wire may not', () => {
  for (const host of ['127.0.0.1.', '0x7f000001', '127.1'])
    it(`${host}: refused, nothing sent along it, PAG-LINK-FOLLOW fails (exit 1)`, async () => {
      const { code, err, check } = await walk(host);
      expect(hosts.filter((h) => !h.startsWith('127.0.0.1:'))).toEqual([]);
      expect(check.status, err.slice(-2000)).toBe('failed');
      expect(check.broken).toEqual(['PAG-LINK-FOLLOW']);
      expect(check.message).toContain(`writes its host ${host}, which reads as 127.0.0.1`);
      expect(check.message).toContain('nothing was sent there');
      expect(code).toBe(1);
    }, 120_000);

  it("written as the target's own host, the links are followed", async () => {
    const { code, check } = await walk('127.0.0.1');
    expect(check.status).toBe('passed');
    expect(hosts.filter((h) => h.startsWith('127.0.0.1:')).length).toBeGreaterThan(1);
    expect(code).toBe(0);
  }, 120_000);
});
