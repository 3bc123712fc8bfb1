/** The device flow as a client plays it: start, poll, wait; shared by the device checks. */
import { limits, type RuleId } from '../../spec/index.js';
import type { AppRole, CheckContext, HttpRequest, HttpResponse } from '../types.js';
import { AUTHORIZE_DEVICE_PATH, broke, DEVICE_GRANT, expectJsonType, jsonObject } from '../shared/oauth.js';
import { absentBy, clockMoves, deviceRole, driverCannotMoveClock } from '../runner/capabilities.js';

export { AUTHORIZE_DEVICE_PATH } from '../shared/oauth.js';

export interface DeviceStart {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresIn: number;
  interval: number;
  scope: string;
}

/** The application the device checks use (deviceRole: the public one when configured). */
export function deviceApp(t: CheckContext): AppRole {
  return deviceRole(t.config) ?? t.skip('the target config names no application for the device flow');
}

/** `headers` go over the harness's own (an undefined Accept sends none). */
export function authorizeDevice(
  t: CheckContext,
  form: Record<string, string | undefined>,
  headers?: HttpRequest['headers'],
): Promise<HttpResponse> {
  return t.http.post(AUTHORIZE_DEVICE_PATH, { form, headers });
}

/** What a device authorization refused or malformed breaks: the grant's availability, its parameters, its response. */
export const AUTHORIZE_DEVICE_RULES: RuleId[] = ['DEV-AVAILABILITY', 'DEV-AUTHORIZE-PARAMS', 'DEV-AUTHORIZE-RESPONSE'];

/** The codes that refuse the grant itself to the client, whatever its parameters. */
const GRANT_REFUSED: readonly string[] = ['unauthorized_client', 'access_denied'];

/**
 * A device authorization request of the device app: its client_id (a parameter of the source's
 * table, sent beside HTTP Basic too), and a confidential one's secret placed as the start-up found
 * the provider takes it (t.oauth.clientAuth: the body, or HTTP Basic where the body was refused).
 * RFC 8628 §3.1 applies RFC 6749 §3.2.1's client authentication here; Keycloak, Ory Hydra and
 * Spring Authorization Server refuse a confidential client without it.
 */
export function authorizeDeviceApp(t: CheckContext, scope: string, headers?: HttpRequest['headers']) {
  const app = deviceApp(t);
  const client_id = t.oauth.app(app).clientId;
  return t.oauth.clientRequest(AUTHORIZE_DEVICE_PATH, { client_id, scope }, { app, headers });
}

/** POST /oauth/authorize_device for the device app; fails unless it answers a device authorization response. */
export async function startDevice(t: CheckContext, scope?: string): Promise<DeviceStart & { response: HttpResponse }> {
  const requested = scope ?? t.oauth.app(deviceApp(t)).scopes[0];
  const response = await authorizeDeviceApp(t, requested);
  const body = jsonObject(response);
  t.expect(
    response.status === 200,
    'POST /oauth/authorize_device must answer 200 with a JSON object',
    // An absent endpoint (404, 405, a redirect, as start-up reads them), or a refusal of the grant to
    // the client (unauthorized_client, RFC 6749 §5.2: Keycloak's and Okta's for a client it is not
    // enabled for; access_denied, §4.1.2.1: Auth0's 403), is the grant's absence alone: neither its
    // parameters nor its response were there to judge.
    broke(
      absentBy(response, 'POST') || GRANT_REFUSED.includes(body?.error as string)
        ? ['DEV-AVAILABILITY']
        : AUTHORIZE_DEVICE_RULES,
      {
        status: response.status,
        error: body?.error ?? null,
      },
    ),
  );
  expectJsonType(t, response, 'device authorization response', ['DEV-AUTHORIZE-RESPONSE']);
  // Answered, but no JSON (form-encoded): the response's failure, not the grant's or its parameters'.
  t.expect(
    body,
    'POST /oauth/authorize_device must answer 200 with a JSON object',
    broke(['DEV-AUTHORIZE-RESPONSE', 'ENC-RESPONSE-JSON'], { status: response.status }),
  );
  return deviceStartOf(response, body, requested);
}

/** The polling interval a client uses when the device authorization response gives none (RFC 8628 §3.2). */
const RFC8628_DEFAULT_INTERVAL = 5;

/**
 * The members of a device authorization response (a wrong type reads as empty or NaN, judged
 * below). An absent interval is 5, as a client polls then (RFC 8628 §3.2), and a number sent as a
 * string ("300") is read as a lenient client reads it: the checks that wait go on, and the missing
 * member or its type is DEV-AUTHORIZE-RESPONSE's failure alone.
 */
