/**
 * Model-based test of the device code states. The model is spec/machines/device-authorization.yaml
 * itself: each command fires a trigger of the table, the model evaluates the table's named
 * conditions on its own clock, step() picks the row, and the real response must be that row's.
 * Poll pacing and time passing move the target's clock by the interval the provider last asked for
 * (grown after slow_down), so the model and the provider agree on "now".
 */
import fc from 'fast-check';
import { limits, machine, step, type Machine, type MachineRow, type RuleId } from '../../spec/index.js';
import type { CheckContext } from '../types.js';
import { broke, expectOAuthError, jsonObject } from '../shared/oauth.js';
import { expectTokenFields } from '../grants/token-fields.js';
import { NoWayToRefuse } from '../drivers/device-outcome.js';
import { noAnswer } from '../runner/errors.js';
import { poll, startDevice, wait, type DeviceStart } from './flow.js';

export const DEVICE_MACHINE = 'device-authorization';

export interface DeviceModel {
  state: string;
  /** Seconds since the device code was issued, as the model counts them. */
  now: number;
  lastPoll: number | null;
  /** When the last poll went out, in any state (the table records pending ones only); 0: the code's issue. */
  askedAt: number;
  interval: number;
  lifetime: number;
  /** Rules of the user's decisions since the last poll: that poll's answer shows whether they took. */
  decided: RuleId[];
  /** The verification page offers no way to refuse (device-outcome.ts): no denial is drawn any more. */
  refuseless: boolean;
}

/** Runs whose device page was found to offer no way to refuse: said by device.verification-page alone. */
const refuseless = new WeakSet<object>();

interface Real {
  t: CheckContext;
  start: DeviceStart;
}

/** The model's reading of each condition the table names; an unknown name is a spec change the model must learn. */
function conditions(model: DeviceModel): (name: string) => boolean {
  const known: Record<string, () => boolean> = {
    code_expired: () => model.now >= model.lifetime,
    too_fast: () => model.lastPoll !== null && model.now - model.lastPoll < model.interval,
  };
  return (name) => {
    const c = known[name];
    if (!c) throw new Error(`the device model does not know the condition ${name} of ${DEVICE_MACHINE}`);
    return c();
  };
}

/** The model side of each effect the table names. */
function applyEffects(model: DeviceModel, row: MachineRow): void {
  const effects: Record<string, () => void> = {
    grow_interval: () => {
      model.interval += limits().slowDownIncrement;
    },
    record_poll: () => {
      model.lastPoll = model.now;
    },
    issue_tokens: () => {},
    bind_user: () => {},
  };
  for (const e of row.effects) {
    const effect = effects[e];
    if (!effect) throw new Error(`the device model does not know the effect ${e} of ${DEVICE_MACHINE}`);
    effect();
  }
  model.state = row.next;
}

function predict(m: Machine, model: DeviceModel, trigger: string): MachineRow {
  const row = step(m, model.state, trigger, conditions(model));
  if (!row) throw new Error(`${DEVICE_MACHINE} has no row for state ${model.state} and trigger ${trigger}`);
  return row;
}

function describe(row: MachineRow): string {
  return `${row.state} --${row.trigger}${row.condition === 'otherwise' ? '' : ` [${row.condition}]`}--> ${row.next}`;
}

/**
 * Let `seconds` pass on both sides, stepping over the very second the lifetime ends: whether a code
 * still lives at second 300 of a 300 s lifetime nobody says (RFC 8628 §3.2), so the model never asks.
 */
async function pass(t: CheckContext, model: DeviceModel, seconds: number): Promise<void> {
  const step = model.now + seconds === model.lifetime ? seconds + 1 : seconds;
  await wait(t, step);
  model.now += step;
}

