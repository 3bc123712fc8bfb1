/**
 * A request in flight while its token died (review 30): `proxy` in front of a provider that holds
 * the current user's answer until told. Sent before a refresh or revocation was answered, and
 * answered 200 after it, the request may have been served first: it decides nothing. Sent after
 * that answer was complete, a 200 still breaks the rule. No timers: the provider holds the answer
 * until the client has read the one that ended the token.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeProxy } from '../../cli/proxy.js';
import type { Report } from '../../suites/report/model.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-proxy-in-flight-'));
const NO_STORE = { 'content-type': 'application/json', 'cache-control': 'no-store' };

/** API requests the provider holds while `holding`: each answered 200 when the test releases them. */
let holding = false;
const held: ServerResponse[] = [];
/** Told of each request held. */
let onHeld: () => void = () => undefined;
let issued = 0;
const provider = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const path = req.url!.split('?')[0];
    if (path === '/oauth/token') {
      // Every grant answered with a fresh pair: the provider rotates and never reuses.
      issued++;
      const pair = { access_token: `a${issued}`.padEnd(64, 'x'), refresh_token: `r${issued}`.padEnd(64, 'x') };
      res.writeHead(200, NO_STORE);
      return res.end(
        JSON.stringify({ ...pair, token_type: 'bearer', expires_in: 7200, scope: 'api', created_at: 1_700_000_000 }),
      );
    }
    if (path === '/oauth/revoke') return res.writeHead(200, NO_STORE).end('{}');
    if (holding && path.startsWith('/api/')) {
      held.push(res);
      return onHeld();
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":1,"username":"u"}');
  });
});
let target: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
});
afterAll(async () => {
  provider.closeAllConnections();
  await new Promise((resolve) => provider.close(resolve));
});

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ client_id: 'app', ...fields }).toString(),
});

/** A client's session through the proxy; the rules' statuses in the report, and the exit code. */
async function session(name: string, client: (url: string) => Promise<void>) {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let announce!: (url: string) => void;
  const announced = new Promise<string>((resolve) => (announce = resolve));
  const file = join(dir, `${name}.json`);
  const running = executeProxy(
    { target, report: `json=${file}` },
    { out: (t) => void (t.startsWith('http://') && announce(t.trim())), err: () => undefined, stop: () => stopped },
  );
  await client(await announced);
  stop();
  const code = await running;
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  const broken = report.rules
    .filter((r) => r.status === 'failed' || r.status === 'warned')
    .map((r) => r.id)
    .sort();
  return { code, broken, status: (id: string) => report.rules.find((r) => r.id === id)?.status };
}

/**
 * A code exchange for tokens; then, with its access token, the current user (a token oracle) and
 * the projects (any API endpoint: the 401 rule) asked, and what ends the token (`end`) sent: while
 * those two requests are held at the provider (`inFlight`), or once the answer that ended the token
 * was read. Both are answered 200 either way, after that answer.
 */
async function dyingToken(url: string, end: (pair: Record<string, string>) => Promise<void>, inFlight: boolean) {
  const pair = (await (
    await fetch(`${url}/oauth/token`, form({ grant_type: 'authorization_code', code: 'c' }))
  ).json()) as Record<string, string>;
  holding = true;
  const reached = new Promise<void>((resolve) => (onHeld = () => held.length === 2 && resolve()));
  if (!inFlight) await end(pair);
  const asked = ['/api/v4/user', '/api/v4/projects'].map((path) =>
    fetch(`${url}${path}`, { headers: { authorization: `Bearer ${pair.access_token}` } }),
  );
  await reached;
  if (inFlight) await end(pair);
  for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":1}');
  for (const answer of await Promise.all(asked)) {
    expect(answer.status).toBe(200);
    await answer.text();
  }
  holding = false;
}

const refresh = (url: string) => async (pair: Record<string, string>) =>
  void (await (
    await fetch(`${url}/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: pair.refresh_token }))
  ).text());
const revoke = (url: string) => async (pair: Record<string, string>) =>
  void (await (await fetch(`${url}/oauth/revoke`, form({ token: pair.access_token }))).text());

describe('proxy: a request in flight while its token died (review 30)', () => {
  it.each([
    ['a refresh', refresh, 'TOK-REFRESH-ROTATION'],
    ['a revocation', revoke, 'REV-REVOKES-TOKEN'],
  ])('sent before %s was answered, answered 200 after it: not blamed', async (_what, end, rule) => {
    const run = await session(`${rule}-in-flight`, (url) => dyingToken(url, end(url), true));
    expect(run.broken).toEqual([]);
    expect(run.status('AUTH-INVALID-TOKEN-401')).toBe('untested');
    expect(run.code).toBe(0);
  });

  it.each([
    ['a refresh', refresh, 'TOK-REFRESH-ROTATION'],
    ['a revocation', revoke, 'REV-REVOKES-TOKEN'],
  ])('sent after %s was answered, answered 200: the rule fails', async (_what, end, rule) => {
    const run = await session(`${rule}-after`, (url) => dyingToken(url, end(url), false));
    expect(run.broken).toEqual([rule, 'AUTH-INVALID-TOKEN-401'].sort());
    expect(run.code).toBe(1);
  });
});
