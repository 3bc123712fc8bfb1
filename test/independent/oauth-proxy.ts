/**
 * A loopback reverse proxy in front of the simulator whose answers a test rewrites, one rewrite at
 * a time: into a form the source and the RFCs allow (oauth-variants.test.ts) or into a deviation
 * seen on real servers (oauth-deviations.test.ts). The proxy keeps the Host it was asked with, so
 * the simulator writes its URLs with the proxy's address and lets that address use its control API.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, decodeJwt, type JWTPayload } from 'jose';
import { executeRun, type RunFlags } from '../../cli/run.js';
import { signingKey } from '../../simulator/oauth/keys.js';
import { createSimulator } from '../../simulator/core.js';
import { serve, type Served } from '../../simulator/adapters/node.js';
import { targetConfig } from '../../simulator/control/config.js';
import type { Sim } from '../../simulator/types.js';
import type { Report } from '../../suites/report/model.js';
import { allChecks } from '../../suites/index.js';
import { createHttpTarget, type HttpTargetOptions } from '../../suites/target/http.js';
import { loadTargetConfig } from '../../suites/target/config.js';

/** The request as the client sent it; a rewrite may change it before it is forwarded. */
export interface Asked {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The answer, header names lowercased; a rewrite changes it in place. */
export interface Answer {
  status: number;
  head: Map<string, string[]>;
  body: Buffer;
}

/** Returns true when it changed something (the test requires each rewrite to have been applied). */
export interface Rewrite {
  request?(asked: Asked, sim: Sim): boolean | void;
  /** An answer of the proxy's own, the simulator never asked (a rate limiter in front of the provider). */
  refuse?(asked: Asked): Answer | undefined;
  answer?(asked: Asked, answer: Answer, sim: Sim): boolean | void | Promise<boolean | void>;
}

export interface OAuthProxy {
  sim: Sim;
  url: string;
  /** The target config of the proxy (its URL, the simulator's applications and user). */
  configFile: string;
  /** The rewrite in force (none: the simulator as it is) and how often it changed something. */
  use(rewrite: Rewrite | undefined): void;
  applied(): number;
  /** `idp-conformance run --config <the proxy>` in process: exit code and JSON report. */
  run(
    name: string,
    checks: readonly string[],
    flags?: RunFlags,
    /** Options of the run's HTTP target (a virtual clock for the waits a rate limit asks). */
    http?: HttpTargetOptions,
  ): Promise<{ code: number; report: Report; stderr: string }>;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** The JSON object of an answer, or undefined (not JSON, not an object). */
export function jsonOf(answer: Answer): Record<string, unknown> | undefined {
  if (!(answer.head.get('content-type')?.[0] ?? '').startsWith('application/json') || !answer.body.length) return;
  try {
    const value = JSON.parse(answer.body.toString('utf8')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function setJson(answer: Answer, value: unknown): void {
  answer.body = Buffer.from(JSON.stringify(value));
}

/** `claims` signed as the simulator signs its id_tokens: its own key, RS256, its kid. */
export async function signedBySim(sim: Sim, claims: JWTPayload): Promise<string> {
  const key = await signingKey(sim);
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
}

/** A rewrite of every token response's id_token: its claims changed by `change`, signed again by the simulator's key. */
export const idTokenClaims =
  (change: (claims: JWTPayload) => JWTPayload): NonNullable<Rewrite['answer']> =>
  async (asked, answer, sim) => {
    const body = asked.url.pathname === '/oauth/token' ? jsonOf(answer) : undefined;
    if (typeof body?.id_token !== 'string') return false;
    setJson(answer, { ...body, id_token: await signedBySim(sim, change(decodeJwt(body.id_token))) });
    return true;
  };

/** The form fields of a request body (form-encoded or JSON). */
export function formOf(asked: Asked): URLSearchParams {
  const type = String(asked.headers['content-type'] ?? '');
  if (type.startsWith('application/json')) {
    try {
      return new URLSearchParams(JSON.parse(asked.body.toString('utf8')) as Record<string, string>);
    } catch {
      return new URLSearchParams();
    }
  }
  return new URLSearchParams(asked.body.toString('utf8'));
}

/** The proxy of a test file or describe block: started before its tests, closed after them. */
export function proxyForTests(): () => OAuthProxy {
  let proxy: OAuthProxy | undefined;
  beforeAll(async () => {
    proxy = await startOAuthProxy();
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
  });
  return () => {
    if (!proxy) throw new Error('the proxy is used before its beforeAll ran');
    return proxy;
  };
}

export async function startOAuthProxy(): Promise<OAuthProxy> {
  const sim = createSimulator({});
  let rewrite: Rewrite | undefined;
  let changes = 0;

  const forward = (asked: Asked): Promise<Answer> => {
    const { port } = new URL(served.url);
    const headers = { ...asked.headers, 'content-length': String(asked.body.length) };
    return new Promise((resolve, reject) => {
      const req = request(
        // Answers to long URLs carry Link fields that repeat them, past Node's 16 KiB default.
        {
          host: '127.0.0.1',
          port,
          method: asked.method,
          path: `${asked.url.pathname}${asked.url.search}`,
          headers,
          maxHeaderSize: 256 * 1024,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const head = new Map<string, string[]>();
            for (let i = 0; i < res.rawHeaders.length; i += 2) {
              const key = res.rawHeaders[i].toLowerCase();
              if (!HOP_BY_HOP.has(key)) head.set(key, [...(head.get(key) ?? []), res.rawHeaders[i + 1]]);
            }
            resolve({ status: res.statusCode ?? 502, head, body: Buffer.concat(chunks) });
          });
        },
      );
      req.on('error', reject);
      req.end(asked.body);
    });
  };

  const proxy: Server = createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const asked: Asked = {
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', url),
        headers: { ...req.headers },
        body: Buffer.concat(chunks),
      };
      const current = rewrite;
      (async () => {
        const refused = current?.refuse?.(asked);
        if (refused) {
          changes++;
          return refused;
        }
        if (current?.request?.(asked, sim)) changes++;
        const answer = await forward(asked);
        if (await current?.answer?.(asked, answer, sim)) changes++;
        return answer;
      })().then(
        ({ status, head, body }) => {
          // A rewrite may ask for a chunked answer (Transfer-Encoding: chunked, no Content-Length).
          const chunked = [...head].some(
            ([name, v]) => name.toLowerCase() === 'transfer-encoding' && v[0] === 'chunked',
          );
          for (const [name, values] of head) res.setHeader(name, values.length > 1 ? values : values[0]);
          if (!chunked) res.setHeader('content-length', body.length);
          res.writeHead(status);
          // Chunked: two chunks, so the client must join them.
          if (chunked && body.length > 1) res.write(body.subarray(0, body.length >> 1));
          res.end(chunked && body.length > 1 ? body.subarray(body.length >> 1) : body);
        },
        (error: Error) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`oauth proxy: ${error.message}`);
        },
      );
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  // Requests reach forward() only once this is set: the proxy has no client before run().
  const served: Served = await serve(sim, { allowHosts: [new URL(url).host] });
  const dir = mkdtempSync(join(tmpdir(), 'idp-oauth-proxy-'));
  const configFile = join(dir, 'target.json');
  writeFileSync(configFile, JSON.stringify(targetConfig(sim, url)));