export function deviceStartOf(
  response: HttpResponse,
  body: Record<string, unknown>,
  scope: string,
): DeviceStart & { response: HttpResponse } {
  const str = (k: string) => (typeof body[k] === 'string' ? body[k] : '');
  const int = (k: string) => {
    const value = body[k];
    if (typeof value === 'string' && /^\d{1,9}$/.test(value)) return Number(value);
    return Number.isInteger(value) ? (value as number) : NaN;
  };
  return {
    response,
    deviceCode: str('device_code'),
    userCode: str('user_code'),
    verificationUri: str('verification_uri'),
    verificationUriComplete: str('verification_uri_complete'),
    expiresIn: int('expires_in'),
    interval: body.interval === undefined ? RFC8628_DEFAULT_INTERVAL : int('interval'),
    scope,
  };
}

export function absoluteUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** The members of a device authorization response: codes, verification URIs, expires_in and interval. */
export function expectDeviceAuthorizationFields(t: CheckContext, start: DeviceStart & { response: HttpResponse }) {
  const body = jsonObject(start.response) ?? {};
  const fields = Object.keys(body);
  const response = broke(['DEV-AUTHORIZE-RESPONSE'], { fields });
  for (const [name, value] of Object.entries({ device_code: start.deviceCode, user_code: start.userCode })) {
    t.expect(value.length > 0, `the device authorization response must carry ${name} as a non-empty string`, response);
  }
  t.expect(Number.isInteger(body.expires_in) && start.expiresIn > 0, 'expires_in must be a positive integer', response);
  t.expect(Number.isInteger(body.interval) && start.interval > 0, 'interval must be a positive integer', response);
  const uri = absoluteUrl(start.verificationUri);
  t.expect(uri && /^https?:$/.test(uri.protocol), 'verification_uri must be an absolute http(s) URL', response);
  // Absent, it is the response's failure; what it must carry is then untested.
  t.expect(start.verificationUriComplete, 'the response must carry verification_uri_complete', response);
  const complete = absoluteUrl(start.verificationUriComplete);
  t.expect(
    complete,
    'verification_uri_complete must be an absolute URL',
    broke(['DEV-AUTHORIZE-RESPONSE', 'DEV-VERIFICATION-URI-COMPLETE'], { fields }),
  );
  const stripped = new URL(complete);
  stripped.searchParams.delete('user_code');
  t.expect(
    complete.searchParams.get('user_code') === start.userCode,
    'verification_uri_complete must carry user_code as a query parameter',
    broke(['DEV-VERIFICATION-URI-COMPLETE']),
  );
  t.expect(
    `${stripped.origin}${stripped.pathname}` === `${uri.origin}${uri.pathname}`,
    'verification_uri_complete must be verification_uri plus user_code',
    broke(['DEV-VERIFICATION-URI-COMPLETE'], {
      verificationUri: `${uri.origin}${uri.pathname}`,
      complete: `${stripped.origin}${stripped.pathname}`,
    }),
  );
}

/** The device code lives limits.deviceCodeLifetime seconds; the interval is limits.deviceInterval (each judged alone). */
export function expectDeviceTimings(t: CheckContext, start: DeviceStart & { response: HttpResponse }) {
  const { deviceCodeLifetime, deviceInterval } = limits();
  t.soft(
    start.expiresIn === deviceCodeLifetime,
    `expires_in must be ${deviceCodeLifetime}`,
    broke(['DEV-CODE-LIFETIME'], { expiresIn: start.expiresIn }),
  );
  // An absent interval reads as 5 (deviceStartOf); the missing field is not this rule's failure.
  const absent = jsonObject(start.response)?.interval === undefined;
  t.soft(
    start.interval === deviceInterval,
    `interval must be ${deviceInterval}`,
    broke(['DEV-POLL-INTERVAL'], { interval: absent ? 'absent' : start.interval }),
  );
}

/**
 * One poll of the token endpoint with the device grant (t.oauth tracks a token that comes back):
 * its client_id a parameter of the source's table, beside HTTP Basic too.
 */
export function poll(t: CheckContext, deviceCode: string, app: AppRole = deviceApp(t)): Promise<HttpResponse> {
  const client_id = t.oauth.app(app).clientId;
  return t.oauth.tokenRequest({ grant_type: DEVICE_GRANT, device_code: deviceCode, client_id }, { app });
}

/**
 * The longest grown interval a paced poll waits in real time where the target's clock cannot be
 * moved and --slow was not given. The wait a provider's slow_down asks for is short (an interval of
 * 5 s plus the 5 s increment: 10 s), and skipping it left every check whose poll the provider paced
 * unjudged: a provider answering slow_down to every poll exited 0. Longer waits still need --slow.
 */
export const SHORT_PACED_WAIT_S = 15;

