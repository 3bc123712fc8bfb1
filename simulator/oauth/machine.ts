/**
 * The generic executor of spec/machines tables. A module binds each condition and effect the
 * table names to a function of its own context; fire() takes the first row of (state, trigger)
 * whose condition holds, runs its effects in order and returns the row. Nothing here knows a
 * particular table: a change of the YAML changes the behaviour.
 */
import { machine, step, type Machine, type MachineRow } from '../../spec/index.js';
import { OAuthError } from './errors.js';

export interface Binding<C> {
  conditions: Record<string, (c: C) => boolean>;
  effects: Record<string, (c: C) => void | Promise<void>>;
}

export interface Runner<C> {
  readonly table: Machine;
  fire(state: string, trigger: string, c: C): Promise<MachineRow>;
  /** The OAuth error a row's result names, described by the condition that chose it. */
  error(row: MachineRow): OAuthError;
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

export function runner<C>(name: string, binding: Binding<C>): Runner<C> {
  let checked: Machine | undefined;
  const table = (): Machine => {
    if (!checked) {
      checked = machine(name);
      checkBinding(checked, binding);
    }
    return checked;
  };
  return {
    get table() {
      return table();
    },
    async fire(state, trigger, c) {
      const m = table();
      const row = step(m, state, trigger, (condition) => binding.conditions[condition](c));
      if (!row) throw new Error(`machine ${m.name}: no row for state ${state} and trigger ${trigger}`);
      for (const effect of row.effects) await binding.effects[effect](c);
      return row;
    },
    error(row) {
      const m = table();
      const why =
        row.condition === 'otherwise' ? m.states[row.state]?.description : m.conditions[row.condition]?.description;
      return new OAuthError(
        row.result.error ?? 'invalid_request',
        why ?? row.result.error ?? 'refused',
        row.result.status,
      );
    },
  };
}
