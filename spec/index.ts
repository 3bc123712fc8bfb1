/**
 * The only reader of the spec's YAML. Everything else asks these accessors.
 *
 * BOOTSTRAP VERSION: the spec owner replaces the bodies (ajv validation, cross-checks, rules,
 * machines, profiles) but keeps every exported name and type stable, because the simulator and
 * the suites import them.
 */
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { OpenAPIV3_1 } from 'openapi-types';

/** The folder holding the YAML, whether we run from sources (spec/) or compiled (dist/spec/). */
export function specDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    if (existsSync(join(dir, 'openapi.yaml'))) return dir;
    const candidate = join(dir, 'spec');
    if (existsSync(join(candidate, 'openapi.yaml'))) return candidate;
    dir = dirname(dir);
  }
  throw new Error('spec/openapi.yaml not found next to the package');
}

export type Level = 'must' | 'should' | 'info';
export type Offering = 'self-managed' | 'hosted';
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options' | 'head';

export interface OperationInfo {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path template, e.g. `/api/v4/projects/{id}`. */
  path: string;
  tags: string[];
  /** A parameter allowed to span several path segments (x-greedy). */
  greedy?: string;
  since?: string;
  until?: string;
  flag?: string;
  rules: string[];
  deprecated: boolean;
  raw: OpenAPIV3_1.OperationObject;
}

const cache = new Map<string, unknown>();
function loadYaml<T>(file: string): T {
  if (!cache.has(file)) cache.set(file, parse(readFileSync(join(specDir(), file), 'utf8')));
  return cache.get(file) as T;
}

export function openapi(): OpenAPIV3_1.Document {
  return loadYaml<OpenAPIV3_1.Document>('openapi.yaml');
}

const METHODS: HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete', 'options', 'head'];

export function operations(): OperationInfo[] {
  const doc = openapi();
  const out: OperationInfo[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!item) continue;
    const greedy = (item as Record<string, unknown>)['x-greedy'] as string | undefined;
    for (const method of METHODS) {
      const op = (item as Record<string, unknown>)[method] as (OpenAPIV3_1.OperationObject & Record<string, unknown>) | undefined;
      if (!op?.operationId) continue;
      out.push({
        operationId: op.operationId,
        method,
        path,
        tags: op.tags ?? [],
        greedy,
        since: op['x-since'] as string | undefined,
        until: op['x-until'] as string | undefined,
        flag: op['x-flag'] as string | undefined,
        rules: (op['x-rules'] as string[] | undefined) ?? [],
        deprecated: op.deprecated ?? false,
        raw: op,
      });
    }
  }
  return out;
}

export function operation(operationId: string): OperationInfo {
  const found = operations().find((o) => o.operationId === operationId);
  if (!found) throw new Error(`unknown operationId ${operationId}`);
  return found;
}

/** Compare dotted releases numerically: "16.10" > "16.9". */
export function compareReleases(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** In force at `release`: since <= release < until. */
export function inRelease(window: { since?: string; until?: string }, release: string): boolean {
  if (window.since && compareReleases(release, window.since) < 0) return false;
  if (window.until && compareReleases(release, window.until) >= 0) return false;
  return true;
}

export interface FlagInfo {
  default: boolean;
  since?: string;
  until?: string;
  description?: string;
  source?: string;
}

export interface SettingInfo {
  default: unknown;
  description?: string;
  source?: string;
}

export interface Profiles {
  defaults: { release: string; offering: Offering };
  flags: Record<string, FlagInfo>;
  settings: Record<string, SettingInfo>;
  [key: string]: unknown;
}

export function profiles(): Profiles {
  return loadYaml<Profiles>('profiles.yaml');
}

export interface Limits {
  accessTokenLifetime: number;
  deviceCodeLifetime: number;
  deviceInterval: number;
  slowDownIncrement: number;
  authorizationCodeLifetime: number;
  verifierMinLength: number;
  verifierMaxLength: number;
  perPageDefault: number;
  perPageMax: number;
  paginationTotalsMax: number;
  usersKeysetEnforcedAbove: number;
}

export function limits(): Limits {
  return (profiles() as unknown as { limits: Limits }).limits;
}

export interface Fault {
  name: string;
  side: 'oauth' | 'api';
  rules: string[];
  description: string;
}

export function faults(): Fault[] {
  return loadYaml<{ faults: Fault[] }>('faults.yaml').faults;
}

export interface MachineResult {
  status: number;
  /** OAuth error code of the error body. */
  error?: string;
  /** Schema name in openapi components of a success body. */
  body?: string;
  /** Name of an HTML page answer. */
  page?: string;
}

export interface MachineRow {
  state: string;
  trigger: string;
  condition: string;
  next: string;
  result: MachineResult;
  effects: string[];
  source: string;
  rules: string[];
}

export interface Machine {
  name: string;
  title: string;
  source: string;
  since?: string;
  until?: string;
  flag?: string;
  initial: string;
  states: Record<string, { description: string; terminal?: boolean }>;
  triggers: Record<string, { description: string }>;
  conditions: Record<string, { description: string }>;
  effects: Record<string, { description: string }>;
  rows: MachineRow[];
}

export function machine(name: string): Machine {
  return loadYaml<Machine>(`machines/${name}.yaml`);
}

/** The row a machine takes for (state, trigger): the first whose condition holds, in table order. */
export function step(m: Machine, state: string, trigger: string, holds: (condition: string) => boolean): MachineRow | undefined {
  return m.rows.find((r) => r.state === state && r.trigger === trigger && (r.condition === 'otherwise' || holds(r.condition)));
}
