/**
 * `proxy` in daily use, in process, in front of loopback targets that are not the provider: one
 * that does not answer, one whose TLS fails, one that answers a sign-in page to every API call,
 * Cloudflare's challenge or nginx's 502 to every request.
 * The client gets what the proxy can give (502, or the page as it came), stderr says so at once,
 * once, and the report on Ctrl-C says why it judged nothing: no provider's rule broken, exit 2
 * (nothing judged), no seed to rerun. On a terminal, one live line says how much was judged.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeProxy } from '../../cli/proxy.js';
import type { Report } from '../../suites/report/model.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-proxy-daily-'));
let wall: Server;
let wallUrl: string;
/** A provider's JSON answer to everything: judged. */
let json: { server: Server; port: number };
beforeAll(async () => {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end('{"id":1,"username":"u"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  json = { server, port: (server.address() as AddressInfo).port };
  wall = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<form action="/login" method="post"><input name="password" type="password"></form>');
  });
  await new Promise<void>((resolve) => wall.listen(0, '127.0.0.1', resolve));
  wallUrl = `http://127.0.0.1:${(wall.address() as AddressInfo).port}`;
});
/** Loopback targets answering every request with one page in the provider's place: a bot wall, a gateway. */
const standIns: Record<string, { server: Server; url: string }> = {};
beforeAll(async () => {
  const pages = {
    cloudflare: [403, { server: 'cloudflare', 'cf-mitigated': 'challenge' }, '<title>Just a moment...</title>'],
    nginx: [502, { server: 'nginx' }, '<html><head><title>502 Bad Gateway</title></head></html>'],
  } as const;
  for (const [name, [status, headers, body]] of Object.entries(pages)) {
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(status, { 'content-type': 'text/html', ...headers }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    standIns[name] = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }
});
afterAll(async () => {
  await new Promise((resolve) => wall.close(resolve));
  await new Promise((resolve) => json.server.close(resolve));
  for (const { server } of Object.values(standIns)) await new Promise((resolve) => server.close(resolve));
});

/** A client's two API calls, each read to its end; their statuses. */
async function twoCalls(url: string): Promise<number[]> {
  const answers: number[] = [];
  for (const [method, path] of [
    ['POST', '/oauth/token'],
    ['GET', '/api/v4/user'],
  ]) {
    const res = await fetch(`${url}${path}`, {
      method,
      body: method === 'POST' ? 'grant_type=refresh_token' : undefined,
    });
    await res.text();
    answers.push(res.status);
  }
  return answers;
}

/** The proxy in front of `target`, a client's calls through it (by default twoCalls), then Ctrl-C. */
async function session(
  name: string,
  target: string,
  stderrTty = false,
  client: (url: string) => Promise<number[]> = twoCalls,
) {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let announce!: (url: string) => void;
  const announced = new Promise<string>((resolve) => (announce = resolve));
  const out: string[] = [];
  const err: string[] = [];
  const file = join(dir, `${name}.json`);
  const running = executeProxy(
    { target, report: `json=${file}` },
    {
      out: (t) => {
        out.push(t);
        if (t.startsWith('http://')) announce(t.trim());
      },
      err: (t) => void err.push(t),
      stop: () => stopped,
      stderrTty,
    },
  );
  const answers = await client(await announced);
  stop();
  const code = await running;
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  return { code, answers, out: out.join(''), err: err.join(''), report };
}

const broken = (report: Report) => report.rules.filter((r) => r.status === 'failed' || r.status === 'warned');

describe('proxy in front of a target that does not answer', () => {
  it.each([
    ['unreachable', () => 'http://127.0.0.1:1', 'ECONNREFUSED'],
    ['its TLS failing', () => `https://${wallUrl.slice('http://'.length)}`, 'EPROTO'],
  ])('%s: 502 to the client, said at once and in the summary; nothing judged, exit 2', async (name, target, code) => {
    const run = await session(name, target());
    expect(run.answers).toEqual([502, 502]);
    expect(run.err.match(/the target does not answer/g)).toHaveLength(1);
    expect(run.err).toContain(`the target does not answer (${code})`);
    expect(run.out).toContain(`0 exchanges judged; 2 requests the target did not answer (${code} ×2)`);
    // The report says it as well: a CI job keeps the files, not the console.
    expect(run.report.client?.traffic).toBe(`0 exchanges judged; 2 requests the target did not answer (${code} ×2)`);
    expect(run.out).toMatch(/no exchange was judged, so nothing is passed/);
    expect(run.out).not.toMatch(/seed:/);
    expect(broken(run.report)).toEqual([]);
    expect(run.code).toBe(2);
  });
});

describe('proxy in front of a target whose TLS certificate is not trusted', () => {
  it('says which and how to trust it, at once and to the client; nothing judged, exit 2', async () => {
    // A self-signed certificate for 127.0.0.1 (test/fixtures); what is behind it never answers.
    const fixture = (name: string) => readFileSync(new URL(`../fixtures/self-signed.${name}.pem`, import.meta.url));
    const server = createHttpsServer({ cert: fixture('cert'), key: fixture('key') }, (_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
      const run = await session('self-signed', `https://${host}`);
      expect(run.answers).toEqual([502, 502]);
      const said = `the TLS certificate of ${host} is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT): to trust its CA, give its certificate (PEM) with NODE_EXTRA_CA_CERTS=/path/to/ca.pem`;
      expect(run.err.split('\n').filter((line) => line.includes(said))).toEqual([
        `idp-conformance: the target is not trusted: ${said}; its clients get 502`,
      ]);
      expect(run.out).toContain('2 requests the target did not answer (DEPTH_ZERO_SELF_SIGNED_CERT ×2)');
      expect(broken(run.report)).toEqual([]);
      expect(run.code).toBe(2);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('proxy in front of a sign-in wall that answers every API call with its page', () => {
  it('forwards the page, judges none of it as the provider, and says so', async () => {
    const run = await session('wall', wallUrl);
    expect(run.answers).toEqual([200, 200]);
    expect(run.err.match(/an HTML page where the provider answers JSON/g)).toHaveLength(1);
    expect(run.out).toContain('0 exchanges judged; 2 HTML pages where the provider answers JSON, not judged');
    // Before, TOK-RESPONSE-JSON, ENC-RESPONSE-JSON (must) and more failed on the wall's pages.
    expect(broken(run.report).map((r) => r.id)).toEqual([]);
    expect(run.code).toBe(2);
  });
});

describe("proxy in front of a bot wall or a gateway answering in the provider's place", () => {
  it.each([
    [
      'cloudflare',
      403,
      "the target's bot protection answers in the provider's place (Cloudflare's bot challenge, 403)",
      "2 answers of the target's bot protection, not judged",
    ],
    [
      'nginx',
      502,
      "a gateway answers in the provider's place (502, not JSON",
      "2 gateway error pages in the provider's place, not judged",
    ],
  ])('%s: forwards each answer as it came, says so once, judges none of it', async (name, status, said, summary) => {
    const run = await session(name, standIns[name].url);
    expect(run.answers).toEqual([status, status]);
    expect(run.err.split(said)).toHaveLength(2);
    expect(run.out).toContain(`0 exchanges judged; ${summary}`);
    expect(broken(run.report).map((r) => r.id)).toEqual([]);
    expect(run.code).toBe(2);
  });
});

describe('proxy on a terminal, in front of a provider that answers', () => {
  it('keeps one live line of what it judged, cleared before the report; none in a log', async () => {
    const onTty = await session('tty', `http://127.0.0.1:${json.port}`, true);
    expect(onTty.err).toContain('\r\u001b[2K1 exchange judged, ');
    expect(onTty.err.endsWith('\r\u001b[2K')).toBe(true);
    const inLog = await session('log', `http://127.0.0.1:${json.port}`);
    expect(inLog.err).not.toContain('\u001b[2K');
  });
});

describe('a client that leaves before the target answers', () => {
  it('is not blamed on the target: no "does not answer", counted as the client\'s in the summary', async () => {
    // A provider that takes 300 ms; the client gives up after 50.
    const slow = createServer((req, res) => {
      req.resume();
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 300);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const target = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
      const run = await session('client-left', target, false, async (url) => {
        await fetch(`${url}/api/v4/user`, { signal: AbortSignal.timeout(50) }).catch(() => undefined);
        // Past the moment the provider answers: its answer finds no client.
        await new Promise((resolve) => setTimeout(resolve, 500));
        return [];
      });
      expect(run.err).not.toMatch(/does not answer/);
      expect(run.out).not.toMatch(/did not answer/);
      expect(run.out).toContain('0 exchanges judged; 1 request its client left before the answer');
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});

describe('a client whose traffic holds nothing the rules judge', () => {
  it('is not counted as judged: the summary agrees with the verdict', async () => {
    // A page's own assets, through the proxy in front of a provider: forwarded, no rule about them.
    const run = await session('assets', `http://127.0.0.1:${json.port}`, false, async (url) => {
      const statuses: number[] = [];
      for (const path of ['/favicon.ico', '/assets/app.js']) {
        const res = await fetch(`${url}${path}`);
        await res.text();
        statuses.push(res.status);
      }
      return statuses;
    });
    expect(run.answers).toEqual([200, 200]);
    expect(run.out).toMatch(/no exchange was judged, so nothing is passed/);
    expect(run.out).toContain('idp-conformance: 0 exchanges judged; 2 exchanges no rule judges');
    expect(run.code).toBe(2);
  });
});

describe('a habit of the client, in a session of many exchanges', () => {
  it('names the first exchange that showed it by its number, the n-th request the proxy forwarded', async () => {
    const run = await session('habit-numbered', `http://127.0.0.1:${json.port}`, false, async (url) => {
      const statuses: number[] = [];
      // Forwarded all, judged or not: an asset, an API call, then two authorization requests without PKCE.
      for (const path of [
        '/favicon.ico',
        '/api/v4/user',
        '/oauth/authorize?response_type=code&client_id=app&state=a',
        '/api/v4/user',
        '/oauth/authorize?response_type=code&client_id=app&state=b',
      ]) {
        const res = await fetch(`${url}${path}`);
        await res.text();
        statuses.push(res.status);
      }
      return statuses;
    });
    expect(run.answers).toEqual([200, 200, 200, 200, 200]);
    expect(run.report.client?.habits.map((h) => [h.habit, h.count, h.first])).toEqual([
      ['no-pkce', 2, { exchange: 3, where: 'GET /oauth/authorize' }],
    ]);
    expect(run.out).toMatch(/no-pkce \(2×\): the client [^\n]*; first at exchange #3 \(GET \/oauth\/authorize\)/);
  });
});
