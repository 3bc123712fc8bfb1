/**
 * `npm run bench` runs: its quick mode (a fraction of a second per request, one round) prints the
 * one table with every row. No figure is judged here: performance is only read from the table.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const script = new URL('../dist/bench/run.js', import.meta.url).pathname;

describe('npm run bench --quick', () => {
  it.skipIf(!existsSync(script))(
    'prints the table: HTTP rows beside the bare server and node-oidc-provider, in-process, start, memory, pagination',
    async () => {
      // 200 requests per row (four a connection: every row's requests, context and answers go the
      // same way as under load) and a short settle before each memory reading: no figure is judged,
      // and the load keeps both cores busy while the other tests wait.
      const { stdout } = await promisify(execFile)(process.execPath, [script, '--quick'], {
        env: { ...process.env, BENCH_SECONDS: '0.1', BENCH_REQUESTS: '200', BENCH_SETTLE_MS: '50' },
        maxBuffer: 1 << 20,
        timeout: 170_000,
      });
      const rows = stdout.split('\n').filter((line) => line.startsWith('| '));
      const row = (label: string) => rows.find((r) => r.startsWith(`| ${label}`));
      const header = rows[0].split('|').map((c) => c.trim());
      expect(header).toEqual(
        expect.arrayContaining([
          'simulator req/s',
          'bare Node http req/s',
          'adapter alone / bare',
          'node-oidc-provider req/s',
        ]),
      );
      for (const label of [
        'GET /api/v4/projects?per_page=20',
        'GET /oauth/discovery/keys',
        'POST /oauth/authorize_device',
        'POST /oauth/token (device poll, pending)',
        'POST /oauth/token (refresh grant)',
        'GET /oauth/token/info',
        'keyset page, depth 900,000',
        'in process, sim.handle',
        'in process, msw handlers',
        '`simulate` start',
        'simulator RSS idle',
        'simulator RSS after the load',
        'simulator RSS after eviction',
        'stored records after eviction',
        'pagination in process: keyset page, depth 900,000',
      ]) {
        expect(row(label), label).toBeDefined();
      }
      // each row with a target is also read from the servers' side: CPU per request, and how busy
      // the load generator was (a bare figure near its ceiling says more of autocannon than of Node)
      expect(stdout).toMatch(
        /^POST \/oauth\/authorize_device: sim \/ bare by round \d+\.\d\d; by server CPU per request \d+\.\d\d \(simulator [\d.,]+ µs, bare [\d.,]+ µs\); load generator busy \d+ % of its core on the simulator's runs, \d+ % on the bare server's$/m,
      );
      // the keyset row's depth ratio is paired round by round, as the rows' sim / bare are
      expect(stdout).toMatch(/^keyset over HTTP: depth 1 \/ depth 900,000 by round \d+\.\d\d$/m);
      // the peer answered the keys request, with a figure in its column
      const keys = row('GET /oauth/discovery/keys')!
        .split('|')
        .map((c) => c.trim());
      expect(keys[header.indexOf('node-oidc-provider req/s')]).toMatch(/^[\d,]+$/);
      // the simulator's adapter alone served the rows with a target, and only those
      const cell = (label: string) =>
        row(label)!
          .split('|')
          .map((c) => c.trim())[header.indexOf('adapter alone / bare')];
      expect(cell('POST /oauth/token (device poll, pending)')).toMatch(/^\d+\.\d\d$/);
      expect(cell('POST /oauth/token (refresh grant)')).toBe('');
      // every measured answer had the status the row expects (otherwise a note follows the table)
      expect(stdout).not.toMatch(/answers of .* were not/);
    },
    180_000,
  );

  it.skipIf(!existsSync(script))(
    'bench:calibrate prints, for a row, the bare server, bare + W µs of work, the adapter alone and the simulator with its in-process cost',
    async () => {
      const calibrate = new URL('../dist/bench/calibrate.js', import.meta.url).pathname;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        // Two spinning servers of the five: each is a process to start.
        [calibrate, '--seconds', '0.1', '--rounds', '1', '--spins', '10', 'discovery/keys'],
        { env: { ...process.env, BENCH_REQUESTS: '200' }, maxBuffer: 1 << 20, timeout: 60_000 },
      );
      expect(stdout).toContain('## GET /oauth/discovery/keys');
      expect(stdout).not.toContain('device poll');
      const names = stdout
        .split('\n')
        .filter((line) => /^\| (bare|adapter alone|simulator) /.test(line))
        .map((line) => line.split('|')[1].trim());
      expect(names).toEqual(['bare', 'bare + 10 µs', 'adapter alone', 'simulator']);
      expect(stdout).toMatch(
        /\| simulator \| its own: [\d.]+ µs in process, and the adapter's \| [\d,]+ \| \d+\.\d\d \|/,
      );
      expect(stdout).toMatch(/the simulator reaches \d+\.\d\d\./);
    },
    60_000,
  );

  it.skipIf(!existsSync(script))('refuses a bad argument in one line and exit code 2, as the CLI does', async () => {
    const profile = new URL('../dist/bench/profile.js', import.meta.url).pathname;
    const calibrate = new URL('../dist/bench/calibrate.js', import.meta.url).pathname;
    for (const [file, args, said] of [
      [script, ['--nope'], /^bench: Unknown option '--nope'/],
      [script, ['extra'], /^bench: .*'extra'/],
      [profile, ['--seconds', 'x'], /^bench:profile: --seconds takes a positive number\n/],
      [calibrate, ['--rounds', '0'], /^bench:calibrate: --rounds takes a positive number\n/],
      [calibrate, ['--spins', '5,x'], /^bench:calibrate: --spins takes microseconds/],
    ] as const) {
      const failed = await promisify(execFile)(process.execPath, [file, ...args]).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed?.code, args.join(' ')).toBe(2);
      expect(failed?.stderr).toMatch(said);
      expect(failed?.stderr).toMatch(/\nusage: npm run bench/);
      expect(failed?.stderr).not.toContain('\n    at ');
    }
  });

  it.skipIf(!existsSync(script))(
    'a server that cannot start ends the run with one line, and leaves no other server running',
    async () => {
      // --against a folder that holds no build: its simulator exits before it is ready, after this
      // build's one started. That one held the run's stdout open for ever (the run never ended).
      const profile = new URL('../dist/bench/profile.js', import.meta.url).pathname;
      const failed = await promisify(execFile)(
        process.execPath,
        [profile, 'authorize_device', '--against', '/nonexistent-build', '--seconds', '0.1', '--rounds', '1'],
        { timeout: 30_000 },
      ).then(
        () => undefined,
        (error: { code: number | null; killed: boolean; stderr: string }) => error,
      );
      expect(failed?.killed).toBe(false);
      expect(failed?.code).toBe(1);
      expect(failed?.stderr).toMatch(/^bench:profile: .*nonexistent-build.* exited with \d+ before it was ready$/m);
    },
    60_000,
  );
});
