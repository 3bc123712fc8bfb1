/**
 * The bare repository behind Git over HTTPS: built with the git CLI in a temporary directory the
 * first time a project is fetched, from the same files, branches and tags the REST API lists
 * (simulator/data/tree.ts). Fixed author, committer and dates make the commit ids reproducible.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { BRANCHES, TAGS, repositoryFiles } from '../data/tree.js';

const run = promisify(execFile);

/** A git environment that ignores the machine's own configuration. */
export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
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

function tempRoot(): string {
  if (!root) {
    root = mkdtempSync(join(tmpdir(), 'idp-sim-git-'));
    const dir = root;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return root;
}

async function build(dir: string, seed: number, projectId: number): Promise<void> {
  const work = join(dir, 'work');
  const git = (...args: string[]) => run('git', args, { cwd: work, env: gitEnv() });
  mkdirSync(work, { recursive: true });
  await git('init', '-q', '-b', BRANCHES[0]);
  for (const file of repositoryFiles(seed, projectId)) {
    const path = join(work, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.content);
  }
  await git('add', '-A');
  await git('commit', '-q', '-m', 'Initial commit');
  for (const branch of BRANCHES.slice(1)) await git('branch', branch);
  for (const tag of TAGS) await git('tag', tag);
  await run('git', ['clone', '-q', '--bare', work, join(dir, 'repo.git')], { env: gitEnv() });
  rmSync(work, { recursive: true, force: true });
}

/**
 * The directory holding `repo.git` for this project (GIT_PROJECT_ROOT of git http-backend).
 * Content depends only on (seed, project id), so simulators in one process share it.
 */
export function repositoryRoot(seed: number, projectId: number): Promise<string> {
  const key = `${seed}-${projectId}`;
  let pending = built.get(key);
  if (!pending) {
    const dir = join(tempRoot(), key);
    pending = build(dir, seed, projectId).then(() => dir);
    pending.catch(() => built.delete(key));
    built.set(key, pending);
  }
  return pending;
}
