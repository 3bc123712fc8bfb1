import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type Served } from '../../../simulator/adapters/node.js';
import { createSimulator } from '../../../simulator/core.js';
import { gitEnv } from '../../../simulator/git/repository.js';
import { mint } from './helpers.js';

const run = promisify(execFile);

describe('Git over HTTPS (item 7)', () => {
  const sim = createSimulator();
  let served: Served;
  const port = () => new URL(served.url).port;
  const lsRemote = (token: string, path = 'group/subgroup/project') =>
    run('git', ['ls-remote', `http://oauth2:${token}@127.0.0.1:${port()}/${path}.git`], { env: gitEnv() });

  beforeAll(async () => {
    served = await serve(sim, { port: 0 });
  });
  afterAll(() => served.close());

  it('git ls-remote succeeds with a read_repository token as the password (any username)', async () => {
    const { stdout } = await lsRemote(mint(sim, ['read_repository']));
    expect(stdout).toMatch(/\trefs\/heads\/main$/m);
    expect(stdout).toMatch(/\trefs\/heads\/feature\/login-page$/m);
    expect(stdout).toMatch(/\trefs\/tags\/release\/2024\.01$/m);
    const other = await run(
      'git',
      ['ls-remote', `http://anyone:${mint(sim, ['write_repository'])}@127.0.0.1:${port()}/group/subgroup/project.git`],
      { env: gitEnv() },
    );
    expect(other.stdout).toBe(stdout);
  });

  it('fails with a token lacking the scope, a wrong token, or none', async () => {
    await expect(lsRemote(mint(sim, ['read_user']))).rejects.toThrow(/403|denied/i);
    await expect(lsRemote('not-a-token')).rejects.toThrow();
    await expect(
      run('git', ['ls-remote', `http://127.0.0.1:${port()}/group/subgroup/project.git`], { env: gitEnv() }),
    ).rejects.toThrow();
    const revoked = mint(sim, ['read_repository'], { revoked: true });
    await expect(lsRemote(revoked)).rejects.toThrow();
  });

  it('answers 401 with a Basic challenge without credentials', async () => {
    const r = await fetch(`${served.url}/group/subgroup/project.git/info/refs?service=git-upload-pack`);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('clones the same files the REST API lists', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-clone-'));
    try {
      await run(
        'git',
        [
          'clone',
          '-q',
          `http://oauth2:${mint(sim, ['read_repository'])}@127.0.0.1:${port()}/group/subgroup/project.git`,
          dir,
        ],
        { env: gitEnv() },
      );
      const api = await fetch(`${served.url}/api/v4/projects/1/repository/files/README.md?ref=main`).then((r) =>
        r.json(),
      );
      expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe(Buffer.from(api.content, 'base64').toString());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('git push works with write_repository and is refused with read_repository', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-push-'));
    const remote = (t: string) => `http://oauth2:${t}@127.0.0.1:${port()}/group/subgroup/project.git`;
    // The protocol v0 advertisement lists the refs itself (v2 asks for them by POST): it is kept
    // between requests (advertisements.ts), so this shows a push makes the next one ask git again.
    const reader = mint(sim, ['read_repository']);
    const advertised = async () => {
      const r = await fetch(`${served.url}/group/subgroup/project.git/info/refs?service=git-upload-pack`, {
        headers: { authorization: `Basic ${Buffer.from(`oauth2:${reader}`).toString('base64')}` },
      });
      expect(r.status).toBe(200);
      return r.text();
    };
    try {
      expect(await advertised()).not.toMatch(/refs\/heads\/pushed\/by-test/);
      await run('git', ['clone', '-q', remote(mint(sim, ['read_repository'])), dir], { env: gitEnv() });
      await run('git', ['checkout', '-q', '-b', 'pushed/by-test'], { cwd: dir, env: gitEnv() });
      await run('git', ['commit', '-q', '--allow-empty', '-m', 'pushed'], { cwd: dir, env: gitEnv() });
      await expect(
        run('git', ['push', '-q', remote(mint(sim, ['read_repository'])), 'pushed/by-test'], {
          cwd: dir,
          env: gitEnv(),
        }),
      ).rejects.toThrow();
      await run('git', ['push', '-q', remote(mint(sim, ['write_repository'])), 'pushed/by-test'], {
        cwd: dir,
        env: gitEnv(),
      });
      const { stdout } = await lsRemote(mint(sim, ['read_repository']));
      expect(stdout).toMatch(/\trefs\/heads\/pushed\/by-test$/m);
      expect(await advertised()).toMatch(/refs\/heads\/pushed\/by-test/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('push needs write_repository', async () => {
    const basic = (t: string) => `Basic ${Buffer.from(`oauth2:${t}`).toString('base64')}`;
    const url = `${served.url}/group/subgroup/project.git/info/refs?service=git-receive-pack`;
    expect((await fetch(url, { headers: { authorization: basic(mint(sim, ['read_repository'])) } })).status).toBe(403);
    expect((await fetch(url, { headers: { authorization: basic(mint(sim, ['write_repository'])) } })).status).toBe(200);
  });
});
