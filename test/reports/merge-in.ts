/** `report merge` of files in one folder, as the command line runs it, its console and exit code collected. */
import { join } from 'node:path';
import { executeMerge } from '../../cli/report.js';

export function mergeIn(dir: string) {
  return async (files: string[], report?: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await executeMerge(
      files.map((f) => join(dir, f)),
      report === undefined ? {} : { report },
      { out: (t) => void out.push(t), err: (t) => void err.push(t) },
    );
    return { code, out: out.join(''), err: err.join('') };
  };
}
