/**
 * device.unavailable judges a refusal only where the grant must not be offered; its skip says which
 * of the two reasons holds, so a run whose device probe was refused never reads "available" here
 * while the other device checks say it is not (issue 23).
 */
import { describe, expect, it } from 'vitest';
import { deviceChecks } from '../../suites/device/checks.js';
import type { CheckContext } from '../../suites/types.js';

const check = deviceChecks.find((c) => c.id === 'device.unavailable')!;

async function skipReason(device: boolean, inForce: boolean, deviceRefused?: string): Promise<string> {
  const t = {
    caps: { device, deviceRefused },
    release: '18.0',
    inForce: () => inForce,
    skip: (reason: string): never => {
      throw new Error(`skip: ${reason}`);
    },
  } as unknown as CheckContext;
  return check.run(t).then(
    () => 'ran',
    (e: Error) => e.message,
  );
}

describe('device.unavailable', () => {
  it('says the grant is offered only when the probe was answered', async () => {
    expect(await skipReason(true, true)).toBe(
      'skip: the device grant is offered by this target (its probe was answered)',
    );
  });
  it('says the grant is declared, and who judges its refusal, when the probe was refused to the configured application', async () => {
    expect(await skipReason(true, true, '400 unauthorized_client')).toBe(
      'skip: the device grant is declared available (features.device_authorization_grant); its refusal to the configured application (400 unauthorized_client) is judged by device.authorization-response',
    );
  });
  it('says the rules require the grant when the probe was refused at a release that has it', async () => {
    const reason = await skipReason(false, true);
    expect(reason).toMatch(/^skip: at release 18\.0 .* must be offered \(DEV-AVAILABILITY\)/);
    expect(reason).not.toMatch(/is available|offered by this target/);
  });
});
