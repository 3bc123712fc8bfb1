/** The device flow as a client plays it: start, poll, wait; shared by the device checks. */
import type { RuleId } from '../../spec/index.js';
import type { AppRole, CheckContext, HttpResponse } from '../types.js';
import { broke, DEVICE_GRANT, expectJsonType, jsonObject } from '../shared/oauth.js';

export const AUTHORIZE_DEVICE_PATH = '/oauth/authorize_device';

export interface DeviceStart {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresIn: number;
  interval: number;
  scope: string;
}

/** The application the device checks use: the public one when configured (devices hold no secret). */
export function deviceApp(t: CheckContext): AppRole {
  if (t.config.applications?.public) return 'public';
  if (t.config.applications?.confidential) return 'confidential';
  return t.skip('the target config names no application for the device flow');
}

export function authorizeDevice(t: CheckContext, form: Record<string, string | undefined>): Promise<HttpResponse> {
  return t.http.post(AUTHORIZE_DEVICE_PATH, { form });
}

/** What a device authorization refused or malformed breaks: the grant's availability, its parameters, its response. */
export const AUTHORIZE_DEVICE_RULES: RuleId[] = ['DEV-AVAILABILITY', 'DEV-AUTHORIZE-PARAMS', 'DEV-AUTHORIZE-RESPONSE'];

/** POST /oauth/authorize_device for the device app; fails unless it answers a device authorization response. */
export async function startDevice(t: CheckContext, scope?: string): Promise<DeviceStart & { response: HttpResponse }> {
  const app = t.config.applications![deviceApp(t)]!;
  const requested = scope ?? app.scopes[0];
  const response = await authorizeDevice(t, { client_id: app.clientId, scope: requested });
  const body = jsonObject(response);
  t.expect(
    response.status === 200 && body,
    'POST /oauth/authorize_device must answer 200 with a JSON object',
    broke(AUTHORIZE_DEVICE_RULES, { status: response.status, error: body?.error ?? null }),
  );
  expectJsonType(t, response, 'device authorization response', ['DEV-AUTHORIZE-RESPONSE']);
  const str = (k: string) => (typeof body[k] === 'string' ? body[k] : '');
  const int = (k: string) => (Number.isInteger(body[k]) ? (body[k] as number) : NaN);
  return {
    response,
    deviceCode: str('device_code'),
    userCode: str('user_code'),
    verificationUri: str('verification_uri'),
    verificationUriComplete: str('verification_uri_complete'),
    expiresIn: int('expires_in'),
    interval: int('interval'),
    scope: requested,
  };
}

/** One poll of the token endpoint with the device grant (t.oauth tracks a token that comes back). */
export function poll(t: CheckContext, deviceCode: string, app: AppRole = deviceApp(t)): Promise<HttpResponse> {
  return t.oauth.tokenRequest({ grant_type: DEVICE_GRANT, device_code: deviceCode }, { app });
}

/** Let `seconds` pass on the target: its clock when it has one, else real time (only with --slow). */
export async function wait(t: CheckContext, seconds: number): Promise<void> {
  if (seconds <= 0) return;
  if (t.caps.clock) return t.driver.advanceClock(seconds);
  if (!t.slow) t.fail('waiting needs clock control or --slow');
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}

/** Skip unless time can pass: clock control, or real waiting allowed by --slow. */
export function needTime(t: CheckContext): void {
  if (!t.caps.clock && !t.slow) t.skip('needs clock control (the simulator) or --slow to wait in real time');
}
