/**
 * The device flow followed on the traffic (RFC 8628 and spec/machines/device-authorization.yaml):
 * the device authorization response held to its members and timings, and each poll against what
 * the flow's earlier exchanges established: a poll sooner than the interval answered pending
 * instead of slow_down, a code polled after its expires_in answered pending instead of
 * expired_token. The client's own pace is noted on its side.
 *
 * Time is the target's: the proxy's clock, moved by what the simulator's control API was asked to
 * move its own (the suites move it instead of waiting), so a moved clock is not read as a fast poll.
 */
import { limits, type RuleId } from '../../spec/index.js';
import type { CheckContext, HttpResponse } from '../types.js';
import { AUTHORIZE_DEVICE_PATH, DEVICE_GRANT, expectJsonBody, jsonObject } from '../shared/oauth.js';
import { deviceStartOf, expectDeviceAuthorizationFields, expectDeviceTimings } from '../device/flow.js';
import { CONTROL_PREFIX } from '../drivers/simulator.js';
import { digest, type Flows, type Observed } from './flows.js';
import type { ClientSink } from './client.js';

import { judgeWith, type Verdict } from './recorder.js';

/**
 * Clock readings differ by the time a request takes to reach the target: a poll is judged fast
 * only this much inside the interval, and late only this much past expires_in.
 */
const SLACK_MS = 500;
const EXPIRY_SLACK_MS = 1000;

/** The target's time when the request arrived. */
export const targetTime = (ex: Observed, flows: Flows): number => (ex.startedAt ?? ex.at) + flows.clockOffsetMs;

/** A move of the simulator's clock, seen through its control API, moves the target's time. */
export function noteClockMove(ex: Observed, path: string, flows: Flows): void {
  if (ex.method !== 'POST' || path !== `${CONTROL_PREFIX}/clock` || ex.status !== 200 || !ex.requestBody) return;
  const seconds = jsonObject({ text: ex.requestBody.toString('utf8') } as HttpResponse)?.advanceSeconds;
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0) flows.clockOffsetMs += seconds * 1000;
}

/** A device authorization answered 200: its members and timings judged, the flow remembered. */
export function judgeDeviceStart(ex: Observed, res: HttpResponse, params: URLSearchParams, flows: Flows): Verdict[] {
  if (res.status !== 200) return [];
  const body = jsonObject(res);
  // No JSON at all (form-encoded, as GitHub answers a client that did not ask for JSON): judged as the run judges it.
  if (!body)
    return judgeWith((t) =>
      expectJsonBody(t, res, `POST ${AUTHORIZE_DEVICE_PATH}`, ['DEV-AUTHORIZE-RESPONSE', 'ENC-RESPONSE-JSON']),
    );
  const start = deviceStartOf(res, body, params.get('scope') ?? '');
  if (start.deviceCode) {
    const interval = Number.isInteger(start.interval) && start.interval > 0 ? start.interval : limits().deviceInterval;
    flows.devices.set(digest(start.deviceCode), ex.at, {
      issuedAt: targetTime(ex, flows),
      expiresIn: start.expiresIn,
      interval,
      grown: interval,
      scope: start.scope,
    });
  }
  return [
    ...judgeWith((t) => expectDeviceAuthorizationFields(t, start)),
    ...judgeWith((t) => expectDeviceTimings(t, start)),
  ];
}

/** A device-grant poll against its flow: expiry first, then pace, as the state table orders them. */
export function judgeDevicePoll(
  t: CheckContext,
  ex: Observed,
  res: HttpResponse,
  params: URLSearchParams,
  flows: Flows,
  client?: ClientSink,
): void {
  const code = params.get('device_code');
  if (params.get('grant_type') !== DEVICE_GRANT || !code || res.status >= 500) return;
  const flow = flows.devices.get(digest(code), ex.at);
  if (!flow) return;
  const now = targetTime(ex, flows);
  const error = res.status === 200 ? 'tokens' : jsonObject(res)?.error;
  const answer = typeof error === 'string' ? error : undefined;
  // Only a pending code is paced or expires: an approved one answers tokens whatever the clock says.
  const pending = answer === 'authorization_pending' || answer === 'slow_down';
  const elapsed = now - flow.issuedAt;
  const gap = flow.lastPoll === undefined ? Infinity : now - flow.lastPoll;
  const where = `POST ${ex.target.split('?')[0]}`;
  if (Number.isInteger(flow.expiresIn) && elapsed >= flow.expiresIn * 1000 + EXPIRY_SLACK_MS) {
    if (pending || answer === 'expired_token')
      t.soft(
        answer === 'expired_token',
        `${where}: a device code polled ${Math.floor(elapsed / 1000)} s after it was issued (expires_in ${flow.expiresIn}) was answered ${answer}, not expired_token`,
        { rules: ['DEV-EXPIRED-TOKEN'] },
      );
  } else if (pending) {
    const rule: RuleId | undefined =
      gap < flow.interval * 1000 - SLACK_MS
        ? 'DEV-SLOW-DOWN'
        : gap < flow.grown * 1000 - SLACK_MS
          ? 'DEV-SLOW-DOWN-INTERVAL-GROWS'
          : undefined;
    if (rule)
      t.soft(
        answer === 'slow_down',
        `${where}: a poll ${(gap / 1000).toFixed(1)} s after the previous one (interval ${rule === 'DEV-SLOW-DOWN' ? flow.interval : flow.grown} s) was answered ${answer}, not slow_down`,
        { rules: [rule] },
      );
  }
  if (client && flow.lastAnswer !== 'tokens') {
    if (flow.lastAnswer === 'slow_down' && gap < flow.grown * 1000 - SLACK_MS)
      client({ habit: 'ignores-slow-down', where });
    else if (gap < flow.interval * 1000 - SLACK_MS) client({ habit: 'polls-too-fast', where });
  }
  flow.lastPoll = now;
  flow.lastAnswer = answer;
  if (answer === 'slow_down') flow.grown += limits().slowDownIncrement;
}
