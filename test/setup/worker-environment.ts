/**
 * Vitest's node environment, plus what a worker holds for its files, released when the worker
 * stops: vitest sets an environment up when a worker starts and tears it down before it ends the
 * worker with SIGTERM, and nothing else runs then (a signal leaves no exit handler to playwright,
 * whose Chromium would leave its profile in the temporary directory).
 */
import { builtinEnvironments, type Environment } from 'vitest/runtime';

/** Where the setup files leave what to release when the worker stops (globalThis: the environment loads its own modules). */
export const RELEASE_AT_STOP = Symbol.for('idp-conformance.test.release-at-stop');

const node = builtinEnvironments.node;

export default {
  name: 'node-worker',
  viteEnvironment: node.viteEnvironment,
  async setup(global, options) {
    const env = await node.setup(global, options);
    return {
      async teardown(global) {
        const held = (globalThis as { [RELEASE_AT_STOP]?: { release: () => Promise<void> } })[RELEASE_AT_STOP];
        await held?.release();
        await env.teardown(global);
      },
    };
  },
} satisfies Environment;
