/**
 * Release-dependent behaviour follows the window (since/until) of the rule that states it in
 * spec/rules.yaml, so the release numbers live in one place only.
 */
import * as spec from '../../spec/index.js';
import type { Sim } from '../types.js';

interface RuleWindow {
  id: string;
  since?: string;
  until?: string;
}

function ruleWindow(id: string): RuleWindow {
  const all = (spec as unknown as { rules?: () => RuleWindow[] }).rules?.();
  if (!all) throw new Error('spec/index.ts exports no rules() accessor');
  const rule = all.find((r) => r.id === id);
  if (!rule) throw new Error(`rule ${id} is not in spec/rules.yaml`);
  return rule;
}

/** Is the behaviour the rule states in force on the simulated release? */
export function ruleInForce(sim: Sim, id: string): boolean {
  return sim.inForce(ruleWindow(id));
}
