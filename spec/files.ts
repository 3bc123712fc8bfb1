/**
 * The spec folder as text: which files make up the spec, reading them from a folder (with
 * in-memory replacements, so tests can validate a broken copy without touching disk), and
 * parsing YAML while keeping line numbers for problems.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';

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

export const SPEC_FILES = {
  openapi: 'openapi.yaml',
  rules: 'rules.yaml',
  profiles: 'profiles.yaml',
  faults: 'faults.yaml',
  sourceMap: 'source-map.yaml',
  sourceText: 'source-spec.md',
} as const;

export const SCHEMA_FILES = {
  rules: 'rules.schema.json',
  machine: 'machine.schema.json',
  profiles: 'profiles.schema.json',
  faults: 'faults.schema.json',
  sourceMap: 'source-map.schema.json',
  targetConfig: 'target-config.schema.json',
  expect: 'expect.schema.json',
} as const;

export const MACHINES_DIR = 'machines';

/** Relative path (forward slashes) to file text. */
export type SpecFiles = Map<string, string>;

export interface SpecSource {
  /** Folder to read; default the package's spec folder. */
  dir?: string;
  /** Files that replace (or add to) those of `dir`, by relative path; `null` removes one. */
  files?: Record<string, string | null>;
}

export function readSpecFiles(source: SpecSource = {}): SpecFiles {
  const dir = source.dir ?? specDir();
  const files: SpecFiles = new Map();
  const names = [...Object.values(SPEC_FILES), ...Object.values(SCHEMA_FILES)];
  for (const name of names) {
    const path = join(dir, name);
    if (existsSync(path)) files.set(name, readFileSync(path, 'utf8'));
  }
  const machinesDir = join(dir, MACHINES_DIR);
  if (existsSync(machinesDir)) {
    for (const name of readdirSync(machinesDir).sort()) {
      if (name.endsWith('.yaml')) files.set(`${MACHINES_DIR}/${name}`, readFileSync(join(machinesDir, name), 'utf8'));
    }
  }
  for (const [name, text] of Object.entries(source.files ?? {})) {
    if (text === null) files.delete(name);
    else files.set(name, text);
  }
  return files;
}

export function machineFiles(files: SpecFiles): string[] {
  return [...files.keys()].filter((f) => f.startsWith(`${MACHINES_DIR}/`) && f.endsWith('.yaml')).sort();
}

/** A parsed YAML file that can tell the line of any node. */
export interface ParsedYaml {
  file: string;
  doc: Document;
  value: unknown;
  /** Line (1-based) of the node at `path`, or of its nearest existing ancestor. */
  lineOf(path: ReadonlyArray<string | number>): number;
  /** YAML syntax errors with their lines. */
  errors: { line: number; message: string }[];
}

export function parseYaml(file: string, text: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const errors = doc.errors.map((e) => ({
    line: lineCounter.linePos(e.pos[0]).line,
    message: e.message.split('\n')[0],
  }));
  // The line of a mapping entry is the line of its key ("responses:"), not of its first child.
  const lineOf = (path: ReadonlyArray<string | number>): number => {
    let node: unknown = doc.contents;
    let line = 1;
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === segment);
        if (!pair) break;
        const keyRange = (pair.key as { range?: [number, number, number] } | null)?.range;
        if (keyRange) line = lineCounter.linePos(keyRange[0]).line;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number' && node.items[segment] !== undefined) {
        node = node.items[segment];
        const range = (node as { range?: [number, number, number] }).range;
        if (range) line = lineCounter.linePos(range[0]).line;
      } else break;
    }
    return line;
  };
  return { file, doc, value: errors.length ? undefined : doc.toJS({ maxAliasCount: 100 }), lineOf, errors };
}
