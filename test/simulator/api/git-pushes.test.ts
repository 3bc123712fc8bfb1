/**
 * What Git pushes leave on disk is bounded per simulator (LIM-GIT-PUSHES-BOUNDED). Before, every
 * push was kept in the process's shared repositories until the process ended: a client pushing
 * again and again filled the disk of a shared simulator, reset kept it all, and one simulator's
 * pushes showed in another's. The bound is lowered through the simulator's option (a few pushes of
 * 64 KiB reach it); the total is read from the disk, never from timing.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limits } from '../../../spec/index.js';
import { serve } from '../../../simulator/adapters/node.js';
import { createSimulator } from '../../../simulator/core.js';
import { KEYS_PER_REPOSITORY, keptAdvertisements } from '../../../simulator/git/advertisements.js';
import { gitEnv } from '../../../simulator/git/repository.js';
import { diskBytes, pushedBytes, storageDir } from '../../../simulator/git/storage.js';
import { mint } from './helpers.js';

const run = promisify(execFile);
const BOUND = 300_000;
const PROJECT = 'group/subgroup/project';

/** Incompressible bytes from a fixed seed (a pack stores them whole). */
function noise(seed: string, bytes: number): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; out.length * 32 < bytes; i++) out.push(createHash('sha256').update(`${seed}:${i}`).digest());
  return Buffer.concat(out).subarray(0, bytes);
}

async function started(options: { gitPushedMaxBytes?: number } = { gitPushedMaxBytes: BOUND }) {
  const sim = createSimulator(options);
  const served = await serve(sim, { port: 0 });
  const remote = (token = mint(sim, ['write_repository'])) =>
    `http://oauth2:${token}@127.0.0.1:${new URL(served.url).port}/${PROJECT}.git`;
  return { sim, served, remote };
}

const git = (cwd: string, ...args: string[]) => run('git', args, { cwd, env: gitEnv() });

/** Push `times` commits of 64 KiB each, one push each; how many were taken, and the last refusal's message. */
async function pushMany(dir: string, remote: () => string, times: number, name = 'blob') {
  let taken = 0;
  let refusal = '';
  for (let i = 0; i < times; i++) {
    writeFileSync(join(dir, `${name}-${i}.bin`), noise(`${name}:${i}`, 64 * 1024));
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '-q', '-m', `push ${i}`);
    try {
      await git(dir, 'push', '-q', remote(), 'HEAD:refs/heads/pushed');
      taken++;
    } catch (error) {
      refusal = String((error as { stderr?: string }).stderr ?? error);
    }
  }
  return { taken, refusal };
}

