/**
 * The only reader of the spec's YAML. Everything else asks these accessors.
 *
 * The first accessor call validates the whole spec folder once (validateSpec: JSON Schemas,
 * cross-references, machines, source map) and throws one clear error if anything is wrong, so no
 * consumer ever runs on a half-valid spec. `idp-conformance spec lint` prints the same problems.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { parse } from 'yaml';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { machineFiles, readSpecFiles, SCHEMA_FILES, SPEC_FILES, specDir, type SpecFiles } from './files.js';
import { inRelease, compareReleases } from './releases.js';
import { parseSourceText, type SourceText } from './source-text.js';
import { validateFiles } from './validate.js';
import type {
  Fault,
  HttpMethod,
  Limits,
  Machine,
  MachineRow,
  Offering,
  OperationId,
  OperationInfo,
  Profiles,
  Retention,
  Rule,
  RuleId,
  SourceMapEntry,
} from './types.js';

export { specDir } from './files.js';
export type { SpecSource, SpecFiles } from './files.js';
export { compareReleases, inRelease } from './releases.js';
export { validateSpec, validateFiles, matchSourceMap } from './validate.js';
export { parseSourceText, sectionMatches } from './source-text.js';
export type { SourceText, SourceItem, SourceHeading } from './source-text.js';
export { RULE_IDS, FAULT_NAMES, OPERATION_IDS } from './ids.js';
export { ERROR_DESCRIPTION_CHARACTERS } from './syntax.js';
export type {
  RuleId,
  FaultName,
  OperationId,
  Level,
  Offering,
  HttpMethod,
  OperationInfo,
  Rule,
  FlagInfo,
  SettingInfo,
  ReleaseInfo,
  OfferingInfo,
  Profiles,
  Limits,
  Retention,
  Fault,
  MachineResult,
  MachineRow,
  Machine,
  SourceMapEntry,
  Problem,
} from './types.js';

interface Loaded {
  files: SpecFiles;
  values: Map<string, unknown>;
}

let loaded: Loaded | undefined;

/** Validate once, then keep the parsed files. Throws with every problem listed. */
function spec(): Loaded {
  if (loaded) return loaded;
  const files = readSpecFiles();
  const cached = readCache(files);
  if (cached) return (loaded = { files, values: cached });
  const problems = validateFiles(files);
  if (problems.length) {
    const shown = problems.slice(0, 20).map((p) => `  spec/${p.file}:${p.line}: ${p.message}`);
    const more = problems.length > shown.length ? [`  ... and ${problems.length - shown.length} more`] : [];
    throw new Error(
      `the spec is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}; run \`idp-conformance spec lint\`):\n${[...shown, ...more].join('\n')}`,
    );
  }
  loaded = { files, values: new Map([...files].map(([name, text]) => [name, parseFile(name, text)])) };
  writeCache(files, loaded.values);
  return loaded;
}

function parseFile(name: string, text: string): unknown {
  if (name.endsWith('.json')) return JSON.parse(text);
  if (name.endsWith('.yaml')) return parse(text, { maxAliasCount: 100 });
  return text;
}

/*
 * Parsing the YAML with line positions and validating it costs about two seconds per process,
 * and every vitest worker, every `run` and every `simulate` would pay it. The validated, parsed
 * spec is therefore cached under node_modules/.cache, keyed by a hash of every spec file's name
 * and text: any edit changes the key, so a stale or unvalidated spec is never served.
 */
function cacheFile(files: SpecFiles): string | null {
  if (process.env.IDP_CONFORMANCE_SPEC_CACHE === 'off') return null;
  const modules = join(dirname(specDir()), 'node_modules');
  const dir = existsSync(modules)
    ? join(modules, '.cache', 'idp-conformance')
    : join(tmpdir(), 'idp-conformance-cache');
  const hash = createHash('sha256');
  for (const [name, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) hash.update(`${name}\0${text}\0`);
  return join(dir, `spec-${hash.digest('hex').slice(0, 24)}.json`);
}

function readCache(files: SpecFiles): Map<string, unknown> | null {
  const file = cacheFile(files);
  if (!file || !existsSync(file)) return null;
  try {
    return new Map(Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>));
  } catch {
    return null; // a damaged cache is only a slower start
  }
}

function writeCache(files: SpecFiles, values: Map<string, unknown>): void {
  const file = cacheFile(files);
  if (!file) return;
  try {
    mkdirSync(dirname(file), { recursive: true });
    // Write then rename, so a parallel process never reads half a file.
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(Object.fromEntries(values)));
    renameSync(partial, file);
  } catch {
    // read-only install: validate every time
  }
}

function value<T>(file: string): T {
  const { values } = spec();
  if (!values.has(file)) throw new Error(`spec file ${file} not found in ${specDir()}`);
  return values.get(file) as T;
}

