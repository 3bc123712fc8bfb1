/** Who plays the user, chosen by the target config's `driver.kind`. */
import type { Driver, Http, TargetConfig } from '../types.js';
import { ConfigError, TargetError } from '../errors.js';
import { createBrowserDriver } from './browser.js';
import { createFormDriver } from './form.js';
import { createManualDriver } from './manual.js';
import { CONTROL_PREFIX, createSimulatorDriver } from './simulator.js';

export { createBrowserDriver, createFormDriver, createManualDriver, createSimulatorDriver };

/**
 * What the control API said instead of its config, asked once more on this error path only: a 403
 * is the simulator's own Host/Origin guard (issue 23: it read "does not answer"), anything else is
 * named by its status.
 */
async function whyNoControl(http: Http): Promise<string> {
  try {
    const res = await http.get(`${CONTROL_PREFIX}/config`);
    if (res.status === 403)
      return 'answered 403: the simulator refuses requests naming this host (serve it with --allow-host for this name, or use its 127.0.0.1 URL)';
    return `answered ${res.status}, not the simulator's config`;
  } catch (error) {
    return `does not answer (${(error as Error).message.split('\n')[0].slice(0, 120)})`;
  }
}

/** Async because the browser driver starts Chromium here, so a missing one is a usage error up front. */
export async function createDriver(
  http: Http,
  config: TargetConfig,
  hasControl: boolean,
  /** The target's per-request timeout (--timeout), which the browser driver's page loads are held to too. */
  answerTimeoutMs?: number,
): Promise<Driver> {
  const kind = config.driver?.kind ?? (hasControl ? 'simulator' : 'form');
  switch (kind) {
    case 'simulator':
      if (!hasControl)
        throw new TargetError(
          `driver "simulator" needs the simulator control API, and ${http.baseUrl}${CONTROL_PREFIX}/config ${await whyNoControl(http)}`,
        );
      return createSimulatorDriver(http, config);
    case 'form':
      return createFormDriver(http, config);
    case 'browser':
      return createBrowserDriver(http, config, { hasControl, answerTimeoutMs });
    case 'manual':
      return createManualDriver(http);
    default:
      throw new ConfigError(
        `driver "${kind}" is not supported by this version (use simulator, form, browser or manual)`,
      );
  }
}
