/** Open the target a run names: a base URL, a config file, or (default) the embedded simulator. */
import { ConfigError, TargetError } from '../errors.js';
import type { Offering } from '../../spec/index.js';
import { hasQueryOrFragment, hasUserinfo, loadTargetConfig, NO_QUERY, NO_USERINFO, quotableUrl } from './config.js';
import { createEmbeddedTarget, readSimulatorConfig } from './embedded.js';
import { createHttpTarget, type HttpTargetOptions } from './http.js';
import { TransportError, transportStop, type Target } from './types.js';

export type { Target, RawRequest, TargetResponse } from './types.js';
export { TransportError, transportStop } from './types.js';
export { createEmbeddedTarget, EMBEDDED_BASE_URL } from './embedded.js';
export { createHttpTarget } from './http.js';
export { loadTargetConfig, parseTargetConfig, validateTargetConfig } from './config.js';

export interface TargetChoice extends HttpTargetOptions {
  /** A base URL (a simulator there is asked for its config through the control API). */
  url?: string;
  /** A target config file (YAML or JSON). */
  configFile?: string;
  /** Embedded simulator only: its release, offering and faults. */
  release?: string;
  offering?: Offering;
  faults?: string[];
}

export async function openTarget(choice: TargetChoice): Promise<Target> {
  if (choice.url && choice.configFile) throw new ConfigError('give --target or --config, not both');
  if ((choice.url || choice.configFile) && choice.faults?.length)
    throw new ConfigError('--fault applies only to the embedded simulator (no --target or --config)');
  if (choice.configFile) return createHttpTarget(loadTargetConfig(choice.configFile), choice);
  if (choice.url) {
    if (hasUserinfo(choice.url)) throw new ConfigError(`--target ${NO_USERINFO}`);
    if (!/^https?:\/\/[^/]/i.test(choice.url))
      throw new ConfigError(`--target must be an http(s) URL, got "${quotableUrl(choice.url)}"`);
    if (hasQueryOrFragment(choice.url)) throw new ConfigError(`--target ${NO_QUERY}`);
    const baseUrl = choice.url.replace(/(?<!\/)\/+$/, '');
    const bare = createHttpTarget({ baseUrl }, choice);
    let config;
    try {
      config = await readSimulatorConfig((r) => bare.send(r), baseUrl);
    } catch (error) {
      await bare.close();
      // Cut short by --deadline or a signal, the question says nothing of the target: the run
      // goes on to skip every check, and still reports.
      if (error instanceof TransportError && error.code === 'deadline') return createHttpTarget({ baseUrl }, choice);
      if (error instanceof TransportError) throw new TargetError(transportStop(baseUrl, error));
      throw error;
    }
    await bare.close();
    return createHttpTarget(config, choice);
  }
  try {
    return await createEmbeddedTarget({ release: choice.release, offering: choice.offering, faults: choice.faults });
  } catch (error) {
    // An unknown fault or release is the user's mistake: one line.
    if (error instanceof RangeError) throw new ConfigError(error.message);
    throw error;
  }
}