/** Poll the token endpoint, after waiting the current interval (paced) or at once (too fast). */
class PollCommand implements fc.AsyncCommand<DeviceModel, Real> {
  constructor(
    private readonly m: Machine,
    private readonly paced: boolean,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: DeviceModel, real: Real): Promise<void> {
    if (this.paced) await pass(real.t, model, model.interval);
    await this.pollJudged(model, real);
  }
  private async pollJudged(model: DeviceModel, real: Real): Promise<void> {
    const t: CheckContext = real.t;
    const start = real.start;
    const row = predict(this.m, model, 'poll');
    const res = await poll(t, start.deviceCode);
    const body = jsonObject(res);
    // A slow_down to a poll sooner than the interval after the previous one (in any state), or after
    // the code's issue for the first (Keycloak counts from there), is RFC 8628 §3.5's whatever the state: the
    // client grows its interval, waits it and polls again (as pollPaced), and that poll tells the state
    // (before, a Keycloak-like provider's fixed sequences met only such slow_downs and judged nothing).
    const tooSoon = model.now - model.askedAt < model.interval;
    model.askedAt = model.now;
    if (body?.error === 'slow_down' && row.result.error !== 'slow_down' && tooSoon) {
      model.interval += limits().slowDownIncrement;
      model.lastPoll = model.now;
      // The whole grown interval since this poll: the next is not too soon, so this ends there.
      await pass(t, model, model.interval);
      return this.pollJudged(model, real);
    }
    // A slow_down once the model's grown interval had passed means the provider grew it otherwise.
    const grewOtherwise =
      body?.error === 'slow_down' && row.result.error === 'authorization_pending' && model.interval !== start.interval;
    const rules: RuleId[] = grewOtherwise ? [...row.rules, 'DEV-SLOW-DOWN-INTERVAL-GROWS'] : row.rules;
    // What an answer as predicted proves besides its row: the decisions before it took (or were
    // refused), a token came of the device's parameters, and a poll paced at a grown interval was
    // not asked to slow down further. A wrong answer blames only the row's rules.
    const shown: RuleId[] = [
      ...model.decided,
      ...(row.result.error ? [] : (['DEV-TOKEN-PARAMS'] as const)),
      ...(row.result.error === 'authorization_pending' && model.interval !== start.interval
        ? (['DEV-SLOW-DOWN-INTERVAL-GROWS'] as const)
        : []),
    ];
    const details = (held: boolean) => ({
      row: describe(row),
      rules: held ? [...new Set([...rules, ...shown])] : rules,
      expected: row.result,
      status: res.status,
      error: body?.error ?? null,
      model: { ...model },
    });
    if (row.result.error) {
      // Another code (or a token) is another row: the model cannot go on. The right code in another
      // 4xx or a malformed body is the row's refusal, delivered otherwise: those rules' own (expectOAuthError).
      const refused =
        (body?.error === undefined || body.error === row.result.error) && typeof body?.access_token !== 'string';
      t.expect(refused, `poll in state ${model.state}: expected error ${row.result.error}`, details(refused));
      expectOAuthError(
        t,
        res,
        { status: row.result.status, error: row.result.error, rules },
        `poll in state ${model.state} (${describe(row)})`,
      );
    } else {
      const status = res.status === row.result.status;
      t.expect(
        status,
        `poll in state ${model.state}: expected status ${row.result.status}, got ${res.status}`,
        details(status),
      );
      const token = typeof body?.access_token === 'string';
      t.expect(token, `poll in state ${model.state}: expected the device token response`, details(token));
      expectTokenFields(t, body as never, 'device_code', 'device token response');
    }
    model.decided = [];
    applyEffects(model, row);
  }
  toString(): string {
    return this.paced ? 'poll' : 'poll too fast';
  }
}

/** The user approves or denies on the verification page (through the driver). */
class DecideCommand implements fc.AsyncCommand<DeviceModel, Real> {
  constructor(
    private readonly m: Machine,
    private readonly trigger: 'approve' | 'deny',
  ) {}
  check(model: Readonly<DeviceModel>): boolean {
    return this.trigger === 'approve' || !model.refuseless;
  }
  async run(model: DeviceModel, { t, start }: Real): Promise<void> {
    const row = predict(this.m, model, this.trigger);
    const act = (
      this.trigger === 'approve'
        ? t.driver.approveDevice(start.userCode, start.verificationUri)
        : t.driver.denyDevice(start.userCode, start.verificationUri)
    ).catch((error: unknown) => {
      // A denial no driver can make: the run remembers it, and this sequence (the page may have
      // connected the device on the sign-in) is dropped, not judged.
      if (!(error instanceof NoWayToRefuse)) throw error;
      refuseless.add(t.http);
      model.refuseless = true;
      fc.pre(false);
    });
    // A refused decision (used or expired code) may surface as a driver error; the next polls judge it.
    if (row.result.status < 400) await act;
    else
      await act.catch((error: unknown) => {
        if (fc.PreconditionFailure.isFailure(error)) throw error;
        noAnswer(error);
      });
    model.decided.push(...row.rules);
    applyEffects(model, row);
  }
  toString(): string {
    return `user ${this.trigger === 'approve' ? 'approves' : 'denies'}`;
  }
}

