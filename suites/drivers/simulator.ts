/**
 * The `simulator` driver: consent through the simulator's real HTML pages (as `form` does), plus
 * the control API for what a person cannot do quickly: approving or denying a device code, moving
 * the clock.
 */
import type { Driver, Http, TargetConfig } from '../types.js';
import { HarnessError } from '../runner/errors.js';
import { createFormDriver } from './form.js';

export const CONTROL_PREFIX = '/-/simulator';

export function createSimulatorDriver(http: Http, config: TargetConfig): Driver {
  const form = createFormDriver(http, config);
  const control = async (path: string, body: unknown) => {
    // 4xx on approve/deny is an answer the checks judge by polling (a used or expired code).
    return http.post(`${CONTROL_PREFIX}/${path}`, { json: body });
  };
  return {
    kind: 'simulator',
    movesClock: true,
    authorize: (url, decision, options) => form.authorize(url, decision, options),
    async approveDevice(userCode) {
      await control('device/approve', { user_code: userCode });
    },
    async denyDevice(userCode) {
      await control('device/deny', { user_code: userCode });
    },
    async advanceClock(seconds) {
      const response = await control('clock', { advanceSeconds: seconds });
      if (response.status >= 300)
        throw new HarnessError(`the simulator refused to move its clock by ${seconds} s (status ${response.status})`);
    },
  };
}