// ------------------------------------------------------------------------------------------ openapi
export function openapi(): OpenAPIV3_1.Document {
  return value<OpenAPIV3_1.Document>(SPEC_FILES.openapi);
}

const METHODS: HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete', 'options', 'head'];

export function operations(): OperationInfo[] {
  const doc = openapi();
  const out: OperationInfo[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!item) continue;
    const greedy = (item as Record<string, unknown>)['x-greedy'] as string | undefined;
    for (const method of METHODS) {
      const op = (item as Record<string, unknown>)[method] as
        (OpenAPIV3_1.OperationObject & Record<string, unknown>) | undefined;
      if (!op?.operationId) continue;
      out.push({
        operationId: op.operationId as OperationId,
        method,
        path,
        tags: op.tags ?? [],
        greedy,
        since: op['x-since'] as string | undefined,
        until: op['x-until'] as string | undefined,
        flag: op['x-flag'] as string | undefined,
        rules: (op['x-rules'] as RuleId[] | undefined) ?? [],
        deprecated: op.deprecated ?? false,
        raw: op,
      });
    }
  }
  return out;
}

export function operation(operationId: OperationId): OperationInfo {
  const found = operations().find((o) => o.operationId === operationId);
  if (!found) throw new Error(`unknown operationId ${operationId}`);
  return found;
}

/** One row of the source's keyset support table (the `x-keyset` extension of an operation). */
export interface KeysetRow {
  operationId: OperationId;
  who: 'authenticated' | 'unauthenticated' | 'both';
  since?: string;
  until?: string;
  rules: RuleId[];
  /** Every allowed (order_by, sort); a single pair of nulls where no ordering applies. */
  orders: { order_by: string | null; sort: 'asc' | 'desc' | null }[];
}

interface XKeyset {
  orderBy: string[];
  sort: Array<'asc' | 'desc'>;
  who: KeysetRow['who'];
  since?: string;
  until?: string;
  rule?: RuleId;
}

/** The keyset support table, one row per operation that offers keyset pagination. */
export function keysetTable(): KeysetRow[] {
  return operations().flatMap((op) => {
    const x = (op.raw as Record<string, unknown>)['x-keyset'] as XKeyset | undefined;
    if (!x) return [];
    const orders =
      x.orderBy.length === 0
        ? [{ order_by: null, sort: null }]
        : x.orderBy.flatMap((o) => x.sort.map((sort) => ({ order_by: o, sort })));
    return [
      {
        operationId: op.operationId,
        who: x.who,
        since: x.since,
        until: x.until,
        rules: x.rule ? [x.rule] : [],
        orders,
      },
    ];
  });
}

export interface CorsPreflight {
  path: string;
  since?: string;
  rules: RuleId[];
  /** Lower-case header names a preflight may be granted (the source does not show the list). */
  allowedHeaders: string[];
  /** Lower-case header names never granted (X-Requested-With). */
  refusedHeaders: string[];
}

/** Paths that answer CORS preflight requests (x-cors-preflight of their path item). */
export function corsPreflights(): CorsPreflight[] {
  const out: CorsPreflight[] = [];
  for (const [path, item] of Object.entries(openapi().paths ?? {})) {
    const ext = (item as Record<string, unknown> | undefined)?.['x-cors-preflight'] as
      Record<string, unknown> | undefined;
    if (!ext) continue;
    out.push({
      path,
      since: ext['x-since'] as string | undefined,
      rules: (ext['x-rules'] as RuleId[] | undefined) ?? [],
      allowedHeaders: (ext.allowedHeaders as string[] | undefined) ?? [],
      refusedHeaders: (ext.refusedHeaders as string[] | undefined) ?? [],
    });
  }
  return out;
}

/**
 * Lower-case names of the response headers the API description declares (the `headers` of every
 * response, of a path or of components.responses): the headers the checks judge.
 */
export function responseHeaderNames(): string[] {
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node as Record<string, unknown>)) {
      if (key === 'headers' && child && typeof child === 'object' && !Array.isArray(child) && !('$ref' in child))
        for (const name of Object.keys(child)) names.add(name.toLowerCase());
      else walk(child);
    }
  };
  walk(openapi().paths);
  walk(openapi().components?.responses);
  return [...names];
}

/** A schema of components.schemas by name (e.g. `DeviceTokenResponse`). */
export function schema(name: string): OpenAPIV3_1.SchemaObject {
  const found = openapi().components?.schemas?.[name];
  if (!found) throw new Error(`unknown schema ${name} (not in spec/openapi.yaml components.schemas)`);
  return found;
}

// -------------------------------------------------------------------------------------------- rules
export function rules(): Rule[] {
  return value<{ rules: Rule[] }>(SPEC_FILES.rules).rules;
}

