/**
 * The device authorization answer is written out as JSON text (authorize-device.ts deviceAnswer):
 * it must be exactly JSON.stringify of the same fields, in order, whatever the URIs hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deviceAnswer } from '../../../simulator/oauth/authorize-device.js';
import { hexId } from '../../../simulator/random.js';
import { newUserCode } from '../../../simulator/oauth/device.js';

describe('deviceAnswer', () => {
  it('is JSON.stringify of the same object, for any URI text and whole numbers', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        fc.nat(),
        fc.nat(),
        (page, complete, expiresIn, interval) => {
          const deviceCode = hexId(32);
          const userCode = newUserCode();
          const object = {
            device_code: deviceCode,
            user_code: userCode,
            verification_uri: page,
            verification_uri_complete: complete,
            expires_in: expiresIn,
            interval,
          };
          expect(deviceAnswer(deviceCode, userCode, page, complete, expiresIn, interval)).toBe(JSON.stringify(object));
        },
      ),
      { seed: 20261127, numRuns: 300 },
    );
  });
});