/**
 * A poll whose answer a check judges, paced as a client paces it: a `slow_down` says the poll came
 * sooner than the provider likes (RFC 8628 §3.5 lets it say so to any poll, the first one too, as
 * Keycloak's does within the interval of the code's issue), not how the code stands, so the client
 * grows its interval by the increment (kept in `start`, for this and later polls), waits it and
 * polls again. A slow_down to that poll is no pacing the client ignored: it fails `owner`, the
 * rules of the answer the code's state asks for (authorization_pending, the token, access_denied),
 * and any other answer is the check's to judge. The wait is letPass's, a short one allowed in real
 * time without --slow (SHORT_PACED_WAIT_S); one it cannot make skips the check: the answer it needed
 * was not given.
 */
export async function pollPaced(
  t: CheckContext,
  start: Pick<DeviceStart, 'deviceCode' | 'interval'>,
  what: string,
  owner: RuleId[],
  app: AppRole = deviceApp(t),
): Promise<HttpResponse> {
  const answer = await poll(t, start.deviceCode, app);
  const body = jsonObject(answer);
  if (body?.error !== 'slow_down') return answer;
  // A missing or unreadable interval (the response's own failure) is RFC 8628 §3.2's 5 s.
  const interval = Number.isInteger(start.interval) && start.interval > 0 ? start.interval : RFC8628_DEFAULT_INTERVAL;
  // The client grows it by the increment (RFC 8628 §3.5); a longer one the slow_down itself names
  // (GitHub's does) is the provider saying how long: honoured, not blamed here (a growth other than
  // the increment is DEV-SLOW-DOWN-INTERVAL-GROWS's, a should, judged by its own check).
  const named = Number.isInteger(body.interval) && (body.interval as number) > 0 ? (body.interval as number) : 0;
  start.interval = Math.max(interval + limits().slowDownIncrement, named);
  await letPass(
    t,
    start.interval,
    `the provider answered slow_down to the ${what}; polling again after the grown interval (${start.interval} s)`,
    true,
  );
  const again = await poll(t, start.deviceCode, app);
  // No state's answer, though no poll came too soon: the sentence broken is that of the row the code was in.
  if (jsonObject(again)?.error === 'slow_down')
    t.fail(
      `${what}: slow_down again after the grown interval (${start.interval} s) was waited out`,
      broke(owner, { status: again.status, error: 'slow_down', interval: start.interval }),
    );
  return again;
}

/**
 * The longest delay a Node timer keeps (2^31 - 1 ms, about 24.8 days). A longer one fires at once:
 * a target answering `expires_in: 1e10` made the wait for its code's expiry no wait at all, and
 * the poll that followed blamed DEV-EXPIRED-TOKEN. Held this long instead, the check meets its
 * time limit, which judges no rule.
 */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export { clockMoves };

/** Where the target offers a clock this run's driver cannot move (the form and manual drivers), that said; else nothing. */
const driverCannot = (t: CheckContext) =>
  t.caps.clock && !clockMoves(t) ? ` (${driverCannotMoveClock(t.driver.kind)})` : '';

/**
 * The one way time passes for the device checks, `what` naming the wait: on the target's clock when
 * this run can move it, else in real time with --slow (or, for a `short` wait, up to
 * SHORT_PACED_WAIT_S without it), told to the check's time limit. Else, or when the real wait would
 * end past --deadline, it is not begun: the check is skipped at once, saying which.
 */
async function letPass(t: CheckContext, seconds: number, what: string, short = false): Promise<void> {
  if (clockMoves(t)) return t.driver.advanceClock(seconds);
  if (!t.slow && !(short && seconds <= SHORT_PACED_WAIT_S))
    t.skip(`${what} needs clock control or --slow${driverCannot(t)}`);
  if (seconds * 1000 > (t.deadlineLeftMs?.() ?? Infinity)) t.skip(`${what} would end past the run's --deadline`);
  await realWait(t, seconds);
}

/** `seconds` of real time, told to the check's time limit first. */
async function realWait(t: CheckContext, seconds: number): Promise<void> {
  const ms = Math.min(seconds * 1000, LONGEST_TIMER_MS);
  // The check's time limit is for the target's answers, not for the waits the target asked for.
  t.waitingFor?.(ms);
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Let `seconds` pass on the target (letPass); a check that needs it says so first (needTime). */
export async function wait(t: CheckContext, seconds: number): Promise<void> {
  if (seconds > 0) await letPass(t, seconds, `waiting ${seconds} s`);
}

/**
 * Skip unless time can pass in this run: the target's clock moved by the driver in use, or real
 * waiting allowed by --slow. Said before the check asks anything, so no check waits and then skips.
 */
export function needTime(t: CheckContext): void {
  if (!clockMoves(t) && !t.slow)
    t.skip(`needs clock control (the simulator) or --slow to wait in real time${driverCannot(t)}`);
}
