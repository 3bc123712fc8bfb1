/**
 * `idp-conformance simulate`: serve the reference simulator over HTTP on loopback, print its base
 * URL on one line, optionally write the target config (YAML), stop cleanly on SIGINT/SIGTERM/SIGHUP.
 */
import { isIP, type AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { faults, profiles, releaseProblem, type Offering } from '../spec/index.js';
import { createSimulator } from '../simulator/core.js';
import { isLoopback, serve, type Served } from '../simulator/adapters/node.js';
import { targetConfig } from '../simulator/control/config.js';
import type { Sim, SimulatorOptions } from '../simulator/types.js';
import { quotableUrl } from '../suites/target/url-text.js';
import { UsageError } from './errors.js';
import { untilSignal } from './signals.js';
import { writePrivateFile } from './private-file.js';

export interface SimulateFlags {
  port?: string;
  host?: string;
  release?: string;
  offering?: string;
  flag?: string[];
  setting?: string[];
  fault?: string[];
  seedSize?: string;
  writeConfig?: string;
  /** false with --no-control */
  control?: boolean;
  issuer?: string;
  allowHost?: string[];
  trustProxy?: boolean;
  exposeControl?: boolean;
  /** --production: development mode off, redirect URIs must use HTTPS. */
  production?: boolean;
}

/** A repeatable option's values, in order. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function pair(text: string, what: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UsageError(`--${what} expects key=value, got "${text}"`);
  return [text.slice(0, eq), text.slice(eq + 1)];
}

function integer(text: string, what: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max)
    throw new UsageError(`${what} must be an integer from ${min} to ${max}, got "${text}"`);
  return n;
}

function booleanValue(text: string, what: string): boolean {
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw new UsageError(`${what} must be true or false, got "${text}"`);
}

/** A setting's value typed like its default in spec/profiles.yaml. */
function settingValue(name: string, text: string): unknown {
  const info = profiles().settings[name];
  if (!info) throw new UsageError(`unknown setting ${name} (known: ${Object.keys(profiles().settings).join(', ')})`);
  if (typeof info.default === 'boolean') return booleanValue(text, `--setting ${name}`);
  if (typeof info.default === 'number') return integer(text, `--setting ${name}`, 0, Number.MAX_SAFE_INTEGER);
  if (text === 'null' || text === 'off') return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`--setting ${name} expects JSON or null, got "${text}"`);
  }
}

/** Command-line flags to simulator options; every problem is a UsageError with one line. */
export function simulatorOptions(flags: SimulateFlags): SimulatorOptions {
  const p = profiles();
  const options: SimulatorOptions = {};
  if (flags.release !== undefined) {
    const wrong = releaseProblem(flags.release);
    if (wrong) throw new UsageError(`--release: ${wrong}`);
    options.release = flags.release;
  }
  if (flags.offering !== undefined) {
    const offerings = Object.keys(
      (p as { offerings?: Record<string, unknown> }).offerings ?? { 'self-managed': 1, hosted: 1 },
    );
    if (!offerings.includes(flags.offering))
      throw new UsageError(`--offering must be ${offerings.join(' or ')}, got "${flags.offering}"`);
    options.offering = flags.offering as Offering;
  }
  for (const text of flags.flag ?? []) {
    const [name, value] = pair(text, 'flag');
    if (!p.flags[name]) throw new UsageError(`unknown flag ${name} (known: ${Object.keys(p.flags).join(', ')})`);
    options.flags = { ...options.flags, [name]: booleanValue(value, `--flag ${name}`) };
  }
  for (const text of flags.setting ?? []) {
    const [name, value] = pair(text, 'setting');
    options.settings = { ...options.settings, [name]: settingValue(name, value) };
  }
  const known = new Set<string>(faults().map((f) => f.name));
  for (const name of flags.fault ?? []) {
    if (!known.has(name)) throw new UsageError(`unknown fault ${name} (see spec/faults.yaml)`);
  }
  if (flags.fault?.length) options.faults = flags.fault;
  if (flags.production) {
    if (options.settings?.developmentMode === true)
      throw new UsageError('--production contradicts --setting developmentMode=true');
    options.settings = { ...options.settings, developmentMode: false };
  }
  if (flags.control === false) options.control = false;
  if (flags.seedSize !== undefined) options.seedSize = integer(flags.seedSize, '--seed-size', 1, 1_000_000);
  if (flags.issuer !== undefined) options.issuer = issuerUrl(flags.issuer);
  if (flags.trustProxy) options.trustProxy = true;
  if (flags.exposeControl && !flags.allowHost?.length)
    throw new UsageError('--expose-control needs --allow-host: name the host(s) the control API may answer');
  checkAllowHosts(flags.allowHost);
  return options;
}

