/**
 * Ctrl-C while the harness waits out a target's rate limit: the wait ends with the requests (the
 * same signal), the run writes its INTERRUPTED report and exits 130, in the start-up's probe, in
 * a check and in the browser driver's page visit alike. Before, the run sat out the whole
 * Retry-After (a sleep could not be cut), and the browser's wait until the 5 s grace left the
 * check abandoned. The refusals ask for RETRY_AFTER s, just within what the harness waits
 * (DEFAULT_MAX_RETRY_AFTER); the page's for PAGE_RETRY_AFTER s, well within what the check's time
 * limit leaves once the browser has loaded the page: a run that sat either out lives past it. The
 * real command in a child process. Needs the build.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import { DEFAULT_MAX_RETRY_AFTER } from '../../suites/target/rate.js';
import { INTERRUPTED } from '../../suites/runner/session.js';
import { HAS_CHROMIUM, startProvider, type Provider, type Reply } from '../providers/provider.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const RETRY_AFTER = DEFAULT_MAX_RETRY_AFTER - 1;
const PAGE_RETRY_AFTER = 30;
const dir = mkdtempSync(join(tmpdir(), 'throttled-interrupt-'));
/** The wait each refusal asks for (the row's). */
let retryAfter = RETRY_AFTER;
const tooMany = (): Reply => ({
  status: 429,
  headers: { 'retry-after': String(retryAfter), 'content-type': 'application/json' },
  body: '{"message":"429 Too Many Requests"}',
});
/** Requests refused, and what to do once the harness has read the first refusal. */
let refused = 0;
let onRefused: () => void = () => undefined;
const refuse = (): Reply => {
  if (refused++ === 0) setTimeout(() => onRefused(), 300);
  return tooMany();
};

/** A target refusing every request: the start-up's probe waits. */
let server: Server;
let url = '';
/** The simulator refusing a check's authorization requests (its state), not the start-up's. */
let provider: Provider;

beforeAll(async () => {
  server = createServer((_req, res) => {
    const { status, headers, body } = refuse();
    res.writeHead(status, headers);
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider = await startProvider((method, at) =>
    method === 'GET' &&
    at.pathname === '/oauth/authorize' &&
    /^(?!start-up-premise$)./.test(at.searchParams.get('state') ?? '')
      ? refuse
      : undefined,
  );
  writeFileSync(join(dir, 'provider.json'), JSON.stringify(targetConfig(provider.sim, provider.url)));
  writeFileSync(
    join(dir, 'browser.json'),
    JSON.stringify({ ...targetConfig(provider.sim, provider.url), driver: { kind: 'browser' } }),
  );
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await provider.close();
});

/** The command, SIGINT once the harness has read the first refusal (it then waits `seconds`). */
function interrupted(args: string[], seconds: number) {
  refused = 0;
  retryAfter = seconds;
  const started = Date.now();
  const child = spawn(process.execPath, [MAIN, 'run', ...args], {
    env: { ...process.env, NO_COLOR: '1', CI: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  onRefused = () => child.kill('SIGINT');
  return new Promise<{ code: number | null; out: string; err: string; seconds: number }>((resolve) =>
    child.on('exit', (code) => resolve({ code, out, err, seconds: (Date.now() - started) / 1000 })),
  );
}

/** The run interrupted in its wait of `seconds`: exit 130, the report INTERRUPTED, nothing sent after. */
async function expectStoppedAtOnce(what: string, args: string[], seconds: number) {
  const report = join(dir, `${what}.json`);
  const done = await interrupted([...args, '--report', `json=${report}`], seconds);
  expect(done.code, done.err).toBe(130);
  // Stopped by the first signal, not left after the grace (STOP_GRACE_MS) with the check abandoned.
  expect(done.err).not.toMatch(/did not stop within/);
  const saved = JSON.parse(readFileSync(report, 'utf8')) as {
    interrupted?: string;
    checks: Array<{ status: string; message?: string }>;
  };
  expect(saved.interrupted).toBe('SIGINT');
  expect(done.out).toMatch(/INTERRUPTED/);
  // Nothing sent after the signal: the retry the wait was for is not sent.
  expect(refused).toBe(1);
  // No timing claim: only that the Retry-After was not sat out.
  expect(done.seconds).toBeLessThan(seconds);
  return saved;
}

describe('Ctrl-C while the harness waits out a Retry-After', () => {
  it.each([
    ['the start-up probe', () => ['--target', url]],
    ['a check', () => ['--config', join(dir, 'provider.json'), '--check', 'grants.code-single-use']],
  ])(
    '%s: the wait ends, exit 130, the report INTERRUPTED',
    async (what, args) => void (await expectStoppedAtOnce(what, args(), RETRY_AFTER)),
    RETRY_AFTER * 1000 + 30_000,
  );

  it.skipIf(!HAS_CHROMIUM)(
    "the browser driver's page: the wait ends, exit 130, the report INTERRUPTED, the check skipped as interrupted",
    async () => {
      const args = ['--config', join(dir, 'browser.json'), '--check', 'grants.code-single-use'];
      const saved = await expectStoppedAtOnce('a page', args, PAGE_RETRY_AFTER);
      // Before: the wait ran on to the grace, the check abandoned ("did not stop within 5000 ms").
      expect(saved.checks.map((c) => [c.status, c.message])).toEqual([['skipped', INTERRUPTED]]);
    },
    PAGE_RETRY_AFTER * 1000 + 30_000,
  );
});
