/** Who plays the user, chosen by the target config's `driver.kind`. */
import type { Driver, Http, TargetConfig } from '../types.js';
import { ConfigError, TargetError } from '../errors.js';
import { createBrowserDriver } from './browser.js';
import { createFormDriver } from './form.js';
import { createManualDriver } from './manual.js';
import { createSimulatorDriver } from './simulator.js';

export { createBrowserDriver, createFormDriver, createManualDriver, createSimulatorDriver };

/** Async because the browser driver starts Chromium here, so a missing one is a usage error up front. */
export async function createDriver(http: Http, config: TargetConfig, hasControl: boolean): Promise<Driver> {
  const kind = config.driver?.kind ?? (hasControl ? 'simulator' : 'form');
  switch (kind) {
    case 'simulator':
      if (!hasControl)
        throw new TargetError(
          `driver "simulator" needs the simulator control API, and ${http.baseUrl}/-/simulator/config does not answer`,
        );
      return createSimulatorDriver(http, config);
    case 'form':
      return createFormDriver(http, config);
    case 'browser':
      return createBrowserDriver(http, config, { hasControl });
    case 'manual':
      return createManualDriver(http);
    default:
      throw new ConfigError(
        `driver "${kind}" is not supported by this version (use simulator, form, browser or manual)`,
      );
  }
}
