/**
 * A device flow as Keycloak plays it: the device authorization response carries no interval (RFC
 * 8628 §3.2: then 5 s), a poll sooner than the interval after the code was issued or after the
 * last poll it let through answers slow_down (the first poll too: RFC 8628 §3.5 lets a server say
 * so whenever the client polls faster than it likes), and after the user code the page asks "Do
 * you want to grant access to …?" with Yes and No, submits named accept and cancel (its
 * login-oauth-grant page). Only the absent interval breaks a rule (DEV-AUTHORIZE-RESPONSE, the
 * source's response carries it); a slow_down is no verdict on the poll it answers, and a deny
 * visit presses No and nothing else. The same provider, paced otherwise (`Pace`): a 1 s interval
 * for the form driver's real-time waits, slow_down to every poll (a wrong answer once the client
 * waited the grown interval), and a device code that gives its tokens twice (for the state model).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { bodyOf, sendAnswer, simulatorAnswerTo, simulatorWith, type Loopback } from '../suites/loopback.js';
import { page } from './sign-in-journey.js';
import { headersOf, hiddenInputs, twoStepDevice } from './two-step-device.js';
import { allChecks } from '../../suites/index.js';
import { checksWith, explain, PAGE_DRIVERS, rulesWith, runAgainst, runWithDriver } from './provider.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * How the provider paces: `interval` the one it advertises (undefined: none, Keycloak's way), a
 * poll sooner than `paceMs` after the code's issue or the last poll let through answers slow_down,
 * and `always` answers slow_down to every poll (no pacing at all: a wrong answer once the client
 * waited). Real waits are dear in a test: the form driver's runs advertise 1 s (a paced wait of 6 s).
 */
interface Pace {
  interval?: number;
  paceMs: number;
  always?: boolean;
  /** A device code's token answer given again to every later poll it lets through (a code used twice). */
  reusable?: boolean;
}
const KEYCLOAK: Pace = { paceMs: 5_000 };
const QUICK: Pace = { interval: 1, paceMs: 1_000 };
let pace: Pace = KEYCLOAK;

let front: Loopback & { sim: Sim };
/** What the grant page saw pressed: accept, cancel. */
const pressed: string[] = [];
/** Per device code, the simulator time before which a poll answers slow_down. */
const nextPoll = new Map<string, number>();
/** Per device code, the token answer it got (for `reusable`). */
const tokens = new Map<string, Record<string, unknown>>();
/** Polls the provider answered slow_down itself. */
let slowDowns = 0;

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });

/** Keycloak's login-oauth-grant page: the client named, Yes and No as submits named accept and cancel. */
const grantPage = (form: URLSearchParams) =>
  page(
    'Grant Access to Conformance device app',
    `<h3>Do you want to grant access to Conformance device app?</h3>
<ul><li><span>User profile</span></li></ul>
<form class="form-actions" action="/oauth/device" method="POST">${hiddenInputs(form)}
<input class="btn btn-primary" name="accept" id="kc-login" type="submit" value="Yes"/>
<input class="btn btn-default" name="cancel" id="kc-cancel" type="submit" value="No"/>
</form>`,
  );

beforeAll(async () => {
  let base = '';
  // The user code and Submit, then the grant page, whose Yes or No decides.
  const pages = twoStepDevice(
    () => front.sim,
    () => base,
    {
      path: '/oauth/device/grant',
      button: '<input class="btn" type="submit" value="Submit"/>',
      page: grantPage,
      decide(form) {
        const name = ['accept', 'cancel'].find((n) => form.has(n));
        if (!name) return undefined;
        pressed.push(name);
        form.delete(name);
        return name === 'accept' ? 'approve' : 'deny';
      },
    },
  );
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const now = () => front.sim.clock.now();
    if (url.pathname === '/oauth/authorize_device' && req.method === 'POST') {
      sendAnswer(
        res,
        simulatorAnswerTo(front.sim, req, url).then(async (answer) => {
          const body = (await answer.json()) as Record<string, unknown>;
          if (typeof body.device_code === 'string') nextPoll.set(body.device_code, now() + pace.paceMs);
          const { interval: _interval, ...rest } = body;
          return json(answer.status, pace.interval === undefined ? rest : { ...rest, interval: pace.interval });
        }),
      );
      return true;
    }
    if (url.pathname === '/oauth/token' && req.method === 'POST') {
      sendAnswer(
        res,
        bodyOf(req).then((raw) => {
          const form = new URLSearchParams(raw.toString('utf8'));
          const code = form.get('device_code') ?? '';
          const next = nextPoll.get(code);
          if (form.get('grant_type') === DEVICE_GRANT && next !== undefined) {
            if (pace.always || now() < next) {
              slowDowns++;
              return json(400, { error: 'slow_down', error_description: 'Slow down' });
            }
            nextPoll.set(code, now() + pace.paceMs);
            const issued = tokens.get(code);
            if (pace.reusable && issued) return json(200, issued);
          }
          return front.sim
            .handle(new Request(url, { method: 'POST', headers: headersOf(req.headers), body: new Uint8Array(raw) }))
            .then(async (answer) => {
              if (!pace.reusable || answer.status !== 200 || form.get('grant_type') !== DEVICE_GRANT) return answer;
              const body = (await answer.json()) as Record<string, unknown>;
              tokens.set(code, body);
              return json(200, body);
            });
        }),
      );
      return true;
    }
    return pages(req, res);
  });
  base = front.url;
}, 60_000);

