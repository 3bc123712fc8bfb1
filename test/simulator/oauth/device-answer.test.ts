/**
 * The device authorization answer is written out as JSON text (authorize-device.ts deviceAnswer):
 * it must be exactly JSON.stringify of the same fields, in order, whatever the page's text holds
 * (lone surrogates too), with or without the user code in the complete URI, and whichever page came before.
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
        fc.boolean(),
        fc.nat(),
        fc.nat(),
        (page, withCode, expiresIn, interval) => {
          const deviceCode = hexId(32);
          const userCode = newUserCode();
          const complete = withCode ? `${page}?user_code=${encodeURIComponent(userCode)}` : page;
          const object = {
            device_code: deviceCode,
            user_code: userCode,
            verification_uri: page,
            verification_uri_complete: complete,
            expires_in: expiresIn,
            interval,
          };
          // Twice: the first quotes the page (a new one), the second reads it back from the cache.
          for (let i = 0; i < 2; i++)
            expect(deviceAnswer(deviceCode, userCode, page, withCode, expiresIn, interval)).toBe(
              JSON.stringify(object),
            );
        },
      ),
      { seed: 20261127, numRuns: 300 },
    );
  });
});
