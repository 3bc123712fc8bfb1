/**
 * The generic executor of spec/machines tables. A module binds each condition and effect the
 * table names to a function of its own context; fire() takes the first row of (state, trigger)
 * whose condition holds, runs its effects in order and returns the row. Nothing here knows a
 * particular table: a change of the YAML changes the behaviour. advance() is the one way a
 * module moves a subject through its table, so every machine answers client errors, faults and
 * row errors in the same order.
 */
import { machine, step, type FaultName, type Machine, type MachineRow } from '../../spec/index.js';
import type { Sim } from '../types.js';
import { OAuthError } from './errors.js';

/** What every context carries: the instance (for faults), and a failed client authentication if any. */
export interface Subject {
  sim: Sim;
  clientError?: OAuthError | null;
}

export interface Move {
  /** the subject's state now */
  from: string;
  trigger: string;
  /** records the row's next state; absent when the state is derived, not stored (revocation) */
  save?: (next: string) => void;
  /** a fault that leaves the subject where it was instead of entering `state` (a reusable code) */
  stay?: { state: string; fault: FaultName };
  /** throw the row's OAuth error (default); false when the caller renders the row (a page) */
  throws?: boolean;
}

export interface Binding<C> {
  conditions: Record<string, (c: C) => boolean>;
  effects: Record<string, (c: C) => void | Promise<void>>;
}

/**
 * The runner answers synchronously when every effect of the row does (all of them today): a
 * promise per step cost a pending poll microtask hops for nothing. An effect that returns a
 * promise makes the rest of the step wait for it, in order.
 */
export interface Runner<C extends Subject> {
  readonly table: Machine;
  fire(state: string, trigger: string, c: C): MachineRow | Promise<MachineRow>;
  /**
   * Fire, answer a failed client authentication as itself (before any state changes), save the
   * next state unless the `stay` fault holds, then throw the row's error.
   */
  advance(c: C, move: Move): MachineRow | Promise<MachineRow>;
  /** The OAuth error a row answers (made once per row), if it names one. */
  errorOf(row: MachineRow): OAuthError | undefined;
}

/** Effects from the `from`th on, in order: synchronously until one returns a promise. */
function runEffects<C>(binding: Binding<C>, row: MachineRow, c: C, from = 0): void | Promise<void> {
  for (let i = from; i < row.effects.length; i++) {
    const pending = binding.effects[row.effects[i]](c);
    if (pending instanceof Promise) return pending.then(() => runEffects(binding, row, c, i + 1));
  }
}

/**
 * A row's error is the same every time (its code, description and status come from the table), so
 * it is made once: a pending poll answers it again and again (an error holds no stack, see HttpError).
 */
const rowErrors = new WeakMap<MachineRow, OAuthError>();

/**
 * The OAuth error a row names, described by the condition (or state) that chose it. The spec's
 * validation guarantees the row's state and condition exist with a description.
 */
function rowError(m: Machine, row: MachineRow, error: string): OAuthError {
  let known = rowErrors.get(row);
  if (!known) {
    const why =
      row.condition === 'otherwise' ? m.states[row.state].description : m.conditions[row.condition].description;
    rowErrors.set(row, (known = new OAuthError(error, why, row.result.status)));
  }
  return known;
}

function checkBinding<C>(m: Machine, binding: Binding<C>): void {
  const missing = [
    ...Object.keys(m.conditions)
      .filter((c) => c !== 'otherwise' && !binding.conditions[c])
      .map((c) => `condition ${c}`),
    ...Object.keys(m.effects)
      .filter((e) => !binding.effects[e])
      .map((e) => `effect ${e}`),
  ];
  if (missing.length) throw new Error(`machine ${m.name}: the simulator implements no ${missing.join(', ')}`);
}

export function runner<C extends Subject>(name: string, binding: Binding<C>): Runner<C> {
  let checked: Machine | undefined;
  const table = (): Machine => {
    // Stryker disable next-line ConditionalExpression: reading the table again gives the same table; the cache saves only the lookup
    if (!checked) {
      checked = machine(name);
      checkBinding(checked, binding);
    }
    return checked;
  };
  const settle = (c: C, { save, stay, throws = true }: Move, row: MachineRow): MachineRow => {
    if (row.condition === 'client_auth_failed' && c.clientError) throw c.clientError;
    if (save && !(stay && row.next === stay.state && c.sim.fault(stay.fault))) save(row.next);
    if (throws && row.result.error) throw rowError(table(), row, row.result.error);
    return row;
  };
  const self: Runner<C> = {
    get table() {
      return table();
    },
    fire(state, trigger, c) {
      const m = table();
      const row = step(m, state, trigger, (condition) => binding.conditions[condition](c));
      if (!row) throw new Error(`machine ${m.name}: no row for state ${state} and trigger ${trigger}`);
      const pending = runEffects(binding, row, c);
      return pending ? pending.then(() => row) : row;
    },
    errorOf(row) {
      return row.result.error ? rowError(table(), row, row.result.error) : undefined;
    },
    advance(c, move) {
      const fired = self.fire(move.from, move.trigger, c);
      return fired instanceof Promise ? fired.then((row) => settle(c, move, row)) : settle(c, move, fired);
    },
  };
  return self;
}
