/**
 * CPU profiles of a bench server, taken only while the load runs (node:inspector, in the server's
 * own process), and their reading: self time per function and per file, highest first.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

let session: Session | undefined;

export async function startProfile(): Promise<Record<string, unknown>> {
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  // 100 µs between samples: enough samples in a few seconds, little overhead.
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  return {};
}

export async function stopProfile(file: string): Promise<Record<string, unknown>> {
  if (!session) throw new Error('no profile was started');
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  session = undefined;
  writeFileSync(file, JSON.stringify(profile));
  return { file };
}

export interface Profile {
  nodes: ProfileNode[];
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

export interface SelfTime {
  name: string;
  share: number;
}

/** Where a script lives, short: the project's own files relative to the build, Node's and packages' by name. */
function place(url: string): string {
  if (!url) return '';
  const own = url.match(/\/dist\/(.+)$/);
  if (own) return own[1];
  const dep = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (dep) return dep[1];
  return url.replace(/^file:\/\//, '');
}

/** Self time by function and by file, as shares of every sample but idle ones. */
export function readProfile(profile: Profile): { functions: SelfTime[]; files: SelfTime[] } {
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (hits === 0 || functionName === '(idle)') continue;
    total += hits;
    const where = place(url);
    const fn = `${functionName || '(anonymous)'}${where ? ` ${where}:${lineNumber + 1}` : ''}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + hits);
    const file = where || functionName;
    byFile.set(file, (byFile.get(file) ?? 0) + hits);
  }
  const sorted = (m: Map<string, number>) =>
    [...m].map(([name, hits]) => ({ name, share: hits / total })).sort((a, b) => b.share - a.share);
  return { functions: sorted(byFunction), files: sorted(byFile) };
}