/** Every entry under `dir` that someone other than its owner could read, write or enter. */
function openToOthers(dir: string): string[] {
  const open: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.mode & 0o077) open.push(`${path} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) open.push(...openToOthers(path));
  }
  return open;
}

describe('what pushes leave on disk (LIM-GIT-PUSHES-BOUNDED)', () => {
  let work: string;
  let s: Awaited<ReturnType<typeof started>>;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'idp-pushes-'));
    s = await started();
    await run('git', ['clone', '-q', s.remote(), join(work, 'clone')], { env: gitEnv() });
  });
  afterAll(async () => {
    await s.served.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('stays under the bound however often a client pushes; the refusal is a message git shows', async () => {
    const { taken, refusal } = await pushMany(join(work, 'clone'), () => s.remote(), 8);
    // Pushes are taken while they hold under 300,000 bytes: about five of 64 KiB, not eight.
    expect(taken).toBeGreaterThanOrEqual(4);
    expect(taken).toBeLessThan(8);
    expect(refusal).toMatch(/remote: Your push has been rejected: pushes to this simulator may keep 300000 bytes/);
    // The disk agrees: the served copy holds the pristine repository, the bound and one push more.
    const dir = storageDir(s.sim)!;
    const pristine = await diskBytes(join(dir, '..', '..', 'pristine', `1-1`));
    const stored = (await diskBytes(join(dir, '1'))) - pristine;
    expect(stored).toBe(pushedBytes(s.sim));
    expect(stored).toBeGreaterThanOrEqual(BOUND);
    expect(stored).toBeLessThanOrEqual(BOUND + 80 * 1024);
    // Fetches are still served.
    const { stdout } = await run('git', ['ls-remote', s.remote(mint(s.sim, ['read_repository']))], { env: gitEnv() });
    expect(stdout).toMatch(/\trefs\/heads\/pushed$/m);
  });

  it('answers 403 text/plain at the push advertisement and at the receive-pack POST when full', async () => {
    const basic = `Basic ${Buffer.from(`oauth2:${mint(s.sim, ['write_repository'])}`).toString('base64')}`;
    const base = `${s.served.url}/${PROJECT}.git`;
    const ad = await fetch(`${base}/info/refs?service=git-receive-pack`, { headers: { authorization: basic } });
    expect(ad.status).toBe(403);
    expect(ad.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await ad.text()).toMatch(/Reset the simulator/);
    const post = await fetch(`${base}/git-receive-pack`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-git-receive-pack-request' },
      body: '0000',
    });
    expect(post.status).toBe(403);
    // A fetch is no push: served.
    const read = await fetch(`${base}/info/refs?service=git-upload-pack`, { headers: { authorization: basic } });
    expect(read.status).toBe(200);
  });

  it('keeps its files from other users (0700 directories, 0600 files)', () => {
    expect(openToOthers(storageDir(s.sim)!)).toEqual([]);
    expect(openToOthers(join(storageDir(s.sim)!, '..', '..', 'pristine'))).toEqual([]);
  });

  it('reset removes what pushes stored: pushes are taken again, from the pristine repository', async () => {
    const before = storageDir(s.sim)!;
    s.sim.reset();
    await expect.poll(() => existsSync(before)).toBe(false);
    expect(pushedBytes(s.sim)).toBe(0);
    const { stdout } = await run('git', ['ls-remote', s.remote()], { env: gitEnv() });
    expect(stdout).not.toMatch(/refs\/heads\/pushed/);
    const { taken } = await pushMany(join(work, 'clone'), () => s.remote(), 1, 'after-reset');
    expect(taken).toBe(1);
  });
});

/** A pkt-line (the Git protocol's framing: four hex digits of length, then the payload). */
const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;

/** A pack of no objects: what a push of refs to commits the server has sends. */
function emptyPack(): Buffer {
  const head = Buffer.from('PACK\0\0\0\x02\0\0\0\0', 'latin1');
  return Buffer.concat([head, createHash('sha1').update(head).digest()]);
}

describe('a push of many refs and no pack is measured too', () => {
  it('refuses 9,000 new refs in one push (a block each, past the Git body limit) and stores none', async () => {
    const s = await started({});
    try {
      const token = mint(s.sim, ['write_repository']);
      const { stdout } = await run('git', ['ls-remote', s.remote(token), 'refs/heads/main'], { env: gitEnv() });
      const head = stdout.split('\t')[0];
      const zero = '0'.repeat(40);
      const commands = Array.from({ length: 9000 }, (_, i) =>
        pkt(`${zero} ${head} refs/heads/many/${i}${i === 0 ? '\0report-status' : ''}\n`),
      );
      const body = Buffer.concat([Buffer.from(`${commands.join('')}0000`, 'latin1'), emptyPack()]);
      expect(body.length).toBeLessThan(limits().gitRequestBodyMaxBytes);
      const r = await fetch(`${s.served.url}/${PROJECT}.git/git-receive-pack`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`oauth2:${token}`).toString('base64')}`,
          'content-type': 'application/x-git-receive-pack-request',
        },
        body,
      });
      expect(r.status).toBe(413);
      const after = await run('git', ['ls-remote', s.remote(token)], { env: gitEnv() });
      expect(after.stdout).not.toMatch(/refs\/heads\/many\//);
      expect(pushedBytes(s.sim)).toBe(0);
    } finally {
      await s.served.close();
    }
  });
});

