/**
 * The bare repository behind Git over HTTPS: built with the git CLI in a temporary directory the
 * first time a project is fetched, from the same files, branches and tags the REST API lists
 * (simulator/data/tree.ts). Fixed author, committer and dates make the commit ids reproducible.
 * This pristine copy is never pushed to: each simulator serves its own copy of it (storage.ts).
 */
import { execFile } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { BRANCHES, TAGS, repositoryFiles } from '../data/tree.js';

const run = promisify(execFile);

/**
 * Configuration every git command of the simulator runs with: a push is kept as the pack it came
 * in (a small one was exploded into loose objects, which can take far more room than the pack,
 * and the measure of a push is its body, storage.ts), and nothing repacks behind its back.
 */
const CONFIG: [string, string][] = [
  ['receive.unpackLimit', '1'],
  ['receive.autogc', 'false'],
  ['gc.auto', '0'],
];

/** A git environment that ignores the machine's own configuration. */
export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const config: Record<string, string> = { GIT_CONFIG_COUNT: String(CONFIG.length) };
  CONFIG.forEach(([key, value], i) => {
    config[`GIT_CONFIG_KEY_${i}`] = key;
    config[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return {
    ...config,
    PATH: process.env.PATH,
    HOME: tmpdir(),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Simulator',
    GIT_AUTHOR_EMAIL: 'simulator@example.invalid',
    GIT_COMMITTER_NAME: 'Simulator',
    GIT_COMMITTER_EMAIL: 'simulator@example.invalid',
    GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
    ...extra,
  };
}

let root: string | undefined;
const built = new Map<string, Promise<string>>();

/**
 * The process's one temporary directory (mkdtemp: 0700) for every repository, pristine or served;
 * it goes when the process exits, whatever a simulator left in it.
 */
export function tempRoot(): string {
  if (!root) {
    root = mkdtempSync(join(tmpdir(), 'idp-sim-git-'));
    process.once('exit', removeTempRoot);
  }
  return root;
}

/**
 * Remove the process's temporary directory now, every repository in it (the next Git request
 * builds afresh). For a process that ends on a signal, where no exit handler runs: a vitest
 * worker (test/setup/git-temp.ts).
 */
export function removeTempRoot(): void {
  if (!root) return;
  rmSync(root, { recursive: true, force: true });
  process.off('exit', removeTempRoot);
  root = undefined;
  built.clear();
}

async function build(dir: string, seed: number, projectId: number): Promise<void> {
  const work = join(dir, 'work');
  const git = (...args: string[]) => run('git', args, { cwd: work, env: gitEnv() });
  mkdirSync(work, { recursive: true, mode: 0o700 });
  await git('init', '-q', '-b', BRANCHES[0]);
  for (const file of repositoryFiles(seed, projectId)) {
    const path = join(work, file.path);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, file.content, { mode: 0o600 });
  }
  await git('add', '-A');
  await git('commit', '-q', '-m', 'Initial commit');
  for (const branch of BRANCHES.slice(1)) await git('branch', branch);
  for (const tag of TAGS) await git('tag', tag);
  const bare = join(dir, 'repo.git');
  await run('git', ['clone', '-q', '--bare', work, bare], { env: gitEnv() });
  rmSync(work, { recursive: true, force: true });
  // Its owner's alone, whatever the umask: what git writes later (a push) is too. Git reads this
  // setting from the repository's own file only, not from the environment.
  await run('git', ['config', 'core.sharedRepository', '0600'], { cwd: bare, env: gitEnv() });
  ownerOnly(dir);
}

/** Directories 0700 and files without group or other bits, under `dir` and itself. */
function ownerOnly(dir: string): void {
  chmodSync(dir, 0o700);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) ownerOnly(path);
    else if (stat.isFile()) chmodSync(path, stat.mode & 0o700);
  }
}

/**
 * The directory holding this project's pristine `repo.git`, to be copied, never served (storage.ts).
 * Content depends only on (seed, project id), so simulators in one process share it.
 */
export function pristineRoot(seed: number, projectId: number): Promise<string> {
  const key = `${seed}-${projectId}`;
  let pending = built.get(key);
  if (!pending) {
    const dir = join(tempRoot(), 'pristine', key);
    pending = build(dir, seed, projectId).then(() => dir);
    pending.catch(() => built.delete(key));
    built.set(key, pending);
  }
  return pending;
}
