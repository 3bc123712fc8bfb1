/** POST /oauth/authorize_device (oauthAuthorizeDevice, RFC 8628 §3.1-3.2): start the device flow. */
import type { Ctx, Handler } from '../types.js';
import { jsonText, type Answer } from '../http.js';
import { limits } from '../../spec/index.js';
import type { DeviceCode } from '../store.js';
import { hexId } from '../random.js';
import { digest } from '../digest.js';
import { authenticateClient, presentedClient } from './client-auth.js';
import { noStore } from './errors.js';
import { deviceMachine, issueUserCode, makeRoomForDeviceCode } from './device.js';
import { issuer } from './issuer.js';
import { required, withBodyParams, type Params } from './params.js';
import { grantScopes } from './scopes.js';

export const oauthAuthorizeDevice: Handler = (ctx) => withBodyParams(ctx, (params) => authorizeDevice(ctx, params));

function authorizeDevice(ctx: Ctx, params: Params): Answer {
  const { sim } = ctx;
  required(params, 'client_id');
  const app = authenticateClient(sim, presentedClient(ctx.request, params), 'if-sent');
  const scopes = grantScopes(params.get('scope'), app.scopes);
  const { deviceCodeLifetime, deviceInterval } = limits();
  // The fault doubles both: the response shows 600 and 10 where the source shows 300 and 5.
  const doubled = sim.fault('device-timings-doubled') ? 2 : 1;
  const lifetime = deviceCodeLifetime * doubled;
  const deviceCode = hexId(32);
  const deviceDigest = digest(deviceCode);
  makeRoomForDeviceCode(sim);
  const { userCode, userCodeDigest } = issueUserCode(sim, deviceDigest);
  const record: DeviceCode = {
    digest: deviceDigest,
    userCodeDigest,
    applicationId: app.id,
    scopes,
    createdAt: sim.clock.nowSeconds(),
    // A code that never expires is kept by the sweep too (evict.ts reads expiresIn): a check of the
    // condition alone lost the code to the sweep a lifetime and its grace later (invalid_grant).
    expiresIn: sim.fault('device-code-never-expires') ? Number.POSITIVE_INFINITY : lifetime,
    interval: deviceInterval * doubled,
    state: deviceMachine.table.initial,
    userId: null,
    lastPollAt: null,
  };
  sim.store.deviceCodes.set(record.digest, record);
  const page = `${issuer(ctx)}/oauth/device`;
  const complete = sim.fault('device-uri-complete-no-user-code')
    ? page
    : `${page}?user_code=${encodeURIComponent(userCode)}`;
  // The lifetime said, even where the fault device-code-never-expires keeps the code for ever.
  return jsonText(200, deviceAnswer(deviceCode, userCode, page, complete, lifetime, record.interval), noStore(sim));
}

/**
 * RFC 8628 §3.2's answer as JSON text, written out rather than stringified from an object (a
 * third of this endpoint's own time): the codes are hex and consonants with a dash, the numbers
 * whole, and the two URIs, the only text a request shapes, go through JSON.stringify.
 * device-answer.test.ts holds it to JSON.stringify of the same object.
 */
export function deviceAnswer(
  deviceCode: string,
  userCode: string,
  page: string,
  complete: string,
  expiresIn: number,
  interval: number,
): string {
  return (
    `{"device_code":"${deviceCode}","user_code":"${userCode}","verification_uri":${JSON.stringify(page)},` +
    `"verification_uri_complete":${JSON.stringify(complete)},"expires_in":${expiresIn},"interval":${interval}}`
  );
}