/** --allow-host values (simulate, proxy): each a host or host:port. */
export function checkAllowHosts(hosts: readonly string[] = []): void {
  for (const host of hosts)
    if (!/^[A-Za-z0-9.[\]:-]+$/.test(host))
      throw new UsageError(`--allow-host expects a host or host:port, got "${host}"`);
}

/** --issuer: an absolute http(s) URL without query or fragment; it replaces the Host-derived one. */
function issuerUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--issuer expects an absolute URL, got "${quotableUrl(text)}"`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username)
    throw new UsageError(`--issuer must be an http(s) URL without query, fragment or user, got "${quotableUrl(text)}"`);
  return url.href.replace(/(?<!\/)\/+$/, '');
}

export interface Simulation {
  sim: Sim;
  served: Served;
}

/** Start the simulator as the command does; the caller owns stopping it. */
export async function startSimulation(
  flags: SimulateFlags,
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  note: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<Simulation> {
  const sim = createSimulator(simulatorOptions(flags));
  const port = flags.port === undefined ? 0 : integer(flags.port, '--port', 0, 65535);
  const host = flags.host ?? '127.0.0.1';
  // AUTH-CONTROL-API-LOCAL: the control API hands out every secret; off loopback only on request.
  const refused = (address: string) =>
    flags.control !== false && !flags.exposeControl && !isLoopback(address)
      ? new UsageError(
          `refusing to serve the control API on non-loopback ${host}: pass --no-control, or --expose-control with --allow-host`,
        )
      : undefined;
  // An address is refused before binding; a name by the address it bound to (it may resolve anywhere).
  const early = isIP(host) ? refused(host) : undefined;
  if (early) throw early;
  let served: Served;
  try {
    served = await serve(sim, { port, host, allowHosts: flags.allowHost });
  } catch (error) {
    throw new UsageError(
      `cannot listen on ${host}:${port}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  // Meanwhile, off loopback the control API answers only --allow-host (serve): none here.
  const late = refused((served.server.address() as AddressInfo).address);
  if (late) {
    await served.close();
    throw late;
  }
  if (flags.writeConfig) {
    try {
      writePrivateFile(flags.writeConfig, stringify(targetConfig(sim, served.url)));
    } catch (error) {
      await served.close();
      throw new UsageError(
        `cannot write ${flags.writeConfig}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  out(served.url);
  // stdout stays the one URL line scripts read; the file goes to the person.
  if (flags.writeConfig) note(`target config written to ${flags.writeConfig} (run --config ${flags.writeConfig})`);
  return { sim, served };
}

export function registerSimulate(program: Command): void {
  program
    .command('simulate')
    .description('serve the reference simulator over HTTP')
    .option('--port <port>', 'port to listen on (0 picks a free one)')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--release <release>', 'release to play, e.g. 17.1')
    .option('--offering <offering>', 'self-managed or hosted')
    .option('--flag <name=value>', 'feature flag (repeatable)', collect)
    .option('--setting <name=value>', 'instance setting (repeatable)', collect)
    .option('--fault <name>', 'deliberate non-conformance from spec/faults.yaml (repeatable)', collect)
    .option('--seed-size <n>', 'size of the generated REST data')
    .option('--write-config <file>', 'write the target config (YAML) to this file')
    .option('--no-control', 'serve no /-/simulator/ control API, like a live deployment')
    .option('--issuer <url>', 'fixed issuer (also verification_uri and id_token iss) instead of the Host')
    .option('--allow-host <host>', 'another Host the control API answers, name or name:port (repeatable)', collect)
    .option('--trust-proxy', 'trust X-Forwarded-Proto from a TLS-terminating proxy (Secure cookies)')
    .option('--expose-control', 'allow the control API on a non-loopback --host (needs --allow-host)')
    .option('--production', 'production mode: redirect URIs must use HTTPS (same as --setting developmentMode=false)')
    .action(async (flags: SimulateFlags) => {
      const { served } = await startSimulation(flags);
      await untilSignal();
      await served.close();
    });
}
