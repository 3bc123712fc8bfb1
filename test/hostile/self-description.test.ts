/**
 * What a target says of itself is data. With `--target URL` the run takes its config from the
 * target (GET /-/simulator/config, as the simulator serves it): it was used as sent, unvalidated,
 * so an application whose clientId is a number crashed the harness (exit 70, a stack trace, no
 * report) and an unknown release was played. It is now validated as a config file is, and a
 * malformed one stops the run with one line (exit 2). That line, like every one-line error, may
 * quote the target (a property name, a Content-Type): it is rendered inert and cut, so no escape
 * sequence reaches the terminal and no answer makes it a megabyte long.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { listen, runCli, type Loopback } from '../suites/loopback.js';

/** Raw control characters (C0 but newline, DEL, C1): what must never reach a terminal. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

let served: Loopback | undefined;
afterEach(() => served?.close());

/** A target whose control API serves `config`, a discovery document and 404 elsewhere. */
async function describing(config: unknown): Promise<string> {
  served = await listen((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const body =
      req.url === '/-/simulator/config'
        ? config
        : req.url === '/.well-known/openid-configuration'
          ? { issuer: 'http://127.0.0.1' }
          : { error: 'not_found' };
    res.writeHead(body === config || req.url?.startsWith('/.well-known') ? 200 : 404, {
      'content-type': 'application/json',
    });
    res.end(JSON.stringify(body));
  });
  return served.url;
}

describe("a target's own config (GET /-/simulator/config)", () => {
  it('malformed (a clientId that is a number, no scopes): one line naming it, exit 2, no crash', async () => {
    const url = await describing({ user: 'x', applications: { confidential: { clientId: 5 } } });
    const r = await runCli({ target: url, suite: 'grants' });
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/\/-\/simulator\/config\): .*applications\.confidential\.clientId must be a string/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });

  it("choosing the browser driver is refused in one line (exit 2): it ran the target's scripts in Chromium", async () => {
    const url = await describing({ driver: { kind: 'browser' } });
    const r = await runCli({ target: url, suite: 'grants' });
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/\/-\/simulator\/config\): driver "browser" runs the target's scripts on this machine/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });

  it('naming a release the spec does not know is refused, as in a config file', async () => {
    const r = await runCli({ target: await describing({ release: '9.9' }), suite: 'grants' });
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/release: .*9\.9/);
  });

  it('its text in the one-line error (a property it names) is inert and cut: no escape sequence, no 100 KB line', async () => {
    const key = `\u001b]8;;http://127.0.0.2/\u0007click\u001b]8;;\u0007\u001b[2J${'k'.repeat(100_000)}`;
    const r = await runCli({ target: await describing({ [key]: true }), suite: 'grants' });
    expect(r.code, r.err).toBe(2);
    expect(RAW.exec(r.err)).toBeNull();
    expect(r.err).toContain('\\u001b]8;;http://127.0.0.2/');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err.length).toBeLessThan(5000);
  });
});

describe('a target that is not a provider, with C1 controls in its Content-Type', () => {
  it('is said in one inert line', async () => {
    // Node reads header bytes as latin1: 0x9b is CSI and 0x9d OSC to a terminal that takes C1 controls.
    const type = `text/html\u009b2J\u009d8;;http://127.0.0.2/\u009c${'x'.repeat(100_000)}`;
    served = await listen((req, res) => {
      req.resume();
      res.writeHead(404, { 'content-type': type }).end('no');
    });
    const r = await runCli({ target: served.url, suite: 'grants' });
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/is not an identity provider of this spec/);
    expect(RAW.exec(r.err)).toBeNull();
    expect(r.err.length).toBeLessThan(5000);
  });
});
