/**
 * `mkdir -p`, one level at a time, for every file the commands write (reports, the rule
 * catalogue, simulate's target config). Node 20's recursive mkdir tries again for ever where
 * mkdir answers ENOENT under a folder that exists (procfs): the command hung, its file unwritten.
 */
import { mkdirSync, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';

const statOf = (path: string): Stats | undefined => {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
};

/** Make `dir` and its missing parents (`mode` for those it makes); a file in the way is ENOTDIR, with its path. */
export function makeDirectories(dir: string, mode?: number): void {
  const missing: string[] = [];
  let at = resolve(dir);
  let info = statOf(at);
  while (!info && dirname(at) !== at) {
    missing.unshift(at);
    at = dirname(at);
    info = statOf(at);
  }
  if (info && !info.isDirectory())
    throw Object.assign(new Error(`ENOTDIR: not a directory, ${at}`), { code: 'ENOTDIR', path: at });
  for (const each of missing)
    try {
      mkdirSync(each, mode === undefined ? undefined : { mode });
    } catch (error) {
      // Made meanwhile (two reports in one new folder): fine if it is a folder.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statOf(each)?.isDirectory()) throw error;
    }
}
