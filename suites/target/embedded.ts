/**
 * The simulator in this process: requests go straight to sim.handle, no socket. The target config
 * (applications, user, tokens) is what the simulator's control API says about itself. The
 * simulator is imported only when an embedded target is opened, so a run against an HTTP target
 * loads none of its code.
 */
import type { Sim, SimulatorOptions } from '../../simulator/types.js';
import type { TargetConfig } from '../types.js';
import type { RawRequest, Target } from './types.js';

/** A name no network resolves: the simulator answers for any host it is addressed by. */
export const EMBEDDED_BASE_URL = 'http://simulator.local';

export function toRequest(raw: RawRequest): Request {
  return new Request(raw.url, { method: raw.method, headers: raw.headers, body: raw.body, redirect: 'manual' });
}

export async function createEmbeddedTarget(simOrOptions: Sim | SimulatorOptions = {}): Promise<Target> {
  const sim =
    'handle' in simOrOptions ? simOrOptions : (await import('../../simulator/core.js')).createSimulator(simOrOptions);
  const send = (raw: RawRequest) => sim.handle(toRequest(raw));
  const config = await readSimulatorConfig(send, EMBEDDED_BASE_URL);
  const faults = sim.options.faults.length ? ` with fault ${sim.options.faults.join(', ')}` : '';
  return {
    kind: 'embedded',
    name: `embedded simulator${faults}`,
    baseUrl: EMBEDDED_BASE_URL,
    config: { ...config, baseUrl: EMBEDDED_BASE_URL },
    send,
    close: async () => undefined,
  };
}

/** GET /-/simulator/config; a bare config when the control API does not answer. */
export async function readSimulatorConfig(
  send: (raw: RawRequest) => Promise<Response>,
  baseUrl: string,
): Promise<TargetConfig> {
  const response = await send({
    method: 'GET',
    url: `${baseUrl}/-/simulator/config`,
    headers: new Headers({ accept: 'application/json' }),
  });
  if (response.status !== 200) return { baseUrl };
  try {
    // What the target says of itself is data: it never widens where the harness sends credentials.
    const { trustedOrigins: _ignored, ...config } = (await response.json()) as TargetConfig;
    return { ...config, baseUrl };
  } catch {
    return { baseUrl };
  }
}
