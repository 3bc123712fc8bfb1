/**
 * `diff` in daily use, against targets on loopback: one that does not answer, one whose TLS fails,
 * one that answers a sign-in page to everything (exit 2 and one line naming the trouble, never a
 * crash or a diff of nonsense), and Ctrl-C while the reference runs (the target's report still
 * written, saying INTERRUPTED, exit 130 as `run`); the progress says which of the two runs goes.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeDiff } from '../../cli/diff.js';
import type { Report } from '../../suites/report/model.js';
import { targetConfig } from '../../simulator/control/config.js';
import { simulatorWith } from '../suites/loopback.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-diff-daily-'));
let wall: Server;
let wallUrl: string;
beforeAll(async () => {
  // A sign-in wall (or captive portal) in front of everything: 200 and a login form.
  wall = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<form action="/login" method="post"><input name="password" type="password"></form>');
  });
  await new Promise<void>((resolve) => wall.listen(0, '127.0.0.1', resolve));
  wallUrl = `http://127.0.0.1:${(wall.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => wall.close(resolve)));

async function diff(flags: Parameters<typeof executeDiff>[0], onErr?: (text: string) => void) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await executeDiff(
    { seed: '3', runs: '1', ...flags },
    {
      out: (t) => void out.push(t),
      err: (t) => {
        err.push(t);
        onErr?.(t);
      },
    },
    {},
  );
  return { code, out: out.join(''), err: err.join('') };
}

describe('diff against a target that is not there, or not the provider', () => {
  it.each([
    ['unreachable', () => 'http://127.0.0.1:1', /does not answer: .*unreachable \(ECONNREFUSED\)/],
    ['its TLS failing', () => `https://${wallUrl.slice('http://'.length)}`, /does not answer: .*\(EPROTO\)/],
    ['a sign-in page to everything', () => wallUrl, /is not an identity provider of this spec .*text\/html/],
  ])('%s: exit 2, one line naming it, no diff', async (_name, target, said) => {
    const { code, out, err } = await diff({ target: target(), suite: 'tokens' });
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toMatch(said);
    expect(out).not.toMatch(/Diff against/);
    expect(code).toBe(2);
  });
});

describe('Ctrl-C while the reference runs', () => {
  it("writes the target's report, says INTERRUPTED, and exits 130", async () => {
    const file = join(dir, 'interrupted.json');
    let starts = 0;
    // Each run announces itself on stderr (`…: release 18.0 (self-managed), seed 3, …`): the
    // signal comes as the second, the reference's, starts, the target's run done.
    const { code, out, err } = await diff({ check: 'tokens.info-invalid-token', report: `json=${file}` }, (text) => {
      if (/: release \S+ \(/.test(text) && ++starts === 2) process.emit('SIGINT', 'SIGINT');
    });
    expect(starts, `${code} ${err}`).toBe(2);
    // Each run's progress says which of the two it is.
    expect(err).toMatch(/^diff 1\/2 \(target\) embedded simulator: release /m);
    expect(err).toMatch(/^diff 2\/2 \(reference\) embedded simulator: release /m);
    const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
    expect(report.interrupted).toBe('SIGINT');
    expect(report.diff).toBeUndefined();
    expect(report.checks.map((c) => `${c.id} ${c.status}`)).toEqual(['tokens.info-invalid-token passed']);
    expect(out).toMatch(/interrupted: no diff/);
    expect(out).toMatch(/INTERRUPTED/);
    expect(code).toBe(130);
  });
});

describe('a failure diff found on a target', () => {
  it('prints a reproduce command that runs that check against the same target, not the embedded simulator', async () => {
    const server = await simulatorWith(() => false, { faults: ['code-reusable'] });
    try {
      const config = join(dir, 'faulty.json');
      writeFileSync(config, JSON.stringify(targetConfig(server.sim, server.url)));
      const { code, out } = await diff({ config, check: 'grants.code-single-use' });
      expect(code).toBe(1);
      const reproduce = out.split('\n').filter((line) => line.includes('reproduce:'));
      expect(reproduce).toEqual([
        `  reproduce: npx idp-conformance run --check grants.code-single-use --seed 3 --config ${config} --release 18.0 --offering self-managed --runs 1`,
      ]);
    } finally {
      await server.close();
    }
  });
});
