export { createSimulator, resolveOptions } from './core.js';
export { serve, toNodeListener } from './adapters/node.js';
export type { Sim, SimulatorOptions, ResolvedOptions, InstanceSettings, Ctx, Handler, Middleware } from './types.js';
