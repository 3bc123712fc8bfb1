/** POST /oauth/authorize_device (oauthAuthorizeDevice, RFC 8628 §3.1-3.2): start the device flow. */
import type { Ctx, Handler } from '../types.js';
import { jsonText, type Answer } from '../http.js';
import { limits } from '../../spec/index.js';
import type { DeviceCode } from '../store.js';
import { authenticateClient, presentedClient } from './client-auth.js';
import { noStore } from './errors.js';
import { deviceMachine, issueDeviceCode, issueUserCode, makeRoomForDeviceCode, storeDeviceCode } from './device.js';
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
  makeRoomForDeviceCode(sim);
  const { deviceCode, deviceDigest } = issueDeviceCode(sim);
  const { userCode, userCodeDigest } = issueUserCode(sim);
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
  storeDeviceCode(sim, record);
  const page = `${issuer(ctx)}/oauth/device`;
  // The lifetime said, even where the fault device-code-never-expires keeps the code for ever.
  const withCode = !sim.fault('device-uri-complete-no-user-code');
  return jsonText(200, deviceAnswer(deviceCode, userCode, page, withCode, lifetime, record.interval), noStore(sim));
}

/** The verification page as JSON text, and that text open for its query: one origin answers almost every request. */
let quoted = { page: '', json: '""', open: '' };
function quotedPage(page: string): typeof quoted {
  if (page !== quoted.page) {
    const json = JSON.stringify(page);
    quoted = { page, json, open: json.slice(0, -1) };
  }
  return quoted;
}

/**
 * RFC 8628 §3.2's answer as JSON text, written out rather than stringified from an object (a
 * third of this endpoint's own time): the codes are hex and consonants with a dash, the numbers
 * whole. The page, the only text a request shapes, goes through JSON.stringify once per origin;
 * the complete URI is that text with `?user_code=` and the encoded code (characters JSON leaves
 * as they are) before its closing quote, unless `withCode` is false (the fault
 * device-uri-complete-no-user-code). device-answer.test.ts holds it to JSON.stringify of the same object.
 */
export function deviceAnswer(
  deviceCode: string,
  userCode: string,
  page: string,
  withCode: boolean,
  expiresIn: number,
  interval: number,
): string {
  const { json, open } = quotedPage(page);
  const complete = withCode ? `${open}?user_code=${encodeURIComponent(userCode)}"` : json;
  return (
    `{"device_code":"${deviceCode}","user_code":"${userCode}","verification_uri":${json},` +
    `"verification_uri_complete":${complete},"expires_in":${expiresIn},"interval":${interval}}`
  );
}
