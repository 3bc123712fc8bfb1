/**
 * `idp-conformance proxy` as a command, in a child process (needs the build): bad usage is one
 * line and exit 2; it prints its URL, forwards, and on SIGINT or SIGTERM writes its report and
 * exits 0 (nothing broke) or 1 (a must rule broke in the traffic it saw).
 */
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Loopback } from '../suites/loopback.js';
import type { Report } from '../../suites/report/model.js';
import { executeProxy, type ProxyFlags } from '../../cli/proxy.js';
import { isUsageError } from '../../cli/errors.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'cli-proxy-'));
const ENV = { ...process.env, NO_COLOR: '1' };
let origin: Loopback;

/** A token endpoint whose answers lack no-store and spell Bearer: TOK-TYPE-LOWERCASE-BEARER is a must. */
beforeAll(async () => {
  origin = await listen((req, res) => {
    req.resume();
    // A silent path: the proxy's --timeout answers for it.
    if (req.url === '/silent') return;
    req.on('end', () => {
      const body = JSON.stringify({
        access_token: 'x'.repeat(40),
        token_type: 'Bearer',
        expires_in: 7200,
        refresh_token: 'y'.repeat(40),
        scope: 'api',
        created_at: 1,
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
});
afterAll(() => origin.close());

const usage = (...args: string[]) =>
  spawnSync(process.execPath, [MAIN, 'proxy', ...args], { env: ENV, encoding: 'utf8' });

/** The URL the proxy prints first on stdout. */
function announced(child: ChildProcessByStdio<null, Readable, Readable>): Promise<string> {
  let out = '';
  return new Promise<string>((resolve) =>
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^(http:\/\/\S+)\n/.exec(out);
      if (line) resolve(line[1]);
    }),
  );
}

describe('proxy command', () => {
  it('is listed in --help and explains itself', () => {
    expect(spawnSync(process.execPath, [MAIN, '--help'], { env: ENV, encoding: 'utf8' }).stdout).toMatch(/proxy/);
    const help = usage('--help').stdout;
    expect(help).toMatch(/--target <url>[\s\S]*--listen <port>[\s\S]*Exit codes/);
    // The remedy the 403 for a visit without a Referer names.
    expect(help).toMatch(/--allow-no-referer  +accept a top-level visit/);
    // As the README: nothing judged is 2, not a pass.
    expect(help).toMatch(/2 [^\n]*no exchange was judged/);
  });

  it('bad usage: one line on stderr, exit 2', () => {
    const result = usage();
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('idp-conformance: proxy needs --target URL, the provider to forward to\n');
  });

  // The command turns a UsageError into its one line and exit 2 (above, in a child process); which
  // flags are refused, and in what words, is asked of the command's function in process.
  it.each<[ProxyFlags, RegExp]>([
    [{ target: 'ftp://x' }, /http\(s\) URL/],
    [{ target: 'http://127.0.0.1:1', host: '0.0.0.0' }, /loopback/],
    [{ target: 'http://127.0.0.1:1', listen: 'abc' }, /--listen must be a port/],
    [{ target: 'http://127.0.0.1:1', report: 'pdf=x.pdf' }, /unknown report kind/],
    [{ target: 'http://127.0.0.1:1', timeout: '2s' }, /--timeout must be a whole number/],
    [{ target: 'http://127.0.0.1:1', maxBody: '12' }, /--max-body must be a size of at least 1024 bytes/],
    [{ target: 'http://127.0.0.1:1', maxConnections: '0' }, /--max-connections must be a whole number/],
    [{ target: 'http://127.0.0.1:1', allowOrigin: ['app.example'] }, /--allow-origin expects an origin/],
    [{ target: 'http://127.0.0.1:1', allowOrigin: ['https://app.example/path'] }, /--allow-origin expects an origin/],
    [{ target: 'http://127.0.0.1:1', allowOrigin: ['ftp://app.example'] }, /--allow-origin expects an origin/],
  ])('%j: a usage error of one line', async (flags, message) => {
    const io = { out: () => undefined, err: () => undefined, stop: () => Promise.resolve() };
    const refused = await executeProxy(flags, io).then(
      () => undefined,
      (error: unknown) => error,
    );
    // What the command's main makes one line and exit 2 of.
    expect(isUsageError(refused), String(refused)).toBe(true);
    expect((refused as Error).message).toMatch(message);
    expect((refused as Error).message).not.toContain('\n');
  });

  it('--timeout answers 504 for a target that stays silent', async () => {
    const child = spawn(process.execPath, [MAIN, 'proxy', '--target', origin.url, '--timeout', '300'], {
      env: ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await announced(child);
      const res = await fetch(`${url}/silent`);
      expect(res.status).toBe(504);
      expect(await res.text()).toMatch(/did not answer within 300 ms/);
    } finally {
      child.kill('SIGTERM');
    }
  });

  // SIGHUP: the terminal closed or the SSH session dropped under a long session (review 30).
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
    'on %s writes the report and exits 1 for a broken must rule',
    async (signal) => {
      const file = join(dir, `${signal}.json`);
      const child = spawn(process.execPath, [MAIN, 'proxy', '--target', origin.url, '--report', `json=${file}`], {
        env: ENV,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const url = await announced(child);
      const res = await fetch(`${url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=authorization_code&code=abc&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb',
      });
      expect(res.status).toBe(200);
      await res.text();
      // The judge runs just after the answer went out.
      await new Promise((r) => setTimeout(r, 200));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill(signal);
      expect(await exited).toBe(1);
      const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
      const status = (id: string) => report.rules.find((r) => r.id === id)?.status;
      expect(status('TOK-TYPE-LOWERCASE-BEARER')).toBe('failed');
      expect(status('TOK-NO-STORE')).toBe('failed');
      expect(status('TOK-RESPONSE-JSON')).toBe('passed');
      expect(status('DEV-SLOW-DOWN')).toBe('untested');
      // Secrets the traffic carried stay out of the report and the console.
      expect(readFileSync(file, 'utf8')).not.toContain('x'.repeat(40));
      expect(out).not.toContain('x'.repeat(40));
    },
  );
});
