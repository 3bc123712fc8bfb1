/**
 * The browser driver runs a hostile provider's scripts on the user's machine: Chromium plays them
 * in its own sandbox wherever it can have one, so a page that took over its renderer is held there.
 * It was started with --no-sandbox everywhere (a flag for containers, where Chromium runs as root
 * and refuses a sandbox). The driver's module in a child process (the build, as npm test makes
 * it), which reads the flags Chromium's own process was started with: as an unprivileged user
 * (nobody, when this runs as root), and as one on a machine with no sandbox to give
 * (a Chromium that ends at once without --no-sandbox: the driver starts it again without).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHROMIUM, sandboxFor } from '../../suites/drivers/browser.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
const DRIVER = fileURLToPath(new URL('../../dist/suites/drivers/browser.js', import.meta.url));
const ROOT = process.getuid?.() === 0;
/** Who plays as an unprivileged user: this process's own, or nobody's when this runs as root. */
const NOBODY = /^nobody:[^:]*:(\d+):(\d+):/m.exec(existsSync('/etc/passwd') ? readFileSync('/etc/passwd', 'utf8') : '');
/**
 * Whether nobody can read the build and playwright-core: not in a checkout under a folder only root
 * may enter (`mktemp -d` makes one 0700), where the child could not even load the driver.
 */
const nobodyReads = (): boolean =>
  spawnSync(
    process.execPath,
    [
      '-e',
      "const f = require('node:fs'); f.accessSync(process.argv[1]); f.accessSync(require('node:module').createRequire(process.argv[1]).resolve('playwright-core'))",
      DRIVER,
    ],
    { uid: Number(NOBODY![1]), gid: Number(NOBODY![2]), cwd: '/', stdio: 'ignore' },
  ).status === 0;
const CAN_RUN =
  existsSync(CHROMIUM) && existsSync('/proc/self/cmdline') && (!ROOT || (NOBODY !== null && nobodyReads()));

const dir = mkdtempSync(join(tmpdir(), 'idp-sandbox-'));
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

function play(chromium = CHROMIUM): Promise<{ noSandbox?: boolean; canSandbox?: boolean; text?: string; err: string }> {
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
      try {
        resolve({ ...(JSON.parse(out) as { noSandbox: boolean; canSandbox: boolean; text: string }), err: '' });
      } catch {
        resolve({ err: `${out}\n${err}`.slice(0, 2000) });
      }
    }),
  );
}

describe('whether Chromium gets its sandbox', () => {
  it('root gets none (Chromium refuses it), any other user one', () => {
    expect([sandboxFor(0), sandboxFor(1000), sandboxFor(65534)]).toEqual([false, true, true]);
  });
});

describe.skipIf(!CAN_RUN)('the browser driver’s Chromium, started by the built module', () => {
  it('as an unprivileged user: sandboxed where this machine can sandbox, and it plays the page', async () => {
    const played = await play();
    expect(played).toMatchObject({ text: 'played', err: '' });
    expect(played.noSandbox).toBe(!played.canSandbox);
  }, 60_000);

  it('where no sandbox can start (Chromium ends at once): started again without, and it plays', async () => {
    const wrapper = join(dir, 'chromium-without-sandbox');
    writeFileSync(
      wrapper,
      `#!/bin/sh\nfor a in "$@"; do [ "$a" = --no-sandbox ] && exec "${CHROMIUM}" "$@"; done\necho 'No usable sandbox!' >&2\nexit 1\n`,
    );
    chmodSync(wrapper, 0o755);
    expect(await play(wrapper)).toEqual({ noSandbox: true, canSandbox: false, text: 'played', err: '' });
  }, 60_000);
});
