/**
 * The browser driver runs a hostile provider's scripts on the user's machine: Chromium plays them
 * in its own sandbox wherever it can have one, so a page that took over its renderer is held there.
 * The driver's module in a child process (the build, as npm test makes it), which reads the flags
 * Chromium's own process was started with: as an unprivileged user (nobody, when this runs as
 * root), as one on a machine with no sandbox to give (a Chromium that says so and ends without
 * --no-sandbox: the driver starts it again without and says so on stderr), and with a Chromium
 * failing otherwise (never started again without; the error quotes Chromium's last line). Where
 * these cannot run (no Chromium, no build or one older than the driver's sources, root in a
 * checkout nobody may read, as CI's mktemp -d folder) their title says why; the launch
 * decision itself is test/suites/chromium-sandbox.test.ts's, which runs everywhere.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHROMIUM } from '../../suites/drivers/browser.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
const DRIVER = fileURLToPath(new URL('../../dist/suites/drivers/browser.js', import.meta.url));
const ROOT = process.getuid?.() === 0;
/** Who plays as an unprivileged user: this process's own, or nobody's when this runs as root. */
const NOBODY = /^nobody:[^:]*:(\d+):(\d+):/m.exec(existsSync('/etc/passwd') ? readFileSync('/etc/passwd', 'utf8') : '');

const dir = mkdtempSync(join(tmpdir(), 'idp-sandbox-'));
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Whether nobody can read the build and playwright-core, and enter and read the child's cwd and
 * HOME: not in a checkout under a folder only root may enter (`mktemp -d` makes one 0700), where
 * the child could not even load the driver. R_OK: a file that exists is not one nobody may read.
 */
const nobodyReads = (): boolean =>
  spawnSync(
    process.execPath,
    [
      '-e',
      `const f = require('node:fs'); const [driver, home] = process.argv.slice(1);
f.accessSync(driver, f.constants.R_OK);
f.accessSync(require('node:module').createRequire(driver).resolve('playwright-core'), f.constants.R_OK);
f.accessSync(home, f.constants.R_OK | f.constants.X_OK);`,
      DRIVER,
      dir,
    ],
    { uid: Number(NOBODY![1]), gid: Number(NOBODY![2]), cwd: '/', stdio: 'ignore' },
  ).status === 0;

/** The sources these cases test: the build of each is what the child runs. */
const TESTED = ['suites/drivers/browser.ts', 'suites/drivers/sandbox.ts'];

/** The first tested source edited after its build (which would test the code as it was), or undefined. */
function staleBuild(): string | undefined {
  const mtime = (path: string) => statSync(fileURLToPath(new URL(`../../${path}`, import.meta.url))).mtimeMs;
  return TESTED.find(
    (source) =>
      !existsSync(fileURLToPath(new URL(`../../dist/${source.replace(/\.ts$/, '.js')}`, import.meta.url))) ||
      mtime(source) > mtime(`dist/${source.replace(/\.ts$/, '.js')}`),
  );
}

/** Why the Chromium cases cannot run here, or undefined: said in their title, never skipped unseen. */
function cannotRun(): string | undefined {
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM}`;
  if (!existsSync(DRIVER)) return `no build at ${DRIVER} (npm run build)`;
  const stale = staleBuild();
  if (stale) return `the build is older than ${stale} (npm run build)`;
  if (!existsSync('/proc/self/cmdline')) return "no /proc to read Chromium's flags from";
  if (!ROOT) return undefined;
  if (NOBODY === null) return 'running as root, with no user nobody to play as';
  if (!nobodyReads())
    return `running as root, and nobody cannot read the build, playwright-core or ${dir} (a checkout under a folder only root may enter, as mktemp -d makes)`;
  return undefined;
}
const SKIP = cannotRun();

/**
 * Borrow the driver's Chromium, play a page, say whether Chromium was started with --no-sandbox
 * and, if so, whether this machine could have given it a sandbox at all (a sandboxed launch of its own).
 */
const CHILD = `
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const { borrowBrowser } = await import(process.env.DRIVER);
const { browser } = await borrowBrowser();
const session = await browser.newBrowserCDPSession();
const { processInfo } = await session.send('SystemInfo.getProcessInfo');
const pid = processInfo.find((p) => p.type === 'browser').id;
const noSandbox = readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').includes('--no-sandbox');
const page = await browser.newPage();
await page.setContent('<p>played</p>');
const { chromium } = createRequire(process.env.DRIVER)('playwright-core');
const canSandbox = !noSandbox || (await chromium
  .launch({ executablePath: process.env.IDP_CHROMIUM, chromiumSandbox: true, args: ['--headless'] })
  .then((b) => b.close().then(() => true), () => false));
console.log(JSON.stringify({ noSandbox, canSandbox, text: await page.textContent('p') }));
process.exit(0);
`;

interface Played {
  noSandbox?: boolean;
  canSandbox?: boolean;
  text?: string;
  /** Whether the driver said, on stderr, that it runs Chromium without its sandbox. */
  said?: boolean;
  err: string;
}

function play(chromium = CHROMIUM): Promise<Played> {
  const user = ROOT ? { uid: Number(NOBODY![1]), gid: Number(NOBODY![2]) } : {};
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
    ...user,
    cwd: dir,
    env: { ...process.env, DRIVER, IDP_CHROMIUM: chromium, HOME: dir, XDG_CONFIG_HOME: dir, XDG_CACHE_HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  return new Promise((resolve) =>
    child.on('exit', () => {
      const said = /without its sandbox/.test(err);
      try {
        resolve({ ...(JSON.parse(out) as { noSandbox: boolean; canSandbox: boolean; text: string }), said, err: '' });
      } catch {
        resolve({ said, err: `${out}\n${err}`.slice(0, 2000) });
      }
    }),
  );
}

/** A Chromium that starts only with --no-sandbox, and otherwise writes `say` and ends at once. */
function chromiumSaying(name: string, say: string): string {
  const wrapper = join(dir, name);
  writeFileSync(
    wrapper,
    `#!/bin/sh\nfor a in "$@"; do [ "$a" = --no-sandbox ] && exec "${CHROMIUM}" "$@"; done\necho '${say}' >&2\nexit 1\n`,
  );
  chmodSync(wrapper, 0o755);
  return wrapper;
}

describe.skipIf(SKIP !== undefined)(
  SKIP === undefined
    ? 'the browser driver’s Chromium, started by the built module'
    : `the browser driver’s Chromium, started by the built module: skipped, ${SKIP}`,
  () => {
    it('as an unprivileged user: sandboxed where this machine can sandbox (else said), and it plays the page', async () => {
      const played = await play();
      expect(played).toMatchObject({ text: 'played', err: '' });
      expect(played.noSandbox).toBe(!played.canSandbox);
      expect(played.said).toBe(played.noSandbox);
    }, 60_000);

    it('where no sandbox can start (Chromium says so and ends): started again without, said, and it plays', async () => {
      expect(await play(chromiumSaying('chromium-without-sandbox', 'No usable sandbox!'))).toEqual({
        noSandbox: true,
        canSandbox: false,
        text: 'played',
        said: true,
        err: '',
      });
    }, 60_000);

    it('where Chromium fails for another reason: the driver says that, and never starts it without its sandbox', async () => {
      const played = await play(chromiumSaying('chromium-broken', 'Segmentation fault'));
      expect(played.said).toBe(false);
      // Chromium's own last line, not only Playwright's "browser has been closed".
      expect(played.err).toMatch(/could not start Chromium at [^\n]*: [^\n]*\(Chromium: Segmentation fault\)/);
    }, 60_000);
  },
);
