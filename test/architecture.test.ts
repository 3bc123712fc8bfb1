/**
 * The layers hold: the dependency rules (.dependency-cruiser.cjs, run by `npm run depcheck` in
 * `npm test`) report a wrong arrow with its sentence, and the built simulator entry loads no
 * harness code and no msw. Needs `npm run build` (npm test builds first).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');
const scratch = mkdtempSync(join(tmpdir(), 'idp-layers-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function writeTree(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

describe('dependency rules', () => {
  it('report each deliberately wrong import with the sentence naming its arrow', () => {
    const dir = join(scratch, 'wrong');
    writeTree(dir, {
      'reporters/types.ts': 'export const x = 1;\n',
      'suites/runner/run.ts': "import { x } from '../../reporters/types.js';\nexport const y = x;\n",
      'simulator/pages/layout.ts': "export const SEL = 'button';\n",
      'suites/drivers/browser.ts': "import { SEL } from '../../simulator/pages/layout.js';\nexport const s = SEL;\n",
      'suites/target/embedded.ts': "import { SEL } from '../../simulator/pages/layout.js';\nexport const e = SEL;\n",
      'simulator/core.ts': "import { y } from '../suites/runner/run.js';\nexport const z = y;\n",
      'cli/errors.ts': 'export class UsageError extends Error {}\n',
      'reporters/index.ts': "import { UsageError } from '../cli/errors.js';\nexport const u = UsageError;\n",
      'spec/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'spec/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    });
    cpSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
    const run = spawnSync(
      DEPCRUISE,
      [
        'spec',
        'simulator',
        'suites',
        'reporters',
        'cli',
        '--config',
        join(ROOT, '.dependency-cruiser.cjs'),
        '--output-type',
        'err-long',
      ],
      { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
    );
    const output = run.stdout + run.stderr;
    expect(run.status, output).not.toBe(0);
    for (const [rule, arrow] of [
      ['suites-not-up', 'suites/runner/run.ts → reporters/types.ts'],
      ['suites-not-simulator', 'suites/drivers/browser.ts → simulator/pages/layout.ts'],
      ['embedded-loads-simulator-lazily', 'suites/target/embedded.ts → simulator/pages/layout.ts'],
      ['simulator-not-harness', 'simulator/core.ts → suites/runner/run.ts'],
      ['reporters-not-cli', 'reporters/index.ts → cli/errors.ts'],
      ['no-circular', 'spec/a.ts'],
    ])
      expect(output, output).toContain(`error ${rule}: ${arrow}`);
    expect(output).toContain('simulator must not depend on the harness');
  }, 120_000);
});

/** Import `specifier` from the package root in a fresh Node and list every file URL it loaded. */
function loadedBy(specifier: string): string[] {
  const log = join(scratch, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(log, '');
  const hooks = [
    "import { appendFileSync } from 'node:fs';",
    'export async function load(url, context, next) {',
    '  appendFileSync(process.env.IDP_LOADED_LOG, url + "\\n");',
    '  return next(url, context);',
    '}',
  ].join('\n');
  const script = [
    "import { register } from 'node:module';",
    `register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}));`,
    `await import(${JSON.stringify(specifier)});`,
  ].join('\n');
  execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    env: { ...process.env, IDP_LOADED_LOG: log },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

const HARNESS = /\/dist\/(suites|reporters|cli|bench)\//;
const MSW = /\/node_modules\/msw\//;

describe('idp-conformance/simulator loads alone', () => {
  it('loads the simulator and spec, and no module of suites/, reporters/, cli/ or msw', () => {
    const loaded = loadedBy('idp-conformance/simulator');
    expect(loaded.some((url) => url.includes('/dist/simulator/core.js'))).toBe(true);
    expect(loaded.filter((url) => HARNESS.test(url) || MSW.test(url))).toEqual([]);
  }, 60_000);

  it('the main entry loads no msw either', () => {
    const loaded = loadedBy('idp-conformance');
    expect(loaded.some((url) => url.includes('/dist/simulator/index.js'))).toBe(true);
    expect(loaded.filter((url) => HARNESS.test(url) || MSW.test(url))).toEqual([]);
  }, 60_000);

  it('sees msw when idp-conformance/simulator/msw is imported (the probe can tell)', () => {
    const loaded = loadedBy('idp-conformance/simulator/msw');
    expect(loaded.some((url) => MSW.test(url))).toBe(true);
  }, 60_000);
});
