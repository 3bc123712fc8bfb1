/**
 * The one decision of where the harness may send a request (suites/target/origin.ts), and the
 * HTTP layer that asks it before anything leaves: the target's origin and those the user's config
 * trusts, never https to http, never a URL whose host the wire would read otherwise; a trusted
 * origin comes only from the user's config, never from what the target says of itself.
 */
import { describe, expect, it } from 'vitest';
import { originGuard } from '../../suites/target/origin.js';
import { readSimulatorConfig } from '../../suites/target/embedded.js';
import { validateTargetConfig } from '../../suites/target/config.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { CheckFailure, HarnessError } from '../../suites/runner/errors.js';
import { ConfigError } from '../../suites/errors.js';
import type { RawRequest } from '../../suites/target/types.js';
import { FAKE_BASE, fakeTarget } from '../suites/fakes.js';

describe('originGuard', () => {
  const guard = originGuard('http://127.0.0.1:3000/gitlab', ['http://127.0.0.1:4000']);

  it("lets through the target's own origin and a trusted one, whatever the path and the case", () => {
    for (const url of [
      'http://127.0.0.1:3000/api/v4/projects?page=2',
      'HTTP://127.0.0.1:3000/x',
      'http://127.0.0.1:3000',
      'http://127.0.0.1:4000/users/sign_in',
    ])
      expect(guard(url), url).toBeUndefined();
  });

  it('refuses another port, another loopback address, another scheme and a URL of no host', () => {
    expect(guard('http://127.0.0.1:3001/api/v4/projects')).toBe(
      "leaves the target's origin (http://127.0.0.1:3000) for http://127.0.0.1:3001",
    );
    expect(guard('http://127.0.0.2:3000/x')).toMatch(/^leaves the target's origin/);
    expect(guard('https://127.0.0.1:3000/x')).toMatch(/^leaves the target's origin/);
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', '//127.0.0.1:3000/x', 'data:,x'])
      expect(guard(url), url).toBe('is not a plain http(s) URL of a host');
  });

  it('refuses authorities the wire and the URL parser read differently (userinfo, backslash, escapes)', () => {
    for (const url of [
      'http://127.0.0.1:3000@127.0.0.2/x',
      'http://user:pass@127.0.0.1:3000/x',
      'http://127.0.0.1:3000\\@127.0.0.2/x',
      'http://%31%32%37.0.0.1:3000/x',
      'http://127.0.0.1:3000 /x',
    ])
      expect(guard(url), url).toBe('is not a plain http(s) URL of a host');
  });

  it('refuses a host the URL parser reads as another (review 24: the wire looked 127.0.0.1. up in DNS)', () => {
    for (const host of ['127.0.0.1.', '0x7f000001', '127.1', '2130706433', '0177.0.0.1', '0X7F.0.0.1'])
      expect(guard(`http://${host}:3000/api/v4/projects?page=2`), host).toBe(
        `writes its host ${host}, which reads as 127.0.0.1: not one host for the wire and the URL parser`,
      );
    // Case aside, a name is the host it is; an IPv6 address the parser writes shorter is the same address.
    expect(originGuard('http://localhost:3000')('http://LocalHost:3000/x')).toBeUndefined();
    expect(originGuard('http://[::1]:3000')('http://[0:0::1]:3000/x')).toBeUndefined();
  });

  it('never goes from https to http, even to an origin the config lists', () => {
    const secure = originGuard('https://idp.test', ['http://login.idp.test', 'https://login.idp.test']);
    expect(secure('http://idp.test/x')).toBe('goes from https to http (http://idp.test)');
    expect(secure('http://login.idp.test/x')).toMatch(/^goes from https to http/);
    expect(secure('https://login.idp.test/x')).toBeUndefined();
    expect(secure('https://idp.test:443/x')).toBeUndefined();
  });
});

describe('the HTTP layer asks the guard before anything leaves', () => {
  const harness = (trustedOrigins?: string[]) => {
    const sent: RawRequest[] = [];
    const target = fakeTarget(
      (r) => {
        sent.push(r);
        return new Response('[]', { headers: { 'content-type': 'application/json' } });
      },
      trustedOrigins ? { trustedOrigins } : {},
    );
    return { sent, http: createHttp(target, createRecorder(), createRedactor()) };
  };

  it('a link off the origin fails the rule the caller names, with nothing sent (not even without credentials)', async () => {
    const { sent, http } = harness();
    const link = 'http://127.0.0.2:9/api/v4/projects?page=2';
    const following = http.follow(link, {
      headers: { 'private-token': 'glpat-secret-value-1' },
      leaving: { what: 'rel=next of page 1 of projects', rules: ['PAG-LINK-FOLLOW'] },
    });
    await expect(following).rejects.toBeInstanceOf(CheckFailure);
    await expect(following).rejects.toMatchObject({
      message: `rel=next of page 1 of projects leaves the target's origin (${FAKE_BASE}) for http://127.0.0.2:9: nothing was sent there`,
      rules: ['PAG-LINK-FOLLOW'],
    });
    await expect(http.follow(link)).rejects.toBeInstanceOf(HarnessError);
    expect(sent).toEqual([]);
  });

  it("an origin the config trusts is followed, with the request's credentials", async () => {
    const { sent, http } = harness(['http://login.fake.test']);
    await http.follow('http://login.fake.test/users/sign_in', { form: { 'user[password]': 'pw-value-123' } });
    expect(sent.map((r) => r.url)).toEqual(['http://login.fake.test/users/sign_in']);
    expect(http.leaves('http://login.fake.test/x')).toBeUndefined();
    expect(http.leaves('http://other.fake.test/x')).toMatch(/^leaves the target's origin/);
  });
});

describe('trustedOrigins', () => {
  it("comes from the user's config, validated as origins", () => {
    const ok = validateTargetConfig({ baseUrl: FAKE_BASE, trustedOrigins: ['https://login.idp.test:8443'] });
    expect(ok.trustedOrigins).toEqual(['https://login.idp.test:8443']);
    expect(() => validateTargetConfig({ baseUrl: FAKE_BASE, trustedOrigins: ['https://login.idp.test/path'] })).toThrow(
      ConfigError,
    );
    expect(() => validateTargetConfig({ baseUrl: FAKE_BASE, trustedOrigins: ['ftp://x'] })).toThrow(
      /trustedOrigins\.0 must match pattern/,
    );
  });

  it('and baseUrl name their host as it reads: a config error, not every request refused', () => {
    expect(() => validateTargetConfig({ baseUrl: 'http://127.1:3000' })).toThrow(
      'target config: baseUrl writes its host 127.1, which reads as 127.0.0.1: not one host for the wire and the URL parser',
    );
    expect(() => validateTargetConfig({ baseUrl: FAKE_BASE, trustedOrigins: ['http://127.0.0.1.:4000'] })).toThrow(
      /^target config: trustedOrigins\[0\] writes its host 127\.0\.0\.1\., which reads as 127\.0\.0\.1/,
    );
    expect(validateTargetConfig({ baseUrl: 'http://LOCALHOST:3000/gitlab' }).baseUrl).toBe(
      'http://LOCALHOST:3000/gitlab',
    );
  });

  it('is never taken from what the target says of itself (GET /-/simulator/config)', async () => {
    const config = await readSimulatorConfig(
      async () =>
        Response.json({ baseUrl: 'http://elsewhere.test', trustedOrigins: ['http://127.0.0.2:9'], release: '18.0' }),
      FAKE_BASE,
    );
    expect(config).toEqual({ baseUrl: FAKE_BASE, release: '18.0' });
  });
});

describe('who plays the user, as the target says of itself', () => {
  const said = (kind: string) =>
    readSimulatorConfig(async () => Response.json({ driver: { kind, signInPath: '/users/sign_in' } }), FAKE_BASE);

  it('is the simulator, the form or the manual driver (a person, who sees what the target asks)', async () => {
    for (const kind of ['simulator', 'form', 'manual']) expect((await said(kind)).driver?.kind).toBe(kind);
  });

  // The browser runs the target's scripts on this machine: only the user's config chooses it.
  it('is never the browser: one line, a config error (exit 2), nothing played', async () => {
    await expect(said('browser')).rejects.toThrow(ConfigError);
    await expect(said('browser')).rejects.toThrow(
      new RegExp(`^the target's own config \\(${FAKE_BASE}/-/simulator/config\\): driver "browser" .*\\(--config\\)$`),
    );
  });
});
