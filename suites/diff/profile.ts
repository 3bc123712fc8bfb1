/**
 * What a target says it is, for `diff` to configure its reference like it: the release from the
 * REST API's version endpoint (`GET /api/v4/version`, the real service's; the source shows none)
 * and the feature flags spec/profiles.yaml ties to a discovery member (`discovery:`). Read once,
 * through the target's own bounded `send` (its time and size limits, no redirect followed), on
 * its own origin; the token goes only there. Nothing the target writes is shown: only a release
 * number this harness knows and flag names of the spec.
 */
import { profiles, releaseProblem } from '../../spec/index.js';
import { discoveryPath } from '../shared/oauth.js';
import type { Target, TargetResponse } from '../target/index.js';

export const VERSION_PATH = '/api/v4/version';

/** Larger answers are not read as a discovery document or a version. */
const MAX_READ = 64 * 1024;

export interface ReadProfile {
  release?: string;
  flags: Record<string, boolean>;
  /** What was read, and what could not be, in words: `release 17.5 (GET /api/v4/version)`. */
  read: string[];
}

/** The JSON object of a 200 answer, or why there is none (never the target's text). */
async function readJson(target: Target, path: string, headers: Headers): Promise<Record<string, unknown> | string> {
  let response: TargetResponse;
  try {
    response = await target.send({ method: 'GET', url: target.baseUrl + path, headers });
  } catch (error) {
    return `no answer (${(error as Error).name})`;
  }
  const text = await response.text().catch(() => '');
  if (response.status !== 200) return `answered ${response.status}`;
  if (text.length > MAX_READ) return 'answered more than 64 KiB';
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // not JSON
  }
  return 'answered no JSON object';
}

export async function readTargetProfile(target: Target): Promise<ReadProfile> {
  const read: string[] = [];
  const flags: Record<string, boolean> = {};
  // Where the checks read it: under an issuer with a path (Keycloak's /realms/NAME), else at the root.
  const path = discoveryPath(target.baseUrl, target.config.issuer);
  const discovery = await readJson(target, path, new Headers({ accept: 'application/json' }));
  if (typeof discovery === 'string') read.push(`no flags from GET ${path}: ${discovery}`);
  else
    for (const [flag, info] of Object.entries(profiles().flags)) {
      if (!info.discovery) continue;
      flags[flag] = discovery[info.discovery] !== undefined && discovery[info.discovery] !== null;
      read.push(`${flag} ${flags[flag] ? 'on' : 'off'} (GET ${path})`);
    }

  const headers = new Headers({ accept: 'application/json' });
  // The version endpoint wants a token; the config's goes to the target's own origin only.
  if (target.config.personalAccessToken) headers.set('private-token', target.config.personalAccessToken);
  const version = await readJson(target, VERSION_PATH, headers);
  const number = typeof version === 'string' ? undefined : version.version;
  const release = typeof number === 'string' ? /^(\d{1,4})\.(\d{1,4})(?:\.|-|$)/.exec(number) : null;
  if (typeof version === 'string') read.push(`no release from GET ${VERSION_PATH}: ${version}`);
  else if (!release) read.push(`no release from GET ${VERSION_PATH}: no version number`);
  else if (releaseProblem(`${release[1]}.${release[2]}`))
    read.push(`no release from GET ${VERSION_PATH}: ${release[1]}.${release[2]} is not a release this harness plays`);
  else read.push(`release ${release[1]}.${release[2]} (GET ${VERSION_PATH})`);
  const playable = release && !releaseProblem(`${release[1]}.${release[2]}`);
  return { ...(playable ? { release: `${release[1]}.${release[2]}` } : {}), flags, read };
}