/** Time passes: a whole number of the current interval, up to past the code lifetime. */
class TimePassesCommand implements fc.AsyncCommand<DeviceModel, Real> {
  constructor(private readonly intervals: number) {}
  check(): boolean {
    return true;
  }
  async run(model: DeviceModel, { t }: Real): Promise<void> {
    await pass(t, model, this.intervals * model.interval);
  }
  toString(): string {
    return `time passes ${this.intervals} interval(s)`;
  }
}

/** How many polling intervals a device code lives. */
function lifetimeIntervals(): number {
  const { deviceCodeLifetime, deviceInterval } = limits();
  return Math.ceil(deviceCodeLifetime / deviceInterval);
}

/** The command arbitrary for one device code; `slow` keeps real-time waits short. */
export function deviceCommands(slow: boolean) {
  const m = machine(DEVICE_MACHINE);
  // Short waits explore pacing; long ones land just before or just after the expiry.
  const lifetime = lifetimeIntervals();
  const intervals = slow
    ? fc.constant(1)
    : fc.oneof(
        { arbitrary: fc.integer({ min: 1, max: 3 }), weight: 1 },
        { arbitrary: fc.integer({ min: Math.max(1, lifetime - 2), max: lifetime + 1 }), weight: 1 },
      );
  return fc.commands(
    [
      fc.constant(new PollCommand(m, true)),
      fc.constant(new PollCommand(m, false)),
      fc.constant(new DecideCommand(m, 'approve')),
      fc.constant(new DecideCommand(m, 'deny')),
      intervals.map((n) => new TimePassesCommand(n)),
    ],
    { maxCommands: slow ? 4 : 10, size: 'max' },
  );
}

/**
 * The sequences a short property run may not draw, run every time: a decision made twice, then a
 * poll for the token and one after it (no waiting); and, where the clock moves, the lifetime
 * passing, then a poll, an approval and a poll meeting the expired code.
 */
export function fixedSequences(clock: boolean): fc.AsyncCommand<DeviceModel, Real>[][] {
  const m = machine(DEVICE_MACHINE);
  const poll = () => new PollCommand(m, false);
  const approve = () => new DecideCommand(m, 'approve');
  const twice = [approve(), new DecideCommand(m, 'deny'), poll(), approve(), poll()];
  const expiry = [new TimePassesCommand(lifetimeIntervals() + 1), poll(), approve(), poll()];
  return clock ? [twice, expiry] : [twice];
}

/** Rule ids the table's rows prove (the model check names them all). */
export function machineRules(): RuleId[] {
  return [...new Set(machine(DEVICE_MACHINE).rows.flatMap((r) => r.rules))];
}

/** One property run: a fresh device code, then the commands against model and provider side by side. */
export async function runModel(t: CheckContext, commands: Iterable<fc.AsyncCommand<DeviceModel, Real>>): Promise<void> {
  const start = await startDevice(t);
  t.expect(
    Number.isInteger(start.interval) && Number.isInteger(start.expiresIn) && start.deviceCode && start.userCode,
    'the device authorization response lacks device_code, user_code, interval or expires_in',
    broke(['DEV-AUTHORIZE-RESPONSE'], { interval: start.interval, expiresIn: start.expiresIn }),
  );
  const model: DeviceModel = {
    state: machine(DEVICE_MACHINE).initial,
    now: 0,
    lastPoll: null,
    askedAt: 0,
    interval: start.interval,
    lifetime: start.expiresIn,
    decided: [],
    refuseless: refuseless.has(t.http),
  };
  await fc.asyncModelRun(() => ({ model, real: { t, start } }), commands);
}
