/**
 * Release-dependent behaviour follows the window (since/until) of the rule that states it in
 * spec/rules.yaml, so the release numbers live in one place only.
 */
import { rule, type RuleId } from '../spec/index.js';
import type { Sim } from './types.js';

/** Is the behaviour the rule states in force on the simulated release? */
export function ruleInForce(sim: Sim, id: RuleId): boolean {
  return sim.inForce(rule(id));
}
