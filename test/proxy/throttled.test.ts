/**
 * A target that declines to serve now (429, a 403 or 503 naming a wait: rate.ts isRateLimited)
 * gave no answer to judge, as `run` reads it: nothing of the provider's is judged on it (review
 * 23: three throttled refreshes failed TOK-ERROR-BODY and ERR-OAUTH-BODY). A device poll answered
 * slow_down under 429 is still the device grant's answer, judged as in a run. A client that sends
 * the same request again before the Retry-After it was given has a habit of its own
 * (ignores-retry-after), counted per request, told apart per path and credential.
 */
import { describe, expect, it } from 'vitest';
import { createFlows, judgeExchange, type Observed } from '../../suites/proxy/judge.js';
import type { Verdict } from '../../suites/proxy/recorder.js';
import type { ClientNote } from '../../suites/proxy/client.js';
import { DEVICE_GRANT, START, pollForm as poll } from './device-start.js';

const THROTTLED = { 'content-type': 'application/json', 'retry-after': '30' };

function exchange(
  method: string,
  target: string,
  status: number,
  body: unknown,
  at: number,
  headers: Record<string, string>,
  form: Record<string, string> = {},
  requestHeaders: Record<string, string> = {},
): Observed {
  return {
    method,
    target,
    requestHeaders: new Headers({ 'content-type': 'application/x-www-form-urlencoded', ...requestHeaders }),
    requestBody: method === 'POST' ? Buffer.from(new URLSearchParams(form).toString()) : undefined,
    status,
    responseHeaders: new Headers(headers),
    responseBody: Buffer.from(JSON.stringify(body)),
    at,
    startedAt: at,
  };
}

const rulesOf = (verdicts: Verdict[]) => [...new Set(verdicts.map((v) => v.rule))].sort();
const refresh = { grant_type: 'refresh_token', refresh_token: 'r'.repeat(40), client_id: 'app', client_secret: 's' };

describe('a rate-limited answer', () => {
  it('to a token request is no verdict: none judged, whatever its body', () => {
    const flows = createFlows();
    for (const [status, headers] of [
      [429, THROTTLED],
      [429, { 'content-type': 'application/json' }],
      [503, THROTTLED],
      [403, { ...THROTTLED, 'x-ratelimit-remaining': '0' }],
    ] as const) {
      const verdicts = judgeExchange(
        exchange('POST', '/oauth/token', status, { message: '429 Too Many Requests' }, 1_000, headers, refresh),
        flows,
      );
      expect(rulesOf(verdicts), `${status}`).toEqual([]);
    }
    // The same body answered 400 is judged (the test can fail): no OAuth error body.
    const refused = judgeExchange(
      exchange('POST', '/oauth/token', 400, { message: 'no' }, 1_000, { 'content-type': 'application/json' }, refresh),
      createFlows(),
    );
    expect(refused.filter((v) => !v.ok).map((v) => v.rule)).toContain('ERR-OAUTH-BODY');
  });

  it('to the REST API is no verdict either', () => {
    const verdicts = judgeExchange(
      exchange('GET', '/api/v4/user', 429, { message: '429 Too Many Requests' }, 1_000, {
        'content-type': 'application/json; charset=utf-8',
        'retry-after': '30',
      }),
      createFlows(),
    );
    expect(rulesOf(verdicts)).toEqual([]);
  });

  it('a device poll answered slow_down under 429 is judged as the device grant answered it', () => {
    const flows = createFlows();
    const json = { 'content-type': 'application/json', 'cache-control': 'no-store' };
    judgeExchange(exchange('POST', '/oauth/authorize_device', 200, START, 0, json, { client_id: 'app' }), flows);
    judgeExchange(
      exchange(
        'POST',
        '/oauth/token',
        400,
        { error: 'authorization_pending', error_description: 'wait' },
        1_000,
        json,
        poll,
      ),
      flows,
    );
    const verdicts = judgeExchange(
      exchange(
        'POST',
        '/oauth/token',
        429,
        { error: 'slow_down', error_description: 'slower' },
        1_100,
        { ...json, 'retry-after': '5' },
        poll,
      ),
      flows,
    );
    expect(verdicts.filter((v) => v.ok).map((v) => v.rule)).toContain('DEV-SLOW-DOWN');
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });
});

