/**
 * `diff` configures its reference from what the target says it is (issue 22): the release from
 * GET /api/v4/version, the flags spec/profiles.yaml ties to a discovery member; the config wins;
 * the output says what was read. The reads are untrusted as every other: bounded in size and
 * time, no redirect followed, the token only to the target's origin, none of the target's text shown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { executeDiff } from '../../cli/diff.js';
import { readTargetProfile } from '../../suites/diff/index.js';
import { createHttpTarget } from '../../suites/target/index.js';
import type { Report } from '../../suites/report/model.js';
import { proxyForTests, setJson } from '../independent/oauth-proxy.js';

const TOKEN = 'glpat-ReadTargetToken0123456789';
let answer: (req: IncomingMessage) => { status: number; body: string; delay?: number; headers?: object };
const seen: { path: string; token?: string }[] = [];
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', token: req.headers['private-token'] as string | undefined });
    const { status, body, delay = 0, headers = {} } = answer(req);
    setTimeout(() => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    }, delay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

async function read(options: { timeoutMs?: number; maxBodyBytes?: number } = {}) {
  seen.length = 0;
  const target = createHttpTarget({ baseUrl: base, personalAccessToken: TOKEN }, options);
  try {
    return await readTargetProfile(target);
  } finally {
    await target.close();
  }
}

describe('readTargetProfile against a loopback provider', () => {
  it('reads the release and the device flag, sending the token only with the version request', async () => {
    answer = (req) =>
      req.url === '/api/v4/version'
        ? { status: 200, body: JSON.stringify({ version: '17.5.3-ee', revision: 'abc' }) }
        : { status: 200, body: JSON.stringify({ issuer: base, device_authorization_endpoint: `${base}/x` }) };
    const profile = await read();
    expect(profile.release).toBe('17.5');
    expect(profile.flags).toEqual({ device_authorization_grant: true });
    expect(profile.read).toEqual([
      'device_authorization_grant on (GET /.well-known/openid-configuration)',
      'release 17.5 (GET /api/v4/version)',
    ]);
    expect(seen).toEqual([{ path: '/.well-known/openid-configuration' }, { path: '/api/v4/version', token: TOKEN }]);
  });

  it('reads a flag off where the discovery document lacks its member', async () => {
    answer = (req) =>
      req.url === '/api/v4/version'
        ? { status: 404, body: '{}' }
        : { status: 200, body: JSON.stringify({ issuer: base }) };
    const profile = await read();
    expect(profile).toEqual({
      flags: { device_authorization_grant: false },
      read: [
        'device_authorization_grant off (GET /.well-known/openid-configuration)',
        'no release from GET /api/v4/version: answered 404',
      ],
    });
  });

  it('takes nothing from hostile answers and shows none of their text', async () => {
    const cases: Array<[string, typeof answer, { timeoutMs?: number; maxBodyBytes?: number }?]> = [
      ['a huge body', () => ({ status: 200, body: JSON.stringify({ version: `17.5.${'9'.repeat(200_000)}` }) })],
      // Once an uncaught exception of the target's HTTP layer (suites/target/http.ts): now a refused read.
      ['past --max-body', () => ({ status: 200, body: 'x'.repeat(5000) }), { maxBodyBytes: 1000 }],
      ['too slow', () => ({ status: 200, body: '{"version":"17.5.0"}', delay: 2000 }), { timeoutMs: 200 }],
      ['a redirect elsewhere', () => ({ status: 302, body: '', headers: { location: 'http://127.0.0.2:1/v' } })],
      ['no JSON', () => ({ status: 200, body: '<html>\u001b[2J\u202e17.5</html>' })],
      ['a release it does not play', () => ({ status: 200, body: '{"version":"99.1.0"}' })],
      ['markup for a version', () => ({ status: 200, body: '{"version":"<script>17.5"}' })],
    ];
    for (const [what, hostile, options] of cases) {
      answer = hostile;
      const profile = await read(options);
      expect(profile.release, what).toBeUndefined();
      expect(Object.values(profile.flags).some(Boolean), what).toBe(false);
      expect(profile.read.join(' '), what).not.toMatch(/<|\u001b|\u202e|99999|127\.0\.0\.2/);
      expect(
        seen.every((s) => !s.path.startsWith('/v')),
        what,
      ).toBe(true);
    }
  }, 30_000);
});

describe('diff configures its reference from what the target says', () => {
  const proxy = proxyForTests();

  async function diff(config: string) {
    let report: Report | undefined;
    const out: string[] = [];
    const code = await executeDiff(
      { config, seed: '7', runs: '1', check: 'oidc.discovery' },
      { out: (t) => void out.push(t), err: () => {}, onReport: (r) => (report = r) },
      {},
    );
    return { code, report: report!, out: out.join('') };
  }

  it('plays the release the version endpoint names, unless the config names one', async () => {
    // The simulator has no version endpoint: the proxy answers one, as the real service does.
    proxy().use({
      answer(asked, answer) {
        if (asked.url.pathname !== '/api/v4/version') return false;
        answer.status = 200;
        answer.head.set('content-type', ['application/json']);
        setJson(answer, { version: '17.0.2' });
        return true;
      },
    });
    const config = JSON.parse(readFileSync(proxy().configFile, 'utf8')) as Record<string, unknown>;
    const { release: _release, features: _features, ...unnamed } = config;
    const file = proxy().configFile.replace(/\.json$/, '-unnamed.json');
    writeFileSync(file, JSON.stringify(unnamed));

    const read = await diff(file);
    expect(read.report.diff!.reference).toBe('embedded simulator 17.0 (self-managed)');
    expect(read.report.release).toBe('17.0');
    expect(read.report.diff!.read).toContain('release 17.0 (GET /api/v4/version)');
    expect(read.out).toContain('Read from the target: device_authorization_grant on');
    expect(read.out).toContain('release 17.0 (GET /api/v4/version)');
    expect(read.out).not.toContain(TOKEN);

    const named = await diff(proxy().configFile);
    expect(named.report.diff!.reference).toBe(`embedded simulator ${String(config.release)} (self-managed)`);
    expect(named.report.diff!.read).toContain(
      `release 17.0 (GET /api/v4/version); the configured ${String(config.release)} wins`,
    );
    proxy().use(undefined);
  }, 120_000);
});
