/**
 * Memory is bounded by the limits, not by the target: the real command in a child process, its
 * RSS sampled from /proc while a loopback simulator answers every REST call with a 7 MB body
 * (under --max-body 8M). Each failed check used to keep its answers whole (a slice of a string
 * keeps its parent alive): 2.9 GB peak on a whole run. Now the recorded evidence is cut, and the
 * peak stays within a fixed multiple of --max-body over the same run with small answers.
 * A resource bound, not a timing: needs the build (npm test builds first); Linux only (/proc).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../suites/report/model.js';
import { simulatorWith } from '../suites/loopback.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const MIB = 1024 * 1024;
const MAX_BODY = 8 * MIB;
/** The bound: this many --max-body over the same run with small answers (about 21 measured, 53 before). */
const MULTIPLE = 32;
const BODY = Buffer.from(`{"filler":"${'x'.repeat(7 * 1000 * 1000)}"}`);
const dir = mkdtempSync(join(tmpdir(), 'idp-memory-'));

/** Peak RSS in bytes of `idp-conformance run` against `target`, read from /proc while it runs. */
async function peakRss(target: string, report: string): Promise<{ peak: number; code: number | null; err: string }> {
  const args = [MAIN, 'run', '--target', target, '--suite', 'pagination', '--runs', '2', '--seed', '7'];
  const child = spawn(process.execPath, [...args, '--max-body', '8M', '--report', `json=${report}`], {
    env: { ...process.env, NO_COLOR: '1', CI: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  let peak = 0;
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      // VmHWM is the kernel's own high-water mark, so a spike between two samples is not missed.
      const hwm = /VmHWM:\s*(\d+) kB/.exec(status);
      if (hwm) peak = Math.max(peak, Number(hwm[1]) * 1024);
    } catch {
      /* the process has just ended */
    }
  };
  const sampler = setInterval(sample, 20);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(sampler);
  return { peak, code, err };
}

describe.runIf(existsSync('/proc/self/status'))('peak memory against a target of 7 MB answers', () => {
  it('stays within a fixed multiple of --max-body over the same run with small answers', async () => {
    let large = 0;
    const big = await simulatorWith((req, res) => {
      if (req.method !== 'GET' || !req.url?.startsWith('/api/v4/')) return false;
      large++;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': BODY.length });
      res.end(BODY);
      return true;
    });
    const plain = await simulatorWith(() => false);
    try {
      const small = await peakRss(plain.url, join(dir, 'plain.json'));
      expect(small.code, small.err).toBe(0);
      const file = join(dir, 'big.json');
      const heavy = await peakRss(big.url, file);
      expect(heavy.code, heavy.err).toBe(1);
      expect(large).toBeGreaterThan(20);
      const mib = (n: number) => `${(n / MIB).toFixed(0)} MiB`;
      expect(
        heavy.peak - small.peak,
        `peak ${mib(heavy.peak)} against ${mib(small.peak)} with small answers, ${large} answers of 7 MB`,
      ).toBeLessThan(MULTIPLE * MAX_BODY);
      // The evidence of each failure is cut, saying what the target sent.
      const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
      const bodies = report.checks.flatMap((c) => c.exchange ?? []).map((e) => e.response?.body ?? '');
      expect(bodies.some((b) => b.endsWith(`… truncated, ${BODY.length} bytes`))).toBe(true);
      expect(Math.max(...bodies.map((b) => b.length))).toBeLessThan(2100);
      expect(statSync(file).size).toBeLessThan(4 * MIB);
    } finally {
      await Promise.all([big.close(), plain.close()]);
    }
  }, 240_000);
});
