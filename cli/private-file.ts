/** Files that hold secrets (the target config of `simulate --write-config`). */
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { makeDirectories } from '../reporters/directories.js';
import { basename, dirname, join } from 'node:path';

/**
 * Write `text` to `path` readable by its owner only (0600), also over an existing file: a new
 * file is created beside it (O_EXCL, so its mode is ours and no link is followed), then renamed
 * over the path, so a reader sees the old file or the whole new one, never a 0644 file of secrets.
 * Missing parent folders are created (0700), as `run --report` creates its report folders.
 */
export function writePrivateFile(path: string, text: string): void {
  makeDirectories(dirname(path), 0o700);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
