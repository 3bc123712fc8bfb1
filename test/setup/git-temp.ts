/**
 * The simulator's Git repositories (simulator/git/repository.ts) live in a temporary directory
 * removed at the process's exit; a vitest worker ends on SIGTERM, where no exit handler runs, so
 * each worker that served Git left its directory behind (about 2.5 MB, every run). Its removal is
 * added to what the worker's environment releases when it stops (./worker-environment.ts), once
 * per instance of the module (files share their worker's modules, isolate: false).
 */
import { removeTempRoot } from '../../simulator/git/repository.js';
import { RELEASE_AT_STOP } from './worker-environment.js';

const REGISTERED = Symbol.for('idp-conformance.test.git-temp-registered');
const worker = globalThis as {
  [RELEASE_AT_STOP]?: { module: unknown; release: () => Promise<void> };
  [REGISTERED]?: Set<unknown>;
};
const registered = (worker[REGISTERED] ??= new Set());
if (!registered.has(removeTempRoot)) {
  registered.add(removeTempRoot);
  const earlier = worker[RELEASE_AT_STOP];
  // The browser hold's `module` stays: one-chromium.ts reads it to know its hold is taken.
  worker[RELEASE_AT_STOP] = {
    module: earlier?.module,
    release: async () => {
      await earlier?.release();
      removeTempRoot();
    },
  };
}
