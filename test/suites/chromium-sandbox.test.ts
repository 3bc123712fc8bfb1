/**
 * When the browser driver starts Chromium without its sandbox (suites/drivers/sandbox.ts), with a
 * fake launch: as root (Chromium refuses it one), and as another user only when the sandboxed
 * launch failed for want of a sandbox, as Chromium says in the launch log Playwright quotes. Any
 * other failure (a crash, a launch that hung until Playwright's timeout) is the user's to see, not
 * a reason to drop the sandbox; a fallback is said on one line. Runs everywhere, root or not.
 */
import { describe, expect, it } from 'vitest';
import { launchChromium, sandboxFor } from '../../suites/drivers/sandbox.js';

/** A fake launch failing sandboxed with `error` (or not at all), and what it was asked. */
function fakeStart(error?: Error) {
  const asked: boolean[] = [];
  const start = (sandbox: boolean) => {
    asked.push(sandbox);
    return sandbox && error ? Promise.reject(error) : Promise.resolve(`browser, sandbox ${sandbox}`);
  };
  return { asked, start };
}

/** Playwright's launch error: its message, then Chromium's log. */
const launchError = (first: string, log: string) =>
  new Error(`${first}\nBrowser logs:\n\n<launching> /usr/bin/chromium --headless\n[pid=4242][err] ${log}\n`);

describe('launching Chromium', () => {
  it('root gets no sandbox (Chromium refuses it), any other user one', () => {
    expect([sandboxFor(0), sandboxFor(1000), sandboxFor(65534)]).toEqual([false, true, true]);
  });

  it('sandboxed as a user, without as root, and says nothing', async () => {
    for (const [uid, sandbox] of [
      [1000, true],
      [0, false],
    ] as const) {
      const { asked, start } = fakeStart();
      const said: string[] = [];
      expect(await launchChromium(start, { uid, warn: (line) => said.push(line) })).toBe(`browser, sandbox ${sandbox}`);
      expect({ asked, said }).toEqual({ asked: [sandbox], said: [] });
    }
  });

  it.each([
    [
      'No usable sandbox',
      'No usable sandbox! Update your kernel or see https://chromium.googlesource.com/.../linux/suid_sandbox_development.md',
    ],
    [
      'the setuid sandbox',
      'FATAL:setuid_sandbox_host.cc(158)] The SUID sandbox helper binary was found, but is not configured correctly.',
    ],
    [
      'no namespace',
      'FATAL:zygote_host_impl_linux.cc(128)] Failed to move to new namespace: PID namespaces supported, Network namespace supported, but failed: errno = Operation not permitted',
    ],
  ])('a sandboxed launch that fails for want of a sandbox (%s): started again without, said once', async (_, log) => {
    const { asked, start } = fakeStart(
      launchError('browserType.launch: Target page, context or browser has been closed', log),
    );
    const said: string[] = [];
    expect(await launchChromium(start, { uid: 1000, warn: (line) => said.push(line) })).toBe('browser, sandbox false');
    expect(asked).toEqual([true, false]);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/without its sandbox/);
    expect(said[0]).not.toMatch(/\n/);
  });

  it.each([
    [
      'crashes',
      launchError('browserType.launch: Target page, context or browser has been closed', 'Segmentation fault'),
    ],
    [
      'hangs until the timeout',
      new Error(
        'browserType.launch: Timeout 30000ms exceeded.\nCall log:\n  - <launching> /usr/bin/chromium --headless',
      ),
    ],
    [
      'is missing a library',
      launchError('browserType.launch: Failed to launch', 'error while loading shared libraries: libnss3.so'),
    ],
  ])('a sandboxed launch that %s: that error, never a launch without the sandbox', async (_, error) => {
    const { asked, start } = fakeStart(error);
    const said: string[] = [];
    await expect(launchChromium(start, { uid: 1000, warn: (line) => said.push(line) })).rejects.toBe(error);
    expect({ asked, said }).toEqual({ asked: [true], said: [] });
  });
});
