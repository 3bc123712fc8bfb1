/**
 * grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4-3.5), from release 17.1
 * behind its flag. The device's poll fires the device machine; its row decides the answer.
 */
import { digest } from '../../digest.js';
import { authenticateClient, presentedClient } from '../client-auth.js';
import { InvalidGrant } from '../errors.js';
import { fireDevice, type DeviceStep } from '../device.js';
import { deviceGrantAvailable } from '../gates.js';
import { required } from '../params.js';
import { deviceTokenBody } from '../tokens.js';
import { tokenResponse, type Grant } from './grant.js';

export const deviceCode: Grant = {
  type: 'urn:ietf:params:oauth:grant-type:device_code',
  available: deviceGrantAvailable,
  async handle(ctx, params) {
    const { sim } = ctx;
    const value = required(params, 'device_code');
    const app = authenticateClient(sim, presentedClient(ctx.request, params), 'if-sent');
    const record = sim.store.deviceCodes.get(digest(value));
    if (!record) throw InvalidGrant('The device code is invalid');
    if (record.applicationId !== app.id) throw InvalidGrant('The device code was issued to another client');

    const x: DeviceStep = { sim, record };
    await fireDevice(x, 'poll', true);
    return tokenResponse(sim, deviceTokenBody(sim, x.issued!));
  },
};
