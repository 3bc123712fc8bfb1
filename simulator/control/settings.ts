/**
 * Instance settings changed at run time through the control API (`/-/simulator/settings`), as an
 * administrator would. The known names and their types come from spec/profiles.yaml: a setting's
 * type is its default's (boolean or integer); a null default (rateLimit, "off") takes null or a
 * window `{requests, periodSeconds}`. A change is validated whole before any of it applies, and
 * sim.reset() restores the start values.
 */
import { profiles } from '../../spec/index.js';
import type { InstanceSettings, Sim } from '../types.js';
import { ControlError } from '../errors.js';
import { bool } from './body.js';

const isCount = (v: unknown, min: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min;

function integer(name: string, value: unknown, min: number): number {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (!isCount(n, min)) throw new ControlError(`setting ${name} must be an integer of at least ${min}`);
  return n;
}

function windowOrNull(name: string, value: unknown): InstanceSettings['rateLimit'] {
  if (value === null) return null;
  const w = value as { requests?: unknown; periodSeconds?: unknown };
  if (typeof w !== 'object' || !isCount(w.requests, 1) || !isCount(w.periodSeconds, 1) || Object.keys(w).length !== 2) {
    throw new ControlError(`setting ${name} must be null (off) or {requests, periodSeconds} with positive integers`);
  }
  return { requests: w.requests, periodSeconds: w.periodSeconds };
}

/** One setting's new value, typed by its default in spec/profiles.yaml. */
function settingValue(name: string, value: unknown, fallback: unknown): unknown {
  if (typeof fallback === 'boolean') {
    if (value === null) throw new ControlError(`setting ${name} must be true or false`);
    return bool({ [name]: value }, name);
  }
  if (typeof fallback === 'number') return integer(name, value, 0);
  return windowOrNull(name, value);
}

/** The validated changes of a request body; unknown names and wrong types throw ControlError. */
export function settingChanges(body: Record<string, unknown>): Partial<InstanceSettings> {
  const known = profiles().settings;
  const unknown = Object.keys(body).filter((name) => !Object.hasOwn(known, name));
  if (unknown.length)
    throw new ControlError(`unknown setting ${unknown.join(', ')} (known: ${Object.keys(known).join(', ')})`);
  const changes: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) changes[name] = settingValue(name, value, known[name].default);
  return changes;
}

export function applySettings(sim: Sim, changes: Partial<InstanceSettings>): InstanceSettings {
  Object.assign(sim.options.settings, changes);
  sim.state('control.settingsGeneration', () => ({ n: 0 })).n++;
  return currentSettings(sim);
}

/** Bumped by every change of the settings (reset() starts it again), so what was built from them can tell it is stale. */
export function settingsGeneration(sim: Sim): number {
  return sim.state('control.settingsGeneration', () => ({ n: 0 })).n;
}

/** A copy of every setting in effect, by name. */
export function currentSettings(sim: Sim): InstanceSettings {
  return structuredClone(sim.options.settings);
}