  return {
    sim,
    url,
    configFile,
    use(next) {
      rewrite = next;
      changes = 0;
    },
    applied: () => changes,
    async run(name, ids, flags = {}, http) {
      const file = join(dir, `${name}.json`);
      const checks = allChecks().filter((c) => ids.includes(c.id));
      const unknown = ids.filter((id) => !checks.some((c) => c.id === id));
      if (unknown.length) throw new Error(`no such checks: ${unknown.join(', ')}`);
      let stderr = '';
      const code = await executeRun(
        { config: configFile, seed: '20261125', runs: '3', report: `json=${file}`, ...flags },
        {
          out: () => undefined,
          err: (t) => void (stderr += t),
          checks: () => checks,
          ...(http ? { target: async () => createHttpTarget(loadTargetConfig(configFile), http) } : {}),
        },
        {},
      );
      return { code, report: JSON.parse(readFileSync(file, 'utf8')) as Report, stderr };
    },
    async close() {
      await new Promise((resolve) => proxy.close(resolve));
      await served.close();
    },
  };
}

/** `check rule` of every failure or warning of the report, with the rule's level. */
export function blamed(report: Report): Array<{ check: string; rule: string; level: string }> {
  const levels = new Map(report.rules.map((r) => [r.id, r.level]));
  const out = new Map<string, { check: string; rule: string; level: string }>();
  for (const check of report.checks.filter((c) => c.status === 'failed' || c.status === 'warned')) {
    const failures = check.failures ?? [{ message: check.message ?? '', broken: check.broken ?? [] }];
    for (const f of failures)
      for (const rule of f.broken)
        out.set(`${check.id} ${rule}`, { check: check.id, rule, level: levels.get(rule) ?? '?' });
  }
  return [...out.values()];
}

/** What a failed expectation shows: the end of the run's stderr and every check's verdict. */
/**
 * One run with `rewrite` in force, put back afterwards: its exit code, report and stderr, and what
 * to say beside a failed assertion (`why`). The rewrite must have changed something, else the run
 * proved nothing of it.
 */
export async function runRewritten(
  proxy: OAuthProxy,
  rewrite: Rewrite,
  name: string,
  checks: readonly string[],
): Promise<{ code: number; report: Report; stderr: string; why: string }> {
  proxy.use(rewrite);
  try {
    const result = await proxy.run(name, checks);
    const why = explain(result.report, result.stderr);
    expect(proxy.applied(), why).toBeGreaterThan(0);
    return { ...result, why };
  } finally {
    proxy.use(undefined);
  }
}

export function explain(report: Report, stderr: string): string {
  return `${stderr.slice(-1500)}\n${report.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`).join('\n')}`;
}