describe('pushes sent together', () => {
  it('are checked against the bound with what those under way set aside: one past it at most', async () => {
    // Each push creates 25 refs (100 KiB set aside); the bound holds one and a half.
    const s = await started({ gitPushedMaxBytes: 150_000 });
    try {
      const token = mint(s.sim, ['write_repository']);
      const { stdout } = await run('git', ['ls-remote', s.remote(token), 'refs/heads/main'], { env: gitEnv() });
      const head = stdout.split('\t')[0];
      const push = (n: number) => {
        const commands = Array.from({ length: 25 }, (_, i) =>
          pkt(`${'0'.repeat(40)} ${head} refs/heads/together/${n}/${i}${i === 0 ? '\0report-status' : ''}\n`),
        );
        return fetch(`${s.served.url}/${PROJECT}.git/git-receive-pack`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`oauth2:${token}`).toString('base64')}`,
            'content-type': 'application/x-git-receive-pack-request',
            // Inflating waits for the thread pool: the pushes are under way together.
            'content-encoding': 'gzip',
          },
          body: gzipSync(Buffer.concat([Buffer.from(`${commands.join('')}0000`, 'latin1'), emptyPack()])),
        }).then(async (r) => (await r.arrayBuffer(), r.status));
      };
      const statuses = await Promise.all(Array.from({ length: 6 }, (_, n) => push(n)));
      expect(statuses.filter((st) => st === 200).length).toBeLessThanOrEqual(2);
      expect(statuses.filter((st) => st === 403).length).toBeGreaterThanOrEqual(4);
      const after = await run('git', ['ls-remote', s.remote(token)], { env: gitEnv() });
      expect(after.stdout.match(/refs\/heads\/together\//g)?.length ?? 0).toBeLessThanOrEqual(50);
    } finally {
      await s.served.close();
    }
  });
});

describe('a gzip push body is measured inflated', () => {
  it('answers 413 to one that inflates past the Git body limit, and nothing is stored', async () => {
    const s = await started();
    try {
      const basic = `Basic ${Buffer.from(`oauth2:${mint(s.sim, ['write_repository'])}`).toString('base64')}`;
      const bomb = gzipSync(Buffer.alloc(limits().gitRequestBodyMaxBytes + 1));
      const r = await fetch(`${s.served.url}/${PROJECT}.git/git-receive-pack`, {
        method: 'POST',
        headers: {
          authorization: basic,
          'content-type': 'application/x-git-receive-pack-request',
          'content-encoding': 'gzip',
        },
        body: bomb,
      });
      expect(r.status).toBe(413);
      expect(pushedBytes(s.sim)).toBe(0);
    } finally {
      await s.served.close();
    }
  });
});

describe('each simulator keeps its own repositories', () => {
  it("one simulator's push is not in another's, and close removes them from the disk", async () => {
    const a = await started({});
    const b = await started({});
    const work = mkdtempSync(join(tmpdir(), 'idp-two-'));
    try {
      await run('git', ['clone', '-q', a.remote(), join(work, 'clone')], { env: gitEnv() });
      await git(join(work, 'clone'), 'commit', '-q', '--allow-empty', '-m', 'only in a');
      await git(join(work, 'clone'), 'push', '-q', a.remote(), 'HEAD:refs/heads/only-in-a');
      const inA = await run('git', ['ls-remote', a.remote()], { env: gitEnv() });
      const inB = await run('git', ['ls-remote', b.remote()], { env: gitEnv() });
      expect(inA.stdout).toMatch(/refs\/heads\/only-in-a/);
      expect(inB.stdout).not.toMatch(/refs\/heads\/only-in-a/);
      const dirs = [storageDir(a.sim)!, storageDir(b.sim)!];
      expect(dirs.every((d) => existsSync(d))).toBe(true);
      await a.served.close();
      await b.served.close();
      expect(dirs.filter((d) => existsSync(d))).toEqual([]);
    } finally {
      await a.served.close();
      await b.served.close();
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('the kept ref advertisements are bounded', () => {
  it('a client sending a new Git-Protocol value each time keeps at most KEYS_PER_REPOSITORY of them', async () => {
    const s = await started({});
    try {
      const basic = `Basic ${Buffer.from(`oauth2:${mint(s.sim, ['read_repository'])}`).toString('base64')}`;
      const url = `${s.served.url}/${PROJECT}.git/info/refs?service=git-upload-pack`;
      for (let i = 0; i < KEYS_PER_REPOSITORY + 8; i++) {
        const r = await fetch(url, { headers: { authorization: basic, 'git-protocol': `x=${i}` } });
        expect(r.status).toBe(200);
        await r.arrayBuffer();
      }
      expect(keptAdvertisements(join(storageDir(s.sim)!, '1'))).toBeLessThanOrEqual(KEYS_PER_REPOSITORY);
    } finally {
      await s.served.close();
    }
  });
});
