/**
 * A target that takes connections and never answers, before any check: the probe stops at the
 * first unanswered question ("does not answer", not "not an identity provider" after four
 * timeouts), and Ctrl-C or SIGTERM while it waits ends the run at once, INTERRUPTED, its report
 * written, exit 130 or 143. The real command in a child process. Needs the build.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'silent-start-'));
let server: Server;
let url = '';
let asked: string[] = [];
let onRequest: () => void = () => undefined;

beforeAll(async () => {
  server = createServer((req) => {
    asked.push(`${req.method} ${req.url}`);
    onRequest();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeFileSync(join(dir, 'silent.yaml'), `baseUrl: ${url}\n`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function run(args: string[], signal?: NodeJS.Signals, command = 'run') {
  asked = [];
  const child = spawn(process.execPath, [MAIN, command, ...args], {
    env: { ...process.env, NO_COLOR: '1', CI: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  // The signal as soon as the target holds a question of the start-up.
  onRequest = () => {
    if (signal) child.kill(signal);
    onRequest = () => undefined;
  };
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, out, err })),
  );
}

describe('a target silent from the start', () => {
  it('the probe stops at its first unanswered question: the target does not answer, exit 2', async () => {
    const { code, err } = await run(['--config', join(dir, 'silent.yaml'), '--timeout', '1000']);
    expect(code, err).toBe(2);
    expect(err).toMatch(/does not answer: GET \/\.well-known\/openid-configuration: no answer within 1000 ms/);
    expect(err).not.toMatch(/not an identity provider/);
    expect(asked).toEqual(['GET /.well-known/openid-configuration']);
  }, 20_000);

  it.each([
    ['SIGINT', 130, '--config'],
    ['SIGTERM', 143, '--target'],
  ] as const)(
    '%s while it waits: exit %i, the report INTERRUPTED, no check run',
    async (signal, code, how) => {
      const report = join(dir, `${signal}.json`);
      const where = how === '--config' ? join(dir, 'silent.yaml') : url;
      const done = await run(
        [how, where, '--suite', 'oidc', '--timeout', '8000', '--report', `json=${report}`],
        signal,
      );
      expect(done.err).not.toMatch(/does not answer|not an identity provider/);
      expect(done.code, done.err).toBe(code);
      const saved = JSON.parse(readFileSync(report, 'utf8')) as {
        interrupted?: string;
        checks: { status: string }[];
      };
      expect(saved.interrupted).toBe(signal);
      expect(saved.checks.length).toBeGreaterThan(0);
      expect(saved.checks.every((c) => c.status === 'skipped')).toBe(true);
      expect(done.out).toMatch(/INTERRUPTED/);
    },
    40_000,
  );

  it('diff: SIGINT while it waits ends it at once too, exit 130, INTERRUPTED', async () => {
    const report = join(dir, 'diff.json');
    const done = await run(
      ['--config', join(dir, 'silent.yaml'), '--suite', 'oidc', '--timeout', '8000', '--report', `json=${report}`],
      'SIGINT',
      'diff',
    );
    expect(done.err).not.toMatch(/does not answer|not an identity provider/);
    expect(done.code, done.err).toBe(130);
    expect((JSON.parse(readFileSync(report, 'utf8')) as { interrupted?: string }).interrupted).toBe('SIGINT');
  }, 40_000);
});
