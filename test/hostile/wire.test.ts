/**
 * Answers no HTTP client should have to read, on a raw socket (raw-target.ts): a second answer to
 * one request (in the same write, or on the idle kept-alive connection), a Content-Length that lies
 * either way, 1xx answers nobody asked for (endless 103, 100, 101), no status line, another
 * version's, a 304, 204 or HEAD answer with a body, control characters in the reason, obs-fold, a NUL in a
 * header, Content-Type twice. Each case is one check sending one request, followed by a witness
 * check whose answer must be its own: a case is read as the wire allows or errored once, naming
 * what the target did; no case crashes the run, blames a rule, or leaks into the next check.
 * One run judges them all (--timeout 1 s: two cases wait it out).
 * Not here: a second answer held back until the next request is on the kept-alive connection is
 * read as that request's (HTTP/1.1 answers name no request). That is a target choosing what each
 * answer says, which it can do anyway; a connection per request would cost every honest remote
 * target about two round trips a request (README, "On the wire").
 */
import type { Socket } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import type { CheckResult, Report } from '../../suites/report/model.js';
import type { Check, CheckContext } from '../../suites/types.js';
import { runCli } from '../suites/loopback.js';
import { rawTarget, type RawTarget } from './raw-target.js';

const TIMEOUT_MS = 1000;
const dir = mkdtempSync(join(tmpdir(), 'idp-wire-'));
/** The right answer to GET `path`: it names the path, so a witness sees whose answer it read. */
const echo = (path: string, head = 'HTTP/1.1 200 OK') => {
  const body = JSON.stringify({ path });
  return `${head}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
};
const STRAY = echo('/stray');

/** What the target does to GET /wire/NAME; `read`: what the check reads (status and body), else errored so. */
const CASES: Record<
  string,
  { act: (s: Socket, path: string) => void; read?: true | string; errored?: RegExp; idle?: number }
> = {
  'two-answers-one-write': { act: (s, p) => s.write(echo(p) + STRAY), read: true },
  // A second answer while the connection waits (the check sits idle after its request): dropped, and
  // the target's connections are no longer kept (kept-connections.ts)...
  'unasked-answer-when-idle': {
    act: (s, p) => (s.write(echo(p)), setTimeout(() => s.write(STRAY), 20)),
    read: true,
    idle: 80,
  },
  // ...so a second answer held back until the next request comes goes to a connection nobody reads.
  'held-after-a-stray': { act: (s, p) => (s.write(echo(p)), (held = s)), read: true },
  // The rest is left on a connection nothing reads again.
  'length-shorter': {
    act: (s) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}HTTP/1.1 200 OK garbage\r\n\r\n'),
    read: '200 {}',
  },
  'length-longer-idle': {
    act: (s) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\n{}'),
    errored: new RegExp(`the answer did not end within ${TIMEOUT_MS} ms`),
  },
  'length-longer-closed': {
    act: (s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\n{}'),
    errored: /closed the connection before the answer ended \(2 bytes of the 50 it announced\)/,
  },
  'early-hints-endless': {
    act: (s) => {
      const t = setInterval(() => s.write('HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n\r\n'), 20);
      s.on('close', () => clearInterval(t));
    },
    errored: new RegExp(`no answer within ${TIMEOUT_MS} ms`),
  },
  'continue-unasked': { act: (s, p) => s.write(`HTTP/1.1 100 Continue\r\n\r\n${echo(p)}`), read: true },
  'switching-unasked': {
    act: (s) => s.write('HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: x\r\n\r\n'),
    errored: /answered 101 Switching Protocols, an upgrade the request did not ask for/,
  },
  'no-status-line': { act: (s, p) => s.end(JSON.stringify({ path: p })), errored: /answered no valid HTTP \(HPE_/ },
  'version-2.0': { act: (s, p) => s.write(echo(p, 'HTTP/2.0 200 OK')), read: true },
  'version-1.2': { act: (s, p) => s.write(echo(p, 'HTTP/1.2 200 OK')), errored: /answered no valid HTTP \(HPE_/ },
  'not-modified-with-body': {
    act: (s) => s.write('HTTP/1.1 304 Not Modified\r\ncontent-length: 5\r\n\r\nhello'),
    errored: /answered no valid HTTP \(HPE_/,
  },
  'no-content-with-body': {
    act: (s) => s.write('HTTP/1.1 204 No Content\r\ncontent-length: 5\r\n\r\nhello'),
    errored: /answered no valid HTTP \(HPE_/,
  },
  // A HEAD answer has no body whatever it announces: the bytes after its head are no answer.
  'head-with-body': {
    act: (s) => s.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 5\r\n\r\nhello'),
    errored: /answered no valid HTTP \(HPE_/,
  },
  'reason-with-controls': { act: (s, p) => s.write(echo(p, 'HTTP/1.1 200 O\x01K\x1b[31m\x7f')), read: true },
  'status-099': {
    act: (s, p) => s.write(echo(p, 'HTTP/1.1 099 Odd')),
    errored: /answered status 099, which is no HTTP status \(100-599\)/,
  },
  'status-999': {
    act: (s, p) => s.write(echo(p, 'HTTP/1.1 999 Odd')),
    errored: /answered status 999, which is no HTTP status \(100-599\)/,
  },
  'folded-header': {
    act: (s, p) => s.write(echo(p).replace('\r\n', '\r\nx-folded: one\r\n two')),
    errored: /answered no valid HTTP \(HPE_/,
  },
  'nul-in-header': {
    act: (s, p) => s.write(echo(p).replace('\r\n', '\r\nx-nul: a\x00b')),
    errored: /answered no valid HTTP \(HPE_/,
  },
  'content-type-twice': {
    act: (s, p) => s.write(echo(p).replace('\r\n', '\r\ncontent-type: text/html')),
    read: true,
  },
};

/** The connection of an answer held back: its second answer goes out as the next request comes. */
let held: Socket | undefined;
const read = new Map<string, string>();
let target: RawTarget;
let report: Report;
let run: Awaited<ReturnType<typeof runCli>>;
const files: string[] = [];

/** GET `path` in a check of its own; `witness`: the answer must be the path's own (OIDC-DISCOVERY, a must). */
const checkOf = (name: string, path: string, witness: boolean): Check => ({
  id: `oidc.wire-${name}${witness ? '-next' : ''}`,
  suite: 'oidc',
  title: `GET ${path}`,
  rules: ['OIDC-DISCOVERY'],
  async run(t: CheckContext) {
    const res = await t.http.send({ path, method: path.endsWith('/head-with-body') ? 'HEAD' : 'GET' });
    read.set(path, `${res.status} ${res.text}`);
    const idle = witness ? undefined : CASES[name].idle;
    if (idle) await new Promise((resolve) => setTimeout(resolve, idle));
    // A case's answer is whatever it is (a check asserts something, else it has seen nothing).
    t.expect(!witness || res.json<{ path?: string }>().path === path, 'the answer is the one to this request');
  },
});

beforeAll(async () => {
  target = await rawTarget((req, socket) => {
    if (held?.writable) held.write(STRAY);
    held = undefined;
    const name = /^\/wire\/([^/]+)/.exec(req.path)?.[1];
    if (!name) return false;
    if (!req.path.endsWith('/next')) CASES[name].act(socket, req.path);
    else if (req.close) socket.end(echo(req.path));
    else socket.write(echo(req.path));
    return true;
  });
  const config = join(dir, 'target.json');
  writeFileSync(config, JSON.stringify(targetConfig(target.sim, target.url)));
  const checks = Object.keys(CASES).flatMap((name) => [
    checkOf(name, `/wire/${name}`, false),
    checkOf(name, `/wire/${name}/next`, true),
  ]);
  files.push(...['json', 'md', 'html', 'junit'].map((f) => join(dir, `report.${f}`)));
  run = await runCli(
    {
      config,
      timeout: String(TIMEOUT_MS),
      seed: '1',
      runs: '1',
      report: files.map((f) => `${f.split('.').pop()}=${f}`).join(','),
    },
    { checks },
  );
  report = JSON.parse(readFileSync(files[0], 'utf8')) as Report;
}, 120_000);

afterAll(async () => {
  await target?.close();
  rmSync(dir, { recursive: true, force: true });
});

const result = (id: string): CheckResult => report.checks.find((c) => c.id === id)!;

describe('answers on the wire that no client should have to read', () => {
  it('no rule is blamed: every witness reads its own answer, no check fails or warns', () => {
    const why = `${run.err}\n${report.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`).join('\n')}`;
    expect(
      report.checks.filter((c) => c.status === 'failed' || c.status === 'warned').map((c) => c.id),
      why,
    ).toEqual([]);
    for (const name of Object.keys(CASES)) expect(result(`oidc.wire-${name}-next`).status, why).toBe('passed');
    // Errored checks make the run an error (exit 2), never a failure or a crash.
    expect(run.code, why).toBe(2);
  });

  it.each(Object.entries(CASES))('%s: read as the wire allows, or errored once naming it', (name, c) => {
    const r = result(`oidc.wire-${name}`);
    if (c.read) {
      const own = `200 ${JSON.stringify({ path: `/wire/${name}` })}`;
      expect([r.status, read.get(`/wire/${name}`)], r.message).toEqual(['passed', c.read === true ? own : c.read]);
    } else {
      expect(r.status).toBe('errored');
      expect(r.message).toMatch(new RegExp(`(GET|HEAD) /wire/${name}: `));
      expect(r.message).toMatch(c.errored!);
      expect(r.message!.split('\n')).toHaveLength(1);
      expect(r.broken ?? []).toEqual([]);
    }
  });

  it('no report holds a raw control character of the target', () => {
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/);
      expect(text, file).not.toContain('\x1b[31m');
    }
  });
});

describe('a target that answers every request with an unasked 101', () => {
  it('stops the run at its first request with one line naming it (it used to wait for ever)', async () => {
    const upgrading = await rawTarget((_req, socket) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: x\r\n\r\n');
      return true;
    });
    try {
      const r = await runCli({ target: upgrading.url, seed: '1' });
      expect(r.code, r.err).toBe(2);
      expect(r.err.trim().split('\n'), r.err).toEqual([
        expect.stringMatching(
          /^idp-conformance: target http:\/\/127\.0\.0\.1:\d+ does not answer: GET \/\S*: 127\.0\.0\.1:\d+ answered 101 Switching Protocols, an upgrade the request did not ask for$/,
        ),
      ]);
    } finally {
      await upgrading.close();
    }
  });
});
