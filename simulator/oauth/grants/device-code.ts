/**
 * grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4-3.5), from release 17.1
 * behind its flag. The device's poll fires the device machine; its row decides the answer.
 */
import { authenticateClient, presentedClient } from '../client-auth.js';
import { InvalidGrant } from '../errors.js';
import { deviceByCode, deviceMachine, fireDevice, type DeviceStep } from '../device.js';
import type { MachineRow } from '../../../spec/index.js';
import { deviceGrantAvailable } from '../gates.js';
import { required } from '../params.js';
import { deviceTokenBody } from '../tokens.js';
import { tokenResponse, type Grant } from './grant.js';

export const deviceCode: Grant = {
  type: 'urn:ietf:params:oauth:grant-type:device_code',
  available: deviceGrantAvailable,
  handle(ctx, params) {
    const { sim } = ctx;
    const value = required(params, 'device_code');
    const app = authenticateClient(sim, presentedClient(ctx.request, params), 'if-sent');
    const record = deviceByCode(sim, value);
    if (!record) throw InvalidGrant('The device code is invalid');
    if (record.applicationId !== app.id) throw InvalidGrant('The device code was issued to another client');

    const x: DeviceStep = { sim, record };
    // The row's error is answered, not thrown: a pending poll is this endpoint's commonest answer,
    // and a throw through the handler's frames cost it about 2 µs (the machine runs synchronously).
    const answer = (row: MachineRow) => {
      const error = deviceMachine.errorOf(row);
      return error ? error.toResponse(sim) : tokenResponse(sim, deviceTokenBody(sim, x.issued!));
    };
    const fired = fireDevice(x, 'poll');
    return fired instanceof Promise ? fired.then(answer) : answer(fired);
  },
};