describe('a client that does not wait out Retry-After', () => {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const user = (at: number, status: number, token: string, headers: Record<string, string> = THROTTLED) =>
    exchange('GET', '/api/v4/user', status, { message: 'x' }, at, headers, {}, bearer(token));

  it('is noted for each request sent before the wait it was given, per path and credential', () => {
    const flows = createFlows();
    const notes: ClientNote[] = [];
    const note = (n: ClientNote) => notes.push(n);
    const secret = 'glpat-' + 'x'.repeat(20);
    judgeExchange(user(1_000, 429, secret), flows, note);
    for (let i = 1; i <= 5; i++) judgeExchange(user(1_000 + i * 100, 429, secret), flows, note);
    expect(notes).toEqual(Array(5).fill({ habit: 'ignores-retry-after', where: 'GET /api/v4/user' }));
    // Another credential, another path: their own waits, none given.
    judgeExchange(user(1_700, 200, 'other-token', { 'content-type': 'application/json' }), flows, note);
    judgeExchange(
      exchange('GET', '/api/v4/projects', 200, [], 1_800, { 'content-type': 'application/json' }, {}, bearer(secret)),
      flows,
      note,
    );
    // Waited out (30 s after the last 429, answered at 1.5 s): no habit.
    judgeExchange(user(31_600, 200, secret, { 'content-type': 'application/json' }), flows, note);
    expect(notes).toHaveLength(5);
  });

  it('a device poll answered slow_down under 429 is paced by the device grant, not by Retry-After', () => {
    const flows = createFlows();
    const notes: ClientNote[] = [];
    const poll = { grant_type: DEVICE_GRANT, device_code: 'e'.repeat(40), client_id: 'app' };
    const json = { 'content-type': 'application/json', 'cache-control': 'no-store' };
    const slow = { error: 'slow_down', error_description: 'slower' };
    judgeExchange(
      exchange('POST', '/oauth/token', 429, slow, 1_000, { ...json, 'retry-after': '5' }, poll),
      flows,
      (n) => notes.push(n),
    );
    judgeExchange(
      exchange('POST', '/oauth/token', 429, slow, 2_000, { ...json, 'retry-after': '5' }, poll),
      flows,
      (n) => notes.push(n),
    );
    expect(notes.map((n) => n.habit)).not.toContain('ignores-retry-after');
  });

  it('a device poll sent again inside a Retry-After and the interval is one habit, not two (one cause, one blame)', () => {
    const flows = createFlows();
    const notes: ClientNote[] = [];
    const note = (n: ClientNote) => notes.push(n);
    const json = { 'content-type': 'application/json', 'cache-control': 'no-store' };
    const pending = { error: 'authorization_pending', error_description: 'wait' };
    judgeExchange(exchange('POST', '/oauth/authorize_device', 200, START, 0, json, { client_id: 'app' }), flows, note);
    judgeExchange(exchange('POST', '/oauth/token', 400, pending, 6_000, json, poll), flows, note);
    // A gateway's 429 to the next poll (no slow_down: the grant did not answer it), wait 30 s.
    judgeExchange(exchange('POST', '/oauth/token', 429, { message: 'slow' }, 6_100, THROTTLED, poll), flows, note);
    // 0.9 s later: inside the Retry-After and inside the interval, the same haste.
    judgeExchange(exchange('POST', '/oauth/token', 400, pending, 7_000, json, poll), flows, note);
    expect(notes.map((n) => n.habit)).toEqual(['ignores-retry-after']);
    // Past the Retry-After and the interval: none; inside the interval only: polls-too-fast alone.
    judgeExchange(exchange('POST', '/oauth/token', 400, pending, 40_000, json, poll), flows, note);
    judgeExchange(exchange('POST', '/oauth/token', 400, pending, 41_000, json, poll), flows, note);
    expect(notes.map((n) => n.habit)).toEqual(['ignores-retry-after', 'polls-too-fast']);
  });
});
