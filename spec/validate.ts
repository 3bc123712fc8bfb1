/**
 * validateSpec: every check the spec data must pass, each problem with file and line.
 * JSON Schemas of ours (spec/*.schema.json) check shape; the cross-checks below check meaning:
 * rule ids named anywhere exist, machines are total, reachable and unambiguous, releases and flags
 * are known, the OpenAPI document holds together, and every row and item of the source text has
 * exactly one source-map entry.
 */
import { createAjv, describeSchemaError, type ErrorObject, type ValidateFunction } from './ajv.js';
import { compareReleases } from './releases.js';
import {
  machineFiles,
  parseYaml,
  readSpecFiles,
  SCHEMA_FILES,
  SPEC_FILES,
  type ParsedYaml,
  type SpecFiles,
  type SpecSource,
} from './files.js';
import {
  isExternalSource,
  parseSourceText,
  sectionMatches,
  sourceReferenceOk,
  type SourceHeading,
  type SourceItem,
} from './source-text.js';
import type { Machine, Problem, Profiles, Rule, SourceMapEntry, Fault } from './types.js';

type Json = Record<string, unknown>;

/** Pagination response headers every paginated operation declares (PAG-LINK-HEADER, PAG-OFFSET-HEADERS). */
const PAGINATION_HEADERS = ['link', 'x-next-page', 'x-page', 'x-per-page', 'x-prev-page', 'x-total', 'x-total-pages'];

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

class Problems {
  readonly list: Problem[] = [];
  add(file: string, line: number, message: string): void {
    this.list.push({ file, line, message });
  }
}

