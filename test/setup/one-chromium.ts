/**
 * One Chromium per vitest worker: the browser driver's Chromium is held open for the worker's
 * life, so the files and runs after the first reuse it instead of launching their own (a launch
 * and close cost about 0.4 s and 0.5 s of CPU here; there were a dozen a run). It is launched only
 * when a test first needs it, each driver still gets a fresh context, and playwright kills it when
 * the worker exits. This file runs before every test file: the hold is taken once per instance of
 * the driver's module (files share their worker's modules, isolate: false).
 */
import { holdBrowser } from '../../suites/drivers/browser.js';

const HELD = Symbol.for('idp-conformance.test.chromium-held');
const worker = globalThis as { [HELD]?: unknown };
if (worker[HELD] !== holdBrowser) {
  worker[HELD] = holdBrowser;
  holdBrowser();
}
