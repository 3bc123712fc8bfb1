/**
 * The package as a user gets it: `npm pack`, installed into an empty project, runs
 * `npx idp-conformance run --suite grants` and the README's library imports from there. Slow (an
 * npm install): opt in with IDP_PACK_TEST=1 (.ci/run does). The checks on the tarball's contents
 * and on the dependencies always run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
};
/** Every npm child stays bounded: a hung install fails the test instead of hanging it. */
const NPM_TIMEOUT_MS = 150_000;

function packedFiles(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: NPM_TIMEOUT_MS,
  });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
}

/** Package names a compiled module imports (static and dynamic), relative and node: ones left out. */
function importedPackages(source: string): string[] {
  // A specifier has no spaces: prose such as `refreshed from' : 'asked for` in a message is none.
  const specs = [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"\s]+)['"]/g)].map((m) => m[1]);
  return specs
    .filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtinModules.includes(s))
    .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]));
}

describe('the tarball', () => {
  const files = packedFiles();

  it('carries the CLI, the compiled library and the spec data, and no tests', () => {
    expect(files).toContain('dist/cli/main.js');
    expect(files).toContain('dist/simulator/msw.js');
    expect(files).toContain('spec/rules.yaml');
    expect(files).toContain('reporters/report.schema.json'.replace(/^/, 'dist/'));
    const tests = files.filter((f) => /(^|\/)test\/|\.test\.|(^|\/)suites\/vitest\.|fixture\.ts$|^examples\//.test(f));
    expect(tests).toEqual([]);
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  });

  it('needs at run time only what dependencies (or optional ones) install', () => {
    const runtime = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})]);
    const missing = new Map<string, string>();
    for (const file of files.filter((f) => f.endsWith('.js')))
      for (const name of importedPackages(readFileSync(join(ROOT, file), 'utf8')))
        if (!runtime.has(name) && name !== pkg.name) missing.set(name, file);
    expect(Object.fromEntries(missing)).toEqual({});
  });

  it('the import scan can fail: it sees static and dynamic imports of packages', () => {
    expect(importedPackages(`import a from 'vitest'; const b = await import("@scope/x/y"); import './z.js';`)).toEqual([
      'vitest',
      '@scope/x',
    ]);
  });
});

describe.skipIf(!process.env.IDP_PACK_TEST)(
  process.env.IDP_PACK_TEST ? 'installed from the tarball' : 'installed from the tarball (opt in: IDP_PACK_TEST=1)',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-pack-'));
    const project = join(dir, 'project');
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const sh = (cmd: string, args: string[], cwd = project) => {
      const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: NPM_TIMEOUT_MS, env: { ...process.env, CI: '' } });
      return { code: r.status, out: r.stdout ?? '', err: `${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
    };

    beforeAll(() => {
      // npm test built dist just before; packing without scripts takes that build as it is.
      const packed = sh('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], ROOT);
      expect(packed.code, packed.err).toBe(0);
      const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
      sh('mkdir', ['-p', project], dir);
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'probe', private: true, type: 'module' }));
      const installed = sh('npm', [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--ignore-scripts',
        join(dir, tarball),
      ]);
      expect(installed.code, installed.err).toBe(0);
    }, NPM_TIMEOUT_MS + 30_000);

    it('npx idp-conformance run --suite grants passes against the embedded simulator', () => {
      const r = sh('npx', ['--no-install', 'idp-conformance', 'run', '--suite', 'grants', '--runs', '5', '--seed', '1']);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/^PASS \([^)]*\): 0 failed/m);
    }, 120_000);

    it("the README's library imports work: the simulator over HTTP and through msw", () => {
      writeFileSync(
        join(project, 'use.mjs'),
        `import { createSimulator, serve } from 'idp-conformance/simulator';
import { simulatorHandlers } from 'idp-conformance/simulator/msw';
import { setupServer } from 'msw/node';
const sim = createSimulator({ release: '17.1', clock: { frozen: true } });
const { url, close } = await serve(sim);
const overHttp = await fetch(url + '/.well-known/openid-configuration');
await close();
const server = setupServer(...simulatorHandlers(sim, 'http://idp.test'));
server.listen({ onUnhandledRequest: 'error' });
const viaMsw = await fetch('http://idp.test/.well-known/openid-configuration');
server.close();
console.log(JSON.stringify({ http: overHttp.status, msw: viaMsw.status, issuer: (await viaMsw.json()).issuer }));
`,
      );
      const r = sh('node', ['use.mjs']);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out.trim())).toEqual({ http: 200, msw: 200, issuer: 'http://idp.test' });
    }, 60_000);
  },
);