function pathOf(error: ErrorObject): (string | number)[] {
  if (!error.instancePath) return [];
  return error.instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

let compiledCache: { key: string; compiled: Map<string, ValidateFunction>; problems: Problem[] } | undefined;

/** Compiling is the slow part of validation; the same schema texts compile once per process. */
function compileSchemas(files: SpecFiles, problems: Problems): Map<string, ValidateFunction> {
  const key = Object.values(SCHEMA_FILES)
    .map((name) => files.get(name) ?? '')
    .join('\u0000');
  if (compiledCache?.key !== key) {
    const own = new Problems();
    compiledCache = { key, compiled: compileSchemaFiles(files, own), problems: own.list };
  }
  for (const p of compiledCache.problems) problems.add(p.file, p.line, p.message);
  return compiledCache.compiled;
}

function compileSchemaFiles(files: SpecFiles, problems: Problems): Map<string, ValidateFunction> {
  const ajv = createAjv({ allErrors: true, strict: false });
  const compiled = new Map<string, ValidateFunction>();
  const schemas: [string, Json][] = [];
  for (const name of Object.values(SCHEMA_FILES)) {
    const text = files.get(name);
    if (text === undefined) {
      problems.add(name, 1, 'schema file is missing');
      continue;
    }
    let schema: Json;
    try {
      schema = JSON.parse(text) as Json;
    } catch (error) {
      problems.add(name, 1, `not valid JSON: ${(error as Error).message}`);
      continue;
    }
    try {
      ajv.addSchema(schema, name);
      schemas.push([name, schema]);
    } catch (error) {
      problems.add(name, 1, `not a valid JSON Schema: ${(error as Error).message}`);
    }
  }
  for (const [name] of schemas) {
    try {
      compiled.set(name, ajv.getSchema(name)!);
    } catch (error) {
      problems.add(name, 1, `schema does not compile: ${(error as Error).message}`);
    }
  }
  return compiled;
}

function checkSchema(parsed: ParsedYaml, validate: ValidateFunction | undefined, problems: Problems): boolean {
  if (!validate) return false;
  if (validate(parsed.value)) return true;
  for (const error of validate.errors ?? []) {
    // oneOf/anyOf/not wrappers repeat their branches' errors; keep the specific ones.
    if (['oneOf', 'anyOf', 'if'].includes(error.keyword) && (validate.errors ?? []).length > 1) continue;
    problems.add(parsed.file, parsed.lineOf(pathOf(error)), `schema: ${describeSchemaError(error)}`);
  }
  return false;
}

/**
 * The last parse of each file, by name (read only once parsed): parsing with line positions is
 * most of a validation, and a second one in a process (a test's edited copy beside the unchanged
 * files) would parse the same texts again.
 */
const lastParsed = new Map<string, { text: string; parsed: ParsedYaml }>();

function load(files: SpecFiles, file: string, problems: Problems): ParsedYaml | undefined {
  const text = files.get(file);
  if (text === undefined) {
    problems.add(file, 1, 'file is missing');
    return undefined;
  }
  let parsed = lastParsed.get(file)?.text === text ? lastParsed.get(file)!.parsed : undefined;
  if (!parsed) lastParsed.set(file, { text, parsed: (parsed = parseYaml(file, text)) });
  for (const e of parsed.errors) problems.add(file, e.line, `YAML: ${e.message}`);
  return parsed.errors.length ? undefined : parsed;
}

interface Context {
  problems: Problems;
  /** Is this rule id defined? (Always true when rules.yaml itself is broken: that file's problem is reported instead of a flood.) */
  knownRule: (id: string) => boolean;
  releases: string[];
  flags: Set<string>;
  settings: Set<string>;
  schemas: Set<string>;
  headings: SourceHeading[];
}

/** Lines are looked up only when there is a problem to report (lookups are the costly part). */
type At = () => number;

function checkRuleRefs(ctx: Context, file: string, at: At, ids: unknown, where: string): void {
  if (!Array.isArray(ids)) return;
  for (const id of ids)
    if (typeof id === 'string' && !ctx.knownRule(id)) ctx.problems.add(file, at(), `${where}: unknown rule id ${id}`);
}

function checkRelease(ctx: Context, file: string, at: At, release: unknown, where: string): void {
  if (typeof release === 'string' && ctx.releases.length && !ctx.releases.includes(release)) {
    ctx.problems.add(file, at(), `${where}: release ${release} is not listed in profiles.yaml releases`);
  }
}

function checkSource(ctx: Context, file: string, at: At, source: unknown, where: string): void {
  if (typeof source === 'string' && ctx.headings.length && !sourceReferenceOk(source, ctx.headings)) {
    ctx.problems.add(
      file,
      at(),
      `${where}: source "${source}" names no section of source-spec.md (nor an RFC "(not shown)")`,
    );
  }
}

// ------------------------------------------------------------------------------------------- rules
function checkRules(ctx: Context, parsed: ParsedYaml, rules: Rule[]): void {
  const seen = new Map<string, number>();
  const line = (i: number) => parsed.lineOf(['rules', i, 'id']);
  rules.forEach((rule, i) => {
    const first = seen.get(rule.id);
    if (first !== undefined)
      ctx.problems.add(parsed.file, line(i), `duplicate rule id ${rule.id} (first at line ${line(first)})`);
    else seen.set(rule.id, i);
    checkRelease(ctx, parsed.file, () => parsed.lineOf(['rules', i, 'since']), rule.since, `rule ${rule.id} since`);
    checkRelease(ctx, parsed.file, () => parsed.lineOf(['rules', i, 'until']), rule.until, `rule ${rule.id} until`);
    if (rule.since && rule.until && compareReleases(rule.since, rule.until) >= 0) {
      ctx.problems.add(parsed.file, line(i), `rule ${rule.id}: since ${rule.since} is not before until ${rule.until}`);
    }
    if (rule.flag && !ctx.flags.has(rule.flag))
      ctx.problems.add(parsed.file, parsed.lineOf(['rules', i, 'flag']), `rule ${rule.id}: unknown flag ${rule.flag}`);
    if (rule.setting && !ctx.settings.has(rule.setting)) {
      ctx.problems.add(
        parsed.file,
        parsed.lineOf(['rules', i, 'setting']),
        `rule ${rule.id}: unknown setting ${rule.setting}`,
      );
    }
    checkSource(ctx, parsed.file, () => parsed.lineOf(['rules', i, 'source']), rule.source, `rule ${rule.id}`);
    checkOrigin(ctx, parsed, rule, i);
  });
}

/**
 * Levels from the strongest source: `origin` says where a rule's force comes from and agrees with
 * `source`; a `must` rule is the source's word or an RFC MUST, which then cites its section;
 * documented behaviour the source does not show is never more than `should`.
 */
function checkOrigin(ctx: Context, parsed: ParsedYaml, rule: Rule, i: number): void {
  const add = (key: string, message: string) =>
    ctx.problems.add(parsed.file, parsed.lineOf(['rules', i, key]), `rule ${rule.id}: ${message}`);
  const origin = (rule as Partial<Rule>).origin;
  if (typeof origin !== 'string' || !origin) return add('id', 'has no origin (source, documented, or an RFC section)');
  const external = isExternalSource(rule.source);
  if (origin === 'source' && external)
    add('origin', `origin source, but its source "${rule.source}" is not the source document`);
  if (origin !== 'source' && !external)
    add('origin', `origin ${origin}, but its source "${rule.source}" is a section of the source document`);
  if (rule.level === 'must' && origin === 'documented')
    add('level', 'level must, but documented behaviour the source does not show is at most should');
  if (rule.level === 'must' && !['source', 'documented'].includes(origin) && !/ §\d/.test(origin))
    add('origin', `level must of RFC origin "${origin}": cite the section (e.g. "RFC 6749 §4.1.2")`);
}

// ---------------------------------------------------------------------------------------- machines
function checkMachine(ctx: Context, parsed: ParsedYaml, m: Machine): void {
  const { file } = parsed;
  const add = (path: (string | number)[], message: string) => ctx.problems.add(file, parsed.lineOf(path), message);
  const expectedName = file.replace(/^.*\//, '').replace(/\.yaml$/, '');
  if (m.name !== expectedName) add(['name'], `machine name ${m.name} differs from its file name ${expectedName}`);
  if (!(m.initial in m.states)) add(['initial'], `initial state ${m.initial} is not declared in states`);
  checkRelease(ctx, file, () => parsed.lineOf(['since']), m.since, 'machine since');
  checkRelease(ctx, file, () => parsed.lineOf(['until']), m.until, 'machine until');
  if (m.flag && !ctx.flags.has(m.flag)) add(['flag'], `unknown flag ${m.flag}`);
  checkSource(ctx, file, () => parsed.lineOf(['source']), m.source, 'machine');

  const used = { triggers: new Set<string>(), conditions: new Set<string>(), effects: new Set<string>() };
  const groups = new Map<string, { conditions: Map<string, number>; otherwiseAt?: number; lastIndex: number }>();
  m.rows.forEach((row, i) => {
    const at = (key: string) => ['rows', i, key];
    const label = `row ${i + 1} (${row.state}, ${row.trigger}, ${row.condition})`;
    if (!(row.state in m.states)) add(at('state'), `${label}: unknown state ${row.state}`);
    if (!(row.next in m.states)) add(at('next'), `${label}: unknown next state ${row.next}`);
    if (!(row.trigger in m.triggers)) add(at('trigger'), `${label}: unknown trigger ${row.trigger}`);
    if (!(row.condition in m.conditions)) add(at('condition'), `${label}: unknown condition ${row.condition}`);
    for (const effect of row.effects)
      if (!(effect in m.effects)) add(at('effects'), `${label}: unknown effect ${effect}`);
    if (row.result.body && !ctx.schemas.has(row.result.body)) {
      add(at('result'), `${label}: unknown schema ${row.result.body} (not in openapi.yaml components.schemas)`);
    }
    if (m.states[row.state]?.terminal && row.next !== row.state)
      add(at('next'), `${label}: terminal state ${row.state} must not lead to ${row.next}`);
    checkRuleRefs(ctx, file, () => parsed.lineOf(at('rules')), row.rules, label);
    checkSource(ctx, file, () => parsed.lineOf(at('source')), row.source, label);
    used.triggers.add(row.trigger);
    used.conditions.add(row.condition);
    row.effects.forEach((e) => used.effects.add(e));

    const key = `${row.state}\u0000${row.trigger}`;
    const group = groups.get(key) ?? { conditions: new Map<string, number>(), lastIndex: i };
    groups.set(key, group);
    const first = group.conditions.get(row.condition);
    if (first !== undefined)
      add(at('condition'), `${label}: ambiguous, row ${first + 1} has the same state, trigger and condition`);
    else group.conditions.set(row.condition, i);
    if (group.otherwiseAt !== undefined) {
      add(
        at('condition'),
        `${label}: comes after the otherwise row ${group.otherwiseAt + 1} of (${row.state}, ${row.trigger}), so it is never taken`,
      );
    }
    if (row.condition === 'otherwise' && group.otherwiseAt === undefined) group.otherwiseAt = i;
    group.lastIndex = i;
  });
  for (const [key, group] of groups) {
    if (group.otherwiseAt === undefined) {
      const [state, trigger] = key.split('\u0000');
      add(['rows', group.lastIndex], `(${state}, ${trigger}) has no otherwise row: the table is not total`);
    }
  }
  for (const kind of ['triggers', 'conditions', 'effects'] as const) {
    for (const name of Object.keys(m[kind])) {
      if (!used[kind].has(name) && !(kind === 'conditions' && name === 'otherwise'))
        add([kind, name], `${kind.slice(0, -1)} ${name} is declared but no row uses it`);
    }
  }
  // Reachability from the initial state along the rows.
  const reached = new Set<string>([m.initial]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of m.rows) {
      if (reached.has(row.state) && !reached.has(row.next)) {
        reached.add(row.next);
        grew = true;
      }
    }
  }
  for (const state of Object.keys(m.states)) {
    if (!reached.has(state))
      add(['states', state], `state ${state} is unreachable from the initial state ${m.initial}`);
  }
}

// ---------------------------------------------------------------------------------------- profiles
/** profiles.yaml before its limits are known to be the ones the code reads. */
type RawProfiles = Omit<Profiles, 'limits' | 'limitSources'> & {
  limits: Json;
  limitSources: Record<string, { rules: string[] }>;
};

function checkProfiles(ctx: Context, parsed: ParsedYaml, p: RawProfiles): void {
  const { file } = parsed;
  const releases = Object.keys(p.releases ?? {});
  releases.forEach((r, i) => {
    if (i > 0 && compareReleases(releases[i - 1], r) >= 0)
      ctx.problems.add(
        file,
        parsed.lineOf(['releases', r]),
        `release ${r} is listed after ${releases[i - 1]}: keep releases in ascending order`,
      );
  });
  if (!releases.includes(p.defaults.release))
    ctx.problems.add(
      file,
      parsed.lineOf(['defaults', 'release']),
      `default release ${p.defaults.release} is not listed in releases`,
    );
  for (const [name, flag] of Object.entries(p.flags)) {
    checkRelease(ctx, file, () => parsed.lineOf(['flags', name, 'since']), flag.since, `flag ${name} since`);
    checkRuleRefs(ctx, file, () => parsed.lineOf(['flags', name, 'rules']), flag.rules, `flag ${name}`);
  }
  for (const [name, setting] of Object.entries(p.settings))
    checkRuleRefs(ctx, file, () => parsed.lineOf(['settings', name, 'rules']), setting.rules, `setting ${name}`);
  for (const [name, offering] of Object.entries(p.offerings ?? {})) {
    for (const key of Object.keys(offering.settings)) {
      if (!(key in p.settings))
        ctx.problems.add(
          file,
          parsed.lineOf(['offerings', name, 'settings', key]),
          `offering ${name}: unknown setting ${key}`,
        );
    }
  }
  const limitKeys = Object.keys(p.limits);
  for (const key of limitKeys)
    if (!(key in p.limitSources))
      ctx.problems.add(file, parsed.lineOf(['limits', key]), `limit ${key} has no limitSources entry`);
  for (const [key, entry] of Object.entries(p.limitSources)) {
    if (!limitKeys.includes(key))
      ctx.problems.add(file, parsed.lineOf(['limitSources', key]), `limitSources names unknown limit ${key}`);
    checkRuleRefs(ctx, file, () => parsed.lineOf(['limitSources', key, 'rules']), entry.rules, `limit ${key}`);
  }
}

// ----------------------------------------------------------------------------------------- openapi
function checkOpenapi(ctx: Context, parsed: ParsedYaml, doc: Json): void {
  const { file } = parsed;
  const add = (path: (string | number)[], message: string) => ctx.problems.add(file, parsed.lineOf(path), message);
  if (typeof doc.openapi !== 'string' || !/^3\.1\.\d+$/.test(doc.openapi))
    add(['openapi'], 'openapi must be a 3.1.x version string');
  const info = doc.info as Json | undefined;
  if (!info || typeof info.title !== 'string' || typeof info.version !== 'string')
    add(['info'], 'info needs a title and a version');
  const paths = doc.paths as Record<string, Json> | undefined;
  if (!paths || typeof paths !== 'object') {
    add([], 'paths is missing');
    return;
  }
  const components = (doc.components ?? {}) as Json;
  const securitySchemes = (components.securitySchemes ?? {}) as Json;
  const operationIds = new Map<string, string>();

  for (const [path, item] of Object.entries(paths)) {
    if (!path.startsWith('/')) add(['paths', path], `path ${path} must start with /`);
    if (!item || typeof item !== 'object') {
      add(['paths', path], `path ${path} must be a mapping`);
      continue;
    }
    const templateParams = [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]);
    const pathLevel = (Array.isArray(item.parameters) ? item.parameters : []) as Json[];
    let operations = 0;
    for (const method of Object.keys(item)) {
      if (
        method.startsWith('x-') ||
        method === 'parameters' ||
        method === 'summary' ||
        method === 'description' ||
        method === 'servers'
      )
        continue;
      if (!HTTP_METHODS.includes(method)) {
        add(['paths', path, method], `${path}: ${method} is not an HTTP method`);
        continue;
      }
      operations++;
      const op = item[method] as Json;
      const at = (...rest: (string | number)[]) => ['paths', path, method, ...rest];
      const label = `${method.toUpperCase()} ${path}`;
      if (typeof op.operationId !== 'string') add(at(), `${label}: operationId is missing`);
      else if (operationIds.has(op.operationId))
        add(
          at('operationId'),
          `${label}: operationId ${op.operationId} is also used by ${operationIds.get(op.operationId)}`,
        );
      else operationIds.set(op.operationId, label);
      const responses = op.responses as Json | undefined;
      if (!responses || !Object.keys(responses).length) add(at(), `${label}: no responses`);
      else
        for (const code of Object.keys(responses))
          if (!/^([1-5]\d\d|[1-5]XX|default)$/.test(code))
            add(at('responses', code), `${label}: ${code} is not a status code`);
      if (op['x-paginated'] === true) {
        const headers = Object.keys(
          (((responses ?? {})['200'] as Json | undefined)?.headers as Json | undefined) ?? {},
        ).map((h) => h.toLowerCase());
        const missing = PAGINATION_HEADERS.filter((h) => !headers.includes(h));
        if (missing.length)
          add(at('responses'), `${label}: paginated, but its 200 response lacks the headers ${missing.join(', ')}`);
      }
      const opParams = (Array.isArray(op.parameters) ? op.parameters : []) as Json[];
      const declared = [...pathLevel, ...opParams].filter((p) => p && p.in === 'path').map((p) => p.name as string);
      for (const name of templateParams)
        if (!declared.includes(name)) add(at(), `${label}: path parameter {${name}} is not declared`);
      for (const name of declared)
        if (!templateParams.includes(name))
          add(at(), `${label}: path parameter ${name} is declared but not in the path`);
      if (op.security !== undefined) {
        if (!Array.isArray(op.security)) add(at('security'), `${label}: security must be a list`);
        else
          (op.security as Json[]).forEach((requirement, i) => {
            for (const scheme of Object.keys(requirement ?? {}))
              if (!(scheme in securitySchemes)) add(at('security', i), `${label}: unknown security scheme ${scheme}`);
          });
      }
    }
    if (!operations) add(['paths', path], `path ${path} has no operation`);
  }
  // Extensions and references anywhere in the document.
  const walk = (node: unknown, path: (string | number)[]): void => {
    if (Array.isArray(node)) return node.forEach((v, i) => walk(v, [...path, i]));
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Json)) {
      const here = [...path, key];
      if (key === '$ref' && typeof value === 'string') {
        if (!value.startsWith('#/')) add(here, `$ref ${value}: only local references are allowed`);
        else if (resolvePointer(doc, value) === undefined) add(here, `$ref ${value} does not resolve`);
      } else if (key === 'x-rules') {
        if (!Array.isArray(value)) add(here, 'x-rules must be a list of rule ids');
        else checkRuleRefs(ctx, file, () => parsed.lineOf(here), value, 'x-rules');
      } else if (key === 'x-since' || key === 'x-until') {
        checkRelease(ctx, file, () => parsed.lineOf(here), value, key);
      } else if (key === 'x-flag') {
        if (typeof value !== 'string' || !ctx.flags.has(value)) add(here, `x-flag: unknown flag ${String(value)}`);
      } else if (key === 'x-source') {
        if (value !== 'not-shown') checkSource(ctx, file, () => parsed.lineOf(here), value, 'x-source');
      } else if (key === 'x-keyset') {
        const rule = (value as Json | undefined)?.rule;
        if (typeof rule !== 'string' || !ctx.knownRule(rule)) add(here, `x-keyset: unknown rule id ${String(rule)}`);
      } else if (key === 'mapping' && path[path.length - 1] === 'discriminator') {
        for (const [name, target] of Object.entries(value as Json)) {
          if (typeof target !== 'string' || resolvePointer(doc, target) === undefined)
            add([...here, name], `discriminator mapping ${name}: ${String(target)} does not resolve`);
        }
      }
      walk(value, here);
    }
  };
  walk(doc, []);
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function resolvePointer(doc: Json, ref: string): unknown {
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (!node || typeof node !== 'object' || !(key in (node as Json))) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

// -------------------------------------------------------------------------------------- source map
/** Which source items each map entry matches (by section and text piece). */
export function matchSourceMap(
  items: SourceItem[],
  entries: SourceMapEntry[],
): { byEntry: SourceItem[][]; byItem: number[][] } {
  const byEntry = entries.map(() => [] as SourceItem[]);
  const byItem = items.map(() => [] as number[]);
  items.forEach((item, ii) => {
    entries.forEach((entry, ei) => {
      const piece = item.kind === 'row' ? entry.row : item.kind === 'bullet' ? entry.bullet : entry.sentence;
      if (piece === undefined || !sectionMatches(entry.section, item.section)) return;
      if (item.text.includes(piece.replace(/`/g, ''))) {
        byEntry[ei].push(item);
        byItem[ii].push(ei);
      }
    });
  });
  return { byEntry, byItem };
}

function checkSourceMap(ctx: Context, parsed: ParsedYaml, entries: SourceMapEntry[], items: SourceItem[]): void {
  const { file } = parsed;
  entries.forEach((entry, i) => {
    checkRuleRefs(ctx, file, () => parsed.lineOf(['entries', i, 'rules']), entry.rules, `entry ${i + 1}`);
    if (ctx.headings.length && !ctx.headings.some((h) => sectionMatches(entry.section, h.path))) {
      ctx.problems.add(
        file,
        parsed.lineOf(['entries', i, 'section']),
        `entry ${i + 1}: section "${entry.section}" is not a heading of source-spec.md`,
      );
    }
  });
  const { byEntry, byItem } = matchSourceMap(items, entries);
  byEntry.forEach((matched, i) => {
    const what = entry(entries[i]);
    if (matched.length === 0)
      ctx.problems.add(
        file,
        parsed.lineOf(['entries', i]),
        `entry ${i + 1} (${what}) matches no ${entries[i].row !== undefined ? 'row' : entries[i].bullet !== undefined ? 'list item' : 'prose paragraph'} of source-spec.md`,
      );
    if (matched.length > 1)
      ctx.problems.add(
        file,
        parsed.lineOf(['entries', i]),
        `entry ${i + 1} (${what}) matches ${matched.length} items (lines ${matched.map((m) => m.line).join(', ')}): make it unique`,
      );
  });
  items.forEach((item, i) => {
    // A prose paragraph is mapped where it states something; unmapped ones are context.
    if (byItem[i].length === 0 && item.kind !== 'sentence') {
      ctx.problems.add(
        SPEC_FILES.sourceText,
        item.line,
        `${item.kind === 'row' ? 'table row' : 'list item'} under "${item.section}" has no entry in source-map.yaml: ${item.text.slice(0, 80)}`,
      );
    }
  });
}

const entry = (e: SourceMapEntry): string => `${e.section}: ${e.row ?? e.bullet ?? e.sentence}`;

// ------------------------------------------------------------------------------------------- entry
/**
 * Every problem of the spec folder (or of `source.dir` with `source.files` replacing some files):
 * schema violations, unknown references, machine defects, source-map gaps. Empty when clean.
 */
export function validateSpec(source: SpecSource | string = {}): Problem[] {
  return validateFiles(readSpecFiles(typeof source === 'string' ? { dir: source } : source));
}

/** validateSpec on files already read (relative path to text). */
export function validateFiles(files: SpecFiles): Problem[] {
  const problems = new Problems();
  const schemas = compileSchemas(files, problems);

  const rulesFile = load(files, SPEC_FILES.rules, problems);
  const profilesFile = load(files, SPEC_FILES.profiles, problems);
  const faultsFile = load(files, SPEC_FILES.faults, problems);
  const openapiFile = load(files, SPEC_FILES.openapi, problems);
  const mapFile = load(files, SPEC_FILES.sourceMap, problems);
  const machineParsed = machineFiles(files).map((f) => load(files, f, problems));

  const rulesOk = rulesFile && checkSchema(rulesFile, schemas.get(SCHEMA_FILES.rules), problems);
  const profilesOk = profilesFile && checkSchema(profilesFile, schemas.get(SCHEMA_FILES.profiles), problems);
  const faultsOk = faultsFile && checkSchema(faultsFile, schemas.get(SCHEMA_FILES.faults), problems);
  const mapOk = mapFile && checkSchema(mapFile, schemas.get(SCHEMA_FILES.sourceMap), problems);
  const machinesOk = machineParsed.map((m) => m && checkSchema(m, schemas.get(SCHEMA_FILES.machine), problems));
  const openapiDoc =
    openapiFile?.value && typeof openapiFile.value === 'object' ? (openapiFile.value as Json) : undefined;
  if (openapiFile && !openapiDoc) problems.add(openapiFile.file, 1, 'the document must be a mapping');

  const text = files.get(SPEC_FILES.sourceText);
  if (text === undefined)
    problems.add(SPEC_FILES.sourceText, 1, 'file is missing (vendored copy of the source document)');
  const sourceText = text === undefined ? { headings: [], items: [], prose: [] } : parseSourceText(text);

  const rules = rulesOk ? ((rulesFile.value as { rules: Rule[] }).rules ?? []) : [];
  const profiles = profilesOk ? (profilesFile.value as RawProfiles) : undefined;
  // Names come from the raw file even when its schema check failed, so one bad field in
  // profiles.yaml does not make every release and flag elsewhere look unknown.
  const rawProfiles = isObject(profilesFile?.value) ? profilesFile.value : {};
  const names = (key: string): string[] => (isObject(rawProfiles[key]) ? Object.keys(rawProfiles[key]) : []);
  const ruleIds = new Set<string>(rules.map((r) => r.id));
  const ctx: Context = {
    problems,
    knownRule: rulesOk ? (id) => ruleIds.has(id) : () => true,
    releases: names('releases'),
    flags: new Set(names('flags')),
    settings: new Set(names('settings')),
    schemas: new Set(Object.keys(((openapiDoc?.components as Json | undefined)?.schemas as Json | undefined) ?? {})),
    headings: sourceText.headings,
  };
  if (rulesOk) checkRules(ctx, rulesFile, rules);
  if (profilesOk) checkProfiles(ctx, profilesFile, profiles!);
  if (faultsOk) {
    const names = new Map<string, number>();
    ((faultsFile.value as { faults: Fault[] }).faults ?? []).forEach((fault, i) => {
      const line = faultsFile.lineOf(['faults', i, 'name']);
      if (names.has(fault.name))
        problems.add(faultsFile.file, line, `duplicate fault ${fault.name} (first at line ${names.get(fault.name)})`);
      else names.set(fault.name, line);
      checkRuleRefs(
        ctx,
        faultsFile.file,
        () => faultsFile.lineOf(['faults', i, 'rules']),
        fault.rules,
        `fault ${fault.name}`,
      );
    });
  }
  if (openapiDoc) checkOpenapi(ctx, openapiFile!, openapiDoc);
  machineParsed.forEach((parsed, i) => {
    if (parsed && machinesOk[i]) checkMachine(ctx, parsed, parsed.value as Machine);
  });
  if (!machineParsed.length) problems.add('machines/', 1, 'no machine files');
  if (mapOk)
    checkSourceMap(ctx, mapFile, (mapFile.value as { entries: SourceMapEntry[] }).entries, [
      ...sourceText.items,
      ...sourceText.prose,
    ]);

  return problems.list.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}
