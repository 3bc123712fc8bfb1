/**
 * The repository every project serves: a real-looking nested file tree, its branches and tags.
 * The REST tree/file/branch/tag endpoints read it, and simulator/git writes the very same files
 * into the bare repository behind Git over HTTPS, so both views agree.
 */
import { NOUNS, hashString, mix, objectHex, pick } from './hash.js';

export interface RepoFile {
  path: string;
  content: string;
}

export interface TreeEntry {
  id: string;
  name: string;
  type: 'tree' | 'blob';
  path: string;
  mode: string;
}

const MODULES = ['auth', 'billing', 'cache', 'config', 'http', 'jobs', 'search', 'storage'];

/** The files of the default branch. Paths deliberately include a space and a `+` (encoding checks). */
export function repositoryFiles(seed: number, projectId: number): RepoFile[] {
  const h = mix(seed, 91, projectId);
  const files: RepoFile[] = [
    { path: 'README.md', content: `# Project ${projectId}\n\nA ${pick(NOUNS, h)} service.\n` },
    { path: 'LICENSE', content: 'MIT License\n' },
    { path: 'package.json', content: `{\n  "name": "project-${projectId}",\n  "version": "1.0.0"\n}\n` },
    { path: '.gitlab-ci.yml', content: 'stages: [build, test, deploy]\n' },
    { path: 'docs/getting started.md', content: '# Getting started\n' },
    { path: 'docs/api/index.md', content: '# API\n' },
    { path: 'docs/api/pagination.md', content: '# Pagination\n' },
    { path: 'src/c++/parser.cc', content: 'int main() { return 0; }\n' },
    { path: 'src/index.ts', content: "export * from './lib/index.js';\n" },
    { path: 'src/lib/index.ts', content: MODULES.map((m) => `export * from './${m}/index.js';`).join('\n') + '\n' },
  ];
  for (const [k, m] of MODULES.entries()) {
    files.push({
      path: `src/lib/${m}/index.ts`,
      content: `export const ${m} = ${mix(seed, 92, projectId, k) % 1000};\n`,
    });
    files.push({ path: `src/lib/${m}/${m}.test.ts`, content: `import { ${m} } from './index.js';\n` });
  }
  files.push({ path: 'test/fixtures/sample.json', content: '{"ok": true}\n' });
  return files.sort((a, b) => (a.path < b.path ? -1 : 1));
}

export const BRANCHES = ['main', 'develop', 'feature/login-page'];
export const TAGS = ['v1.0.0', 'v1.1.0', 'release/2024.01'];

function objectId(seed: number, projectId: number, path: string): string {
  return objectHex(seed, 93, projectId, hashString(path));
}

/**
 * Entries directly under `dir` ('' = root), or every entry below it when recursive; trees first,
 * then blobs, each by name (the order the real service lists). null when `dir` is not a directory.
 */
export function treeEntries(
  files: RepoFile[],
  seed: number,
  projectId: number,
  dir: string,
  recursive: boolean,
): TreeEntry[] | null {
  const prefix = dir === '' ? '' : `${dir.replace(/(?<!\/)\/+$/, '')}/`;
  const entries = new Map<string, TreeEntry>();
  for (const file of files) {
    if (!file.path.startsWith(prefix)) continue;
    const rest = file.path.slice(prefix.length).split('/');
    const depth = recursive ? rest.length : 1;
    for (let d = 1; d <= depth; d++) {
      const path = prefix + rest.slice(0, d).join('/');
      const type = d === rest.length ? 'blob' : 'tree';
      if (!entries.has(path)) {
        entries.set(path, {
          id: objectId(seed, projectId, path),
          name: rest[d - 1],
          type,
          path,
          mode: type === 'tree' ? '040000' : '100644',
        });
      }
    }
  }
  if (prefix !== '' && entries.size === 0) return null;
  return [...entries.values()].sort((a, b) =>
    a.type !== b.type ? (a.type === 'tree' ? -1 : 1) : a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
}

export function blobId(seed: number, projectId: number, path: string): string {
  return objectId(seed, projectId, path);
}
