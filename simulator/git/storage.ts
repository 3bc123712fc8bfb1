/**
 * Each simulator's own repositories, and what pushes may leave in them (LIM-GIT-PUSHES-BOUNDED).
 * A project's repository is a copy of its pristine one (repository.ts), made the first time the
 * simulator serves it, under the process's 0700 temporary directory. Before, every simulator of a
 * process served the pristine repositories themselves and kept each push until the process ended:
 * a client pushing for hours filled the disk of a shared simulator, and one simulator's pushes
 * showed in another's. Now a push is taken while what pushes stored is under the bound
 * (`gitPushedMaxBytes`), and one push adds at most the Git body limit, so a simulator's pushes hold
 * at most the two together; reset() and close() remove its copies (the process's exit removes
 * whatever is left).
 */
import { cp, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { limits } from '../../spec/index.js';
import type { Sim } from '../types.js';
import { forgetAdvertisements } from './advertisements.js';
import { pristineRoot, tempRoot } from './repository.js';

const inflate = promisify(gunzip);

/**
 * What one new ref can cost on disk: a loose ref is a file, a filesystem block. Counted for each
 * command of a push before git runs, so a push of many refs and no pack is measured too.
 */
const REF_BYTES = 4096;

interface Storage {
  dir: string;
  roots: Map<number, Promise<string>>;
  /** Bytes each project's copy holds beyond its pristine repository, as last measured. */
  added: Map<number, number>;
  /** Bytes pushes under way may add (their estimate), until they are measured. */
  reserved: number;
  released: boolean;
}

const storages = new WeakMap<Sim, Storage>();
let made = 0;
/** Pristine repositories' sizes, measured once (they never change), by pristineKey. */
const pristineBytes = new Map<string, Promise<number>>();
const pristineKey = (sim: Sim, projectId: number) => `${sim.options.seed}-${projectId}`;

/** Bytes a directory takes: every file and directory under it, at least a block each where the filesystem says. */
export async function diskBytes(dir: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0; // gone meanwhile (a reset), or a lock file git removed
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    try {
      const stat = await lstat(path);
      total += Math.max(stat.size, stat.blocks * 512);
    } catch {
      continue;
    }
    if (entry.isDirectory()) total += await diskBytes(path);
  }
  return total;
}

function storageOf(sim: Sim): Storage {
  let storage = storages.get(sim);
  if (!storage) {
    const dir = join(tempRoot(), 'served', String(++made));
    storages.set(sim, (storage = { dir, roots: new Map(), added: new Map(), reserved: 0, released: false }));
  }
  return storage;
}

/** The directory holding `repo.git` this simulator serves for the project (GIT_PROJECT_ROOT). */
export function servedRoot(sim: Sim, projectId: number): Promise<string> {
  const storage = storageOf(sim);
  let pending = storage.roots.get(projectId);
  if (!pending) {
    pending = pristineRoot(sim.options.seed, projectId).then(async (pristine) => {
      const key = pristineKey(sim, projectId);
      if (!pristineBytes.has(key)) pristineBytes.set(key, diskBytes(pristine));
      const root = join(storage.dir, String(projectId));
      await mkdir(storage.dir, { recursive: true, mode: 0o700 });
      await cp(pristine, root, { recursive: true });
      return root;
    });
    pending.catch(() => storage.roots.get(projectId) === pending && storage.roots.delete(projectId));
    storage.roots.set(projectId, pending);
  }
  return pending;
}

/** What pushes left in this simulator's repositories, as last measured, and what pushes under way may add. */
export function pushedBytes(sim: Sim): number {
  const storage = storages.get(sim);
  if (!storage) return 0;
  let total = storage.reserved;
  for (const bytes of storage.added.values()) total += bytes;
  return total;
}

/** The bound: the simulator's option (tests lower it), else the spec's limit. */
export const pushBound = (sim: Sim): number => sim.options.gitPushedMaxBytes ?? limits().gitPushedMaxBytes;

/**
 * Pkt-lines before the first flush of a receive-pack request: its ref updates (a push
 * certificate's lines are counted alike, an upper bound is enough).
 */
export function refCommands(body: Buffer): number {
  let count = 0;
  for (let at = 0; at + 4 <= body.length; count++) {
    const length = Number.parseInt(body.toString('latin1', at, at + 4), 16);
    if (!(length >= 4)) break; // flush (0000), or not a pkt-line: git will refuse it
    at += length;
  }
  return count;
}

/**
 * The body of a push as git reads it: a gzip one inflated here, at most the Git body limit, so
 * that what it will store is measured (git http-backend would inflate it without a bound). Null
 * when it inflates past the limit; a body that is no gzip goes to git as it came, which refuses it.
 */
export async function pushBody(body: Buffer, encoding: string | null): Promise<Buffer | null> {
  if (!encoding || !/^(x-)?gzip$/i.test(encoding.trim())) return body;
  try {
    return await inflate(body, { maxOutputLength: limits().gitRequestBodyMaxBytes });
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? null : body;
  }
}

/**
 * What one push could add: its (inflated) body, where its pack is, and a block per ref update.
 * Past the Git body limit it is refused (413) as a body over that limit is: one push adds at most
 * that much, also a push of many refs and no pack.
 */
export const pushEstimate = (body: Buffer): number => body.length + refCommands(body) * REF_BYTES;

/**
 * Whether pushes are refused: the stored total (and what pushes under way set aside) has reached
 * the bound. A push is taken while it has not, so the total stays under the bound plus one push.
 */
export const pushesFull = (sim: Sim): boolean => pushedBytes(sim) >= pushBound(sim);

/**
 * Set the push's estimate aside until git has finished with it; `done` then measures the
 * repository, which replaces the estimate. The caller has checked pushesFull and pushEstimate.
 */
export function reservePush(sim: Sim, projectId: number, estimate: number): { done(): Promise<void> } {
  const storage = storageOf(sim);
  storage.reserved += estimate;
  return {
    async done() {
      try {
        const root = await storage.roots.get(projectId);
        const pristine = await pristineBytes.get(pristineKey(sim, projectId));
        if (root && pristine !== undefined && !storage.released)
          storage.added.set(projectId, Math.max(0, (await diskBytes(root)) - pristine));
      } finally {
        storage.reserved -= estimate;
      }
    },
  };
}

/** The refusal's text: a git client shows it (`remote: ...`) when it comes with the advertisement. */
export const fullMessage = (sim: Sim): string =>
  `Your push has been rejected: pushes to this simulator may keep ${pushBound(sim)} bytes ` +
  `(limits.gitPushedMaxBytes) and they hold ${pushedBytes(sim)}. ` +
  'Reset the simulator (POST /-/simulator/reset) or restart it to push again.\n';

/** Remove this simulator's repositories (reset, close): its next Git request starts from pristine copies. */
export async function releaseRepositories(sim: Sim): Promise<void> {
  const storage = storages.get(sim);
  if (!storage) return;
  storages.delete(sim);
  storage.released = true;
  const roots = await Promise.allSettled(storage.roots.values());
  for (const r of roots) if (r.status === 'fulfilled') forgetAdvertisements(r.value);
  await rm(storage.dir, { recursive: true, force: true });
}

/** Where this simulator's repositories are, while it has any (tests look at the disk). */
export const storageDir = (sim: Sim): string | undefined => storages.get(sim)?.dir;