afterAll(async () => {
  await front?.close();
});

const CHECKS = [
  'device.state-machine',
  'device.authorization-response',
  'device.authorization-timings',
  'device.slow-down',
  'device.token-response',
  'device.single-use',
  'device.verification-page',
];

/** The checks whose judged poll meets a slow_down at once: the first poll of a fresh code, the first after approval. */
const PACED = ['device.slow-down', 'device.token-response'];

/** The rules those polls prove. */
const PACED_RULES = ['DEV-APPROVE', 'DEV-AUTHORIZATION-PENDING', 'DEV-SLOW-DOWN', 'DEV-SUCCESS'];

describe('a Keycloak device flow: no interval, slow_down from the first poll, a Yes/No grant page', () => {
  it.skipIf(!PAGE_DRIVERS.includes('browser'))(
    'browser driver: only the absent interval fails (DEV-AUTHORIZE-RESPONSE); each slow_down waited out on the clock; a deny presses No alone',
    async () => {
      pace = KEYCLOAK;
      pressed.length = 0;
      slowDowns = 0;
      const { report, stderr } = await runWithDriver(front, 'browser', CHECKS);
      const why = explain(report, stderr);
      expect(checksWith(report, 'errored', 'warned'), why).toEqual([]);
      expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['DEV-AUTHORIZE-RESPONSE']);
      expect(checksWith(report, 'failed'), why).toEqual(['device.authorization-response']);
      expect(slowDowns, why).toBeGreaterThan(0);
      // The browser driver moves the simulator's clock: each slow_down waited out, its poll judged.
      expect(checksWith(report, 'skipped'), why).toEqual([]);
      for (const id of [...PACED_RULES, 'DEV-VERIFICATION-PAGE', 'DEV-POLL-INTERVAL'])
        expect(report.rules.find((r) => r.id === id)?.status, `${id}\n${why}`).toBe('passed');
      // The page was answered Yes to approve, No to deny, and nothing else.
      expect([...new Set(pressed)].sort(), why).toEqual(['accept', 'cancel']);
    },
    120_000,
  );

  it('form driver (no clock it can move, no --slow), a 1 s interval: the grown one (6 s) waited in real time, the polls judged and passed', async () => {
    pace = QUICK;
    pressed.length = 0;
    slowDowns = 0;
    const { report, stderr, code } = await runWithDriver(front, 'form', PACED);
    const why = explain(report, stderr);
    expect(checksWith(report, 'passed'), why).toEqual(PACED);
    for (const id of PACED_RULES) expect(report.rules.find((r) => r.id === id)?.status, `${id}\n${why}`).toBe('passed');
    // The first poll of a fresh code came within the pace: slowed, then waited out for real.
    expect(slowDowns, why).toBeGreaterThan(0);
    expect(report.checks.find((c) => c.id === 'device.slow-down')?.durationMs, why).toBeGreaterThanOrEqual(6_000);
    expect(code, why).toBe(0);
    expect(pressed, why).toEqual(['accept']);
  }, 60_000);
});

describe('a provider answering slow_down to every poll, however long the client waited', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: the poll after the grown interval is judged: DEV-AUTHORIZATION-PENDING and DEV-APPROVE fail, the run exits non-zero',
    async (kind) => {
      pace = { ...QUICK, always: true };
      slowDowns = 0;
      const { report, stderr, code } = await runWithDriver(front, kind, PACED);
      const why = explain(report, stderr);
      expect(checksWith(report, 'failed'), why).toEqual(PACED);
      // The rules of the answer the code's state asked for, nothing the slow_down cannot show (DEV-TOKEN-PARAMS).
      expect(rulesWith(report, 'failed', 'warned'), why).toEqual([
        'DEV-APPROVE',
        'DEV-AUTHORIZATION-PENDING',
        'DEV-SUCCESS',
      ]);
      for (const c of report.checks)
        expect(c.message, why).toMatch(/: slow_down again after the grown interval \(6 s\) was waited out \(/);
      // One wait of the grown interval, then the poll judged, and the check ends on it: two polls each.
      const polls = Object.fromEntries(
        report.checks.map((c) => [c.id, c.exchange?.filter((e) => e.request.body?.includes('grant_type=urn')).length]),
      );
      expect(polls, why).toEqual({ 'device.slow-down': 2, 'device.token-response': 2 });
      expect(code, why).not.toBe(0);
    },
    60_000,
  );
});

describe("the state model against a Keycloak-like pace (the simulator's driver)", () => {
  it('a lawful slow_down is waited out and the poll made again: a device code used twice fails DEV-SINGLE-USE', async () => {
    pace = { ...KEYCLOAK, reusable: true };
    const model = allChecks().filter((c) => c.id === 'device.state-machine');
    const { report, stderr } = await runAgainst(front, { runs: '1' }, model);
    const why = explain(report, stderr);
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['DEV-SINGLE-USE']);
  }, 60_000);
});
