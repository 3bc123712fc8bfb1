/**
 * A device verification page in two steps, as RFC 8628 §5.4 advises against remote phishing:
 * the user code entered and "Continue", then a page that names the client and the code and asks
 * to confirm ("Confirm" / "Cancel", posted as confirm=yes / no; Okta's, Entra ID's and
 * oidc-provider's pages ask so). Both drivers enter the code, go on and decide on the second page:
 * the device checks pass whether the check approves or denies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { simulatorWith, type Loopback } from '../suites/loopback.js';
import { escaped, page } from './sign-in-journey.js';
import { checksWith, explain, PAGE_DRIVERS, runWithDriver } from './provider.js';
import { hiddenInputs, twoStepDevice } from './two-step-device.js';

const ON_THE_PAGE = ['device.token-response', 'device.verification-page'];

let front: Loopback & { sim: Sim };
/** The confirmation pages shown, and the answers posted from them. */
const confirmations: string[] = [];

beforeAll(async () => {
  let base = '';
  front = await simulatorWith(
    // Step one: the code, and "Continue" to the confirmation.
    twoStepDevice(
      () => front.sim,
      () => base,
      {
        path: '/oauth/device/confirm',
        button: '<button type="submit">Continue</button>',
        page(form) {
          confirmations.push('shown');
          return page(
            'Confirm device',
            `<p><strong>Conformance device app</strong> is asking to connect to your account.</p>
<p>Make sure this code matches the one shown on your device: <code>${escaped(form.get('user_code') ?? '')}</code></p>
<form method="post" action="/oauth/device">${hiddenInputs(form)}
<button type="submit" name="confirm" value="yes">Confirm</button>
<button type="submit" name="confirm" value="no">Cancel</button></form>`,
          );
        },
        decide(form) {
          const confirm = form.get('confirm');
          if (!confirm) return undefined;
          confirmations.push(confirm);
          form.delete('confirm');
          return confirm === 'yes' ? 'approve' : 'deny';
        },
      },
    ),
  );
  base = front.url;
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe('a device page that names the client and asks to confirm (RFC 8628 §5.4)', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: the code entered, the confirmation answered, the device checks pass',
    async (kind) => {
      confirmations.length = 0;
      // The drivers' own defaults: the simulator's consent selectors name buttons this page has not.
      const { code, report, stderr } = await runWithDriver(front, kind, ON_THE_PAGE);
      const why = explain(report, stderr);
      expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual([]);
      expect(code, why).toBe(0);
      // Confirmed for the token, cancelled for the page's denial.
      expect([...new Set(confirmations)].sort(), why).toEqual(['no', 'shown', 'yes']);
    },
    120_000,
  );
});
