/**
 * One Chromium per vitest worker: the browser driver's Chromium is held open for the worker's
 * life, so the files and runs after the first reuse it instead of launching their own (a launch
 * and close cost about 0.4 s and 0.5 s of CPU here; there were a dozen a run). It is launched only
 * when a test first needs it, and each driver still gets a fresh context. This file runs before
 * every test file: the hold is taken once per instance of the driver's module (files share their
 * worker's modules, isolate: false), and its release is left where the worker's environment
 * (./worker-environment.ts) finds it when the worker stops.
 */
import { holdBrowser } from '../../suites/drivers/browser.js';
import { RELEASE_AT_STOP } from './worker-environment.js';

const worker = globalThis as { [RELEASE_AT_STOP]?: { module: unknown; release: () => Promise<void> } };
if (worker[RELEASE_AT_STOP]?.module !== holdBrowser) {
  const earlier = worker[RELEASE_AT_STOP]?.release;
  const release = holdBrowser();
  worker[RELEASE_AT_STOP] = {
    module: holdBrowser,
    release: async () => {
      await earlier?.();
      await release();
    },
  };
}
