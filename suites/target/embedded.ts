/**
 * The simulator in this process: requests go straight to sim.handle, no socket. The target config
 * (applications, user, tokens) is what the simulator's control API says about itself. The
 * simulator is imported only when an embedded target is opened, so a run against an HTTP target
 * loads none of its code.
 */
import type { Answer } from '../../simulator/http.js';
import type { Sim, SimRequest, SimulatorOptions } from '../../simulator/types.js';
import type { TargetConfig } from '../types.js';
import { validateTargetConfig } from './config.js';
import { ConfigError } from '../errors.js';
import type { RawRequest, Target, TargetResponse } from './types.js';

/** A name no network resolves: the simulator answers for any host it is addressed by. */
export const EMBEDDED_BASE_URL = 'http://simulator.local';

export function toRequest(raw: RawRequest): Request {
  return new Request(raw.url, { method: raw.method, headers: raw.headers, body: raw.body, redirect: 'manual' });
}

const UTF8 = new TextDecoder();
const encoder = new TextEncoder();

/**
 * The harness's request as the simulator reads it, with no Fetch Request in between: building
 * one (its AbortSignal, its body stream) and then a Response to read back through a stream was
 * about a sixth of a whole run in process. Fetch still parses the rare multipart body.
 */
function simRequest(raw: RawRequest): SimRequest {
  const body = raw.method === 'GET' || raw.method === 'HEAD' ? '' : (raw.body ?? '');
  return {
    method: raw.method,
    url: raw.url,
    headers: raw.headers,
    text: () => Promise.resolve(body),
    arrayBuffer: () => Promise.resolve(encoder.encode(body).buffer),
    formData: () => toRequest(raw).formData(),
  };
}

/** The simulator's answer as the harness reads it: what sim.handle's Response would have said. */
function targetResponse(answer: Answer, head: boolean): TargetResponse {
  if (answer instanceof Response) return head ? new Response(null, answer) : answer;
  // Fetch's Headers, as an HTTP target's answer has.
  const headers = answer.headers.toHeaders();
  const { body, status } = answer;
  // TextDecoder drops a leading byte order mark, as Fetch's text() does; the simulator writes none in a string.
  const read = Promise.resolve(head || body === null ? '' : typeof body === 'string' ? body : UTF8.decode(body));
  return { status, headers, text: () => read };
}

export async function createEmbeddedTarget(simOrOptions: Sim | SimulatorOptions = {}): Promise<Target> {
  const sim =
    'handle' in simOrOptions ? simOrOptions : (await import('../../simulator/core.js')).createSimulator(simOrOptions);
  const send = async (raw: RawRequest) => targetResponse(await sim.reply(simRequest(raw)), raw.method === 'HEAD');
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
  send: (raw: RawRequest) => Promise<TargetResponse>,
  baseUrl: string,
): Promise<TargetConfig> {
  const response = await send({
    method: 'GET',
    url: `${baseUrl}/-/simulator/config`,
    headers: new Headers({ accept: 'application/json' }),
  });
  if (response.status !== 200) return { baseUrl };
  let said: unknown;
  try {
    said = JSON.parse(await response.text());
  } catch {
    return { baseUrl };
  }
  if (said === null || typeof said !== 'object' || Array.isArray(said)) return { baseUrl };
  // What the target says of itself is data: it never widens where the harness sends credentials,
  // and it is validated as a config file is (used as sent, a clientId that is a number crashed the run).
  const { trustedOrigins: _ignored, ...config } = said as TargetConfig;
  const origin = `the target's own config (${baseUrl}/-/simulator/config)`;
  const valid = validateTargetConfig({ ...config, baseUrl }, origin);
  // The browser driver runs the target's scripts on this machine (fenced, yet unasked): a target naming
  // it made `run --target` start Chromium on its pages. The manual driver asks a person, who sees it.
  if (valid.driver?.kind === 'browser')
    throw new ConfigError(
      `${origin}: driver "browser" runs the target's scripts on this machine: only your config file chooses it (--config)`,
    );
  return valid;
}
