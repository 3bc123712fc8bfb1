/**
 * TLS on the wire: a target whose certificate changes mid-run, and one that drops the connection
 * in the middle of a body (no close_notify). Each is errored once, on the check that met it,
 * naming what the target did; no rule is blamed, and the checks before and between are judged as
 * ever. The fixture certificate is trusted as NODE_EXTRA_CA_CERTS would trust it (that variable is
 * read when a process starts): the HTTP target's connections are given it as their CA.
 */
import { Agent as HttpsAgent } from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import type { CheckResult, Report } from '../../suites/report/model.js';
import type { Check, CheckContext } from '../../suites/types.js';
import { runCli } from '../suites/loopback.js';
import { rawTarget, type RawTarget } from './raw-target.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}.pem`, import.meta.url));
const TRUSTED = { key: fixture('self-signed.key'), cert: fixture('self-signed.cert') };
const OTHER = { key: fixture('other-self-signed.key'), cert: fixture('other-self-signed.cert') };
const dir = mkdtempSync(join(tmpdir(), 'idp-wire-tls-'));
const PATHS = ['/wire/fine', '/wire/cut', '/wire/fine-again', '/wire/certificate-changed'];
let target: RawTarget;
let report: Report;
let err = '';
let code = 0;

const body = (path: string) => JSON.stringify({ path });
const checkOf = (path: string): Check => ({
  id: `oidc.wire-tls${path.replace(/\//g, '-')}`,
  suite: 'oidc',
  title: `GET ${path}`,
  rules: ['OIDC-DISCOVERY'],
  async run(t: CheckContext) {
    const res = await t.http.get(path);
    t.expect(res.json<{ path?: string }>().path === path, 'the answer is the one to this request');
  },
});

beforeAll(async () => {
  // The agent's own method, called on the agent that asks (the descriptor: no unbound method read).
  const connect = Object.getOwnPropertyDescriptor(HttpsAgent.prototype, 'createConnection')!
    .value as HttpsAgent['createConnection'];
  vi.spyOn(HttpsAgent.prototype, 'createConnection').mockImplementation(function (this: HttpsAgent, options, done) {
    return connect.call(this, { ...options, ca: TRUSTED.cert }, done);
  });
  target = await rawTarget((req, socket) => {
    if (!req.path.startsWith('/wire/')) return false;
    if (req.path === '/wire/cut') {
      // Half the body, then the TCP connection closed under TLS: no close_notify.
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n{"pa`);
      setImmediate(() => socket.destroy());
      return true;
    }
    const text = body(req.path);
    socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${text.length}\r\n\r\n${text}`);
    // From the next connection on, a certificate nobody trusts.
    if (req.path === '/wire/fine-again') target.certify(OTHER);
    return true;
  }, TRUSTED);
  const config = join(dir, 'target.json');
  writeFileSync(config, JSON.stringify(targetConfig(target.sim, target.url)));
  const file = join(dir, 'report.json');
  const r = await runCli(
    { config, timeout: '2000', seed: '1', runs: '1', report: `json=${file}` },
    { checks: PATHS.map(checkOf) },
  );
  ({ err, code } = r);
  report = JSON.parse(readFileSync(file, 'utf8')) as Report;
}, 60_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await target?.close();
  rmSync(dir, { recursive: true, force: true });
});

const result = (path: string): CheckResult => report.checks.find((c) => c.id === checkOf(path).id)!;

describe('TLS on the wire', () => {
  it('a body cut off without close_notify, and a certificate changed mid-run: errored once each, no rule blamed', () => {
    const why = `${err}\n${report.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`).join('\n')}`;
    expect(
      PATHS.map((p) => result(p).status),
      why,
    ).toEqual(['passed', 'errored', 'passed', 'errored']);
    expect(result('/wire/cut').message).toMatch(
      /GET \/wire\/cut: 127\.0\.0\.1:\d+ closed the connection before the answer ended \(4 bytes of the 40 it announced\)$/,
    );
    expect(result('/wire/certificate-changed').message).toMatch(
      /GET \/wire\/certificate-changed: the TLS certificate of 127\.0\.0\.1:\d+ is self-signed \(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
    );
    for (const p of PATHS) expect(result(p).broken ?? [], p).toEqual([]);
    expect(code, why).toBe(2);
  });
});
