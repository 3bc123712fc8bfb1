/** `idp-conformance simulate`: flags, the printed URL, the written target config, usage errors. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../cli/errors.js';
import { simulatorOptions, startSimulation } from '../../../cli/simulate.js';
import { parse } from 'yaml';
import type { TargetConfig } from '../../../suites/types.js';

const dir = mkdtempSync(join(tmpdir(), 'simulate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('simulate', () => {
  it('--port 0 --write-config f.yaml: prints its URL on one line and writes a usable target config', async () => {
    const file = join(dir, 'f.yaml');
    const lines: string[] = [];
    const { served } = await startSimulation(
      { port: '0', writeConfig: file, release: '17.1', fault: ['no-slow-down'] },
      (l) => lines.push(l),
    );
    try {
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(lines[0]).toBe(served.url);
      expect(statSync(file).mode & 0o077).toBe(0);
      const config = parse(readFileSync(file, 'utf8')) as TargetConfig;
      expect(config).toMatchObject({
        baseUrl: served.url,
        release: '17.1',
        driver: { kind: 'simulator' },
        features: { device_authorization_grant: true },
      });
      const res = await fetch(`${config.baseUrl}/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'password',
          username: config.user!.username,
          password: config.user!.password,
        }),
      });
      expect(res.status).toBe(200);
      expect(readFileSync(file, 'utf8')).toContain(`baseUrl: ${served.url}`);
    } finally {
      await served.close();
    }
  });

  it('turns flags into simulator options', () => {
    expect(
      simulatorOptions({
        release: '16.5',
        offering: 'hosted',
        flag: ['device_authorization_grant=false'],
        setting: ['gitPasswordAuth=false', 'maxOffset=100', 'rateLimit=null'],
        seedSize: '3',
      }),
    ).toEqual({
      release: '16.5',
      offering: 'hosted',
      flags: { device_authorization_grant: false },
      settings: { gitPasswordAuth: false, maxOffset: 100, rateLimit: null },
      seedSize: 3,
    });
    // Development mode is the simulator's default; --production turns it off.
    expect(simulatorOptions({ production: true }).settings).toEqual({ developmentMode: false });
    expect(() => simulatorOptions({ production: true, setting: ['developmentMode=true'] })).toThrow(/contradicts/);
  });

  it.each([
    [{ port: '70000' }],
    [{ port: 'abc' }],
    [{ release: 'latest' }],
    [{ offering: 'cloud' }],
    [{ flag: ['nope=true'] }],
    [{ flag: ['device_authorization_grant'] }],
    [{ flag: ['device_authorization_grant=maybe'] }],
    [{ setting: ['nope=1'] }],
    [{ setting: ['maxOffset=-1'] }],
    [{ fault: ['no-such-fault'] }],
    [{ seedSize: '0' }],
  ])('refuses %j with a one-line UsageError', async (flags) => {
    const error = await startSimulation(flags, () => {}).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).not.toContain('\n');
  });

  it('refuses an unwritable config path without leaving a server behind', async () => {
    // A missing folder is created (issue 23); a path under a file cannot be written.
    writeFileSync(join(dir, 'a-file'), 'x');
    const error = await startSimulation({ writeConfig: join(dir, 'a-file', 'f.yaml') }, () => {}).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
  });
});