/** Rules by id, built once per loaded rules list (the simulator asks per rendered record). */
const ruleIndex = new WeakMap<Rule[], Map<string, Rule>>();

export function rule(id: RuleId): Rule {
  const all = rules();
  let index = ruleIndex.get(all);
  if (!index) ruleIndex.set(all, (index = new Map(all.map((r) => [r.id, r]))));
  const found = index.get(id);
  if (!found) throw new Error(`unknown rule id ${id} (not in spec/rules.yaml)`);
  return found;
}

/**
 * Flags of a run: each flag's default within its release window, then `overrides` (a target's
 * `features`).
 */
export function flagsAt(release: string, overrides: Record<string, boolean> = {}): Record<string, boolean> {
  const flags: Record<string, boolean> = {};
  for (const [name, info] of Object.entries(profiles().flags)) flags[name] = info.default && inRelease(info, release);
  return { ...flags, ...overrides };
}

/**
 * The rules in force for a release, an offering and flags: since <= release < until, the rule's
 * offering (if any) is this one, and its flag (if any) is on. Flags not given take their
 * profile default within the flag's release window.
 */
export function rulesInForce(release: string, offering: Offering, flags: Record<string, boolean> = {}): Rule[] {
  const effective = flagsAt(release, flags);
  return rules().filter(
    (r) => inRelease(r, release) && (!r.offering || r.offering === offering) && (!r.flag || effective[r.flag] === true),
  );
}

// ----------------------------------------------------------------------------------------- profiles
export function profiles(): Profiles {
  return value<Profiles>(SPEC_FILES.profiles);
}

/** Every release the spec names, oldest first. */
export function releases(): string[] {
  return Object.keys(profiles().releases ?? {}).sort(compareReleases);
}

/**
 * Why a release cannot be played or held to, or undefined when it can: one wording for every
 * command and config. Known are the releases from the oldest profiles.yaml lists to any minor of
 * its newest major; one between two listed releases behaves as the older.
 */
export function releaseProblem(release: string): string | undefined {
  const known = releases();
  const newestMajor = known[known.length - 1].split('.')[0];
  const listing = `known: ${known[0]} to ${newestMajor}.x, changing at ${known.join(', ')}`;
  if (!/^\d+\.\d+$/.test(release)) return `release "${release}" is not a release number like 17.1 (${listing})`;
  if (compareReleases(release, known[0]) < 0 || Number(release.split('.')[0]) > Number(newestMajor))
    return `unknown release "${release}" (${listing})`;
  return undefined;
}

/** The rules that start (since) or stop (until) at a release: what changes there. */
export function rulesChangingAt(release: string): { starting: Rule[]; ending: Rule[] } {
  const all = rules();
  return { starting: all.filter((r) => r.since === release), ending: all.filter((r) => r.until === release) };
}

export function limits(): Limits {
  return profiles().limits;
}

/** How long the simulator keeps what has expired, been revoked or ended (profiles.yaml `retention`). */
export function retention(): Retention {
  return profiles().retention;
}

export function faults(): Fault[] {
  return value<{ faults: Fault[] }>(SPEC_FILES.faults).faults;
}

// ----------------------------------------------------------------------------------------- machines
/** Names of the machines in spec/machines/. */
export function machineNames(): string[] {
  return machineFiles(spec().files).map((f) => f.replace(/^machines\//, '').replace(/\.yaml$/, ''));
}

export function machine(name: string): Machine {
  const file = `machines/${name}.yaml`;
  if (!spec().files.has(file)) throw new Error(`unknown machine ${name} (no spec/${file})`);
  return value<Machine>(file);
}

/** The row a machine takes for (state, trigger): the first whose condition holds, in table order. */
export function step(
  m: Machine,
  state: string,
  trigger: string,
  holds: (condition: string) => boolean,
): MachineRow | undefined {
  return m.rows.find(
    (r) => r.state === state && r.trigger === trigger && (r.condition === 'otherwise' || holds(r.condition)),
  );
}

// --------------------------------------------------------------------------------- source and schemas
export function sourceMap(): SourceMapEntry[] {
  return value<{ entries: SourceMapEntry[] }>(SPEC_FILES.sourceMap).entries;
}

/** The vendored source document, parsed into headings, table rows and list items. */
export function sourceText(): SourceText {
  const text = spec().files.get(SPEC_FILES.sourceText) ?? '';
  return parseSourceText(text);
}

/** The published JSON Schema of `run --expect` files (spec/expect.schema.json). */
export function expectSchema(): Record<string, unknown> {
  return value<Record<string, unknown>>(SCHEMA_FILES.expect);
}

/** The published JSON Schema of the target config (spec/target-config.schema.json). */
export function targetConfigSchema(): Record<string, unknown> {
  return value<Record<string, unknown>>(SCHEMA_FILES.targetConfig);
}
