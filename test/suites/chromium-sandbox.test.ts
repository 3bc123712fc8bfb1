/**
 * When the browser driver starts Chromium without its sandbox (suites/drivers/sandbox.ts), with a
 * fake launch: as root (Chromium refuses it one), and as another user only when the sandboxed
 * launch failed for want of a sandbox, as Chromium says in the launch log Playwright quotes. Any
 * other failure (a crash, a launch that hung until Playwright's timeout) is the user's to see, not
 * a reason to drop the sandbox; a fallback is said on one line. Runs everywhere, root or not.
 */
import { describe, expect, it } from 'vitest';
import { lastChromiumError, launchChromium, sandboxFor } from '../../suites/drivers/sandbox.js';

/** A fake launch failing sandboxed with `error` (or not at all), and what it was asked. */
function fakeStart(error?: Error) {
  const asked: boolean[] = [];
  const start = (sandbox: boolean) => {
    asked.push(sandbox);
    return sandbox && error ? Promise.reject(error) : Promise.resolve(`browser, sandbox ${sandbox}`);
  };
  return { asked, start };
}

/** Playwright's box in place of "Browser logs" when Chromium's output names a sandbox failure. */
const PLAYWRIGHT_SANDBOX_BOX = `Chromium sandboxing failed!
================================
To avoid the sandboxing issue, do either of the following:
  - (preferred): Configure your environment to support sandboxing
  - (alternative): Launch Chromium without sandbox using 'chromiumSandbox: false' option
================================
`;

/**
 * Playwright's launch error as playwright-core 1.5x throws it (captured as root with
 * chromiumSandbox: true): its message, its "Browser logs" (its own box, when it recognised a
 * sandbox failure), then its "Call log", every line dimmed with ANSI codes, Chromium's stderr as
 * `[pid=N][err]` lines (Debian's wrapper script writes one of its own first).
 */
const launchError = (first: string, chromiumSaid: string, browserLogs?: string) =>
  new Error(
    [
      first,
      ...(browserLogs === undefined ? [] : ['Browser logs:', browserLogs]),
      'Call log:',
      ...[
        '<launching> /usr/bin/chromium --disable-background-networking --headless --user-data-dir=/tmp/playwright_chromiumdev_profile-L9nBU2 --remote-debugging-pipe --no-startup-window',
        '<launched> pid=6242',
        '[pid=6242][err] /usr/bin/chromium: 9: [: 25325268992: unexpected operator',
        `[pid=6242][err] ${chromiumSaid}`,
        '[pid=6242] <gracefully close start>',
        '[pid=6242] <kill>',
        '[pid=6242] <process did exit: exitCode=1, signal=null>',
        '[pid=6242] <gracefully close end>',
      ].map((line) => `\u001b[2m  - ${line}\u001b[22m`),
      '',
    ].join('\n'),
  );
const CLOSED = 'browserType.launch: Target page, context or browser has been closed';

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
    // Root inside a user namespace (a container that maps its user to root): as Playwright reports it, and its parts alone.
    [
      'root, as Playwright reports it',
      '[6242:6242:1126/214617.813126:ERROR:content/browser/zygote_host/zygote_host_impl_linux.cc:103] Running as root without --no-sandbox is not supported. See https://crbug.com/638180.',
      PLAYWRIGHT_SANDBOX_BOX,
    ],
    ['root, Chromium alone', 'Running as root without --no-sandbox is not supported. See https://crbug.com/638180.'],
    ["Playwright's box alone", 'Check failed: sandbox.', PLAYWRIGHT_SANDBOX_BOX],
  ])(
    'a sandboxed launch that fails for want of a sandbox (%s): started again without, said once',
    async (_, log, box?) => {
      const { asked, start } = fakeStart(launchError(CLOSED, log, box));
      const said: string[] = [];
      expect(await launchChromium(start, { uid: 1000, warn: (line) => said.push(line) })).toBe(
        'browser, sandbox false',
      );
      expect(asked).toEqual([true, false]);
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(/without its sandbox/);
      expect(said[0]).not.toMatch(/\n/);
    },
  );

  it.each([
    ['crashes', launchError(CLOSED, 'Segmentation fault', '\n')],
    [
      'hangs until the timeout',
      new Error(
        'browserType.launch: Timeout 30000ms exceeded.\nCall log:\n  - <launching> /usr/bin/chromium --headless',
      ),
    ],
    [
      'is missing a library',
      launchError(
        'browserType.launch: Failed to launch',
        '/usr/lib/chromium/chromium: error while loading shared libraries: libnss3.so: cannot open shared object file',
      ),
    ],
  ])('a sandboxed launch that %s: that error, never a launch without the sandbox', async (_, error) => {
    const { asked, start } = fakeStart(error);
    const said: string[] = [];
    await expect(launchChromium(start, { uid: 1000, warn: (line) => said.push(line) })).rejects.toBe(error);
    expect({ asked, said }).toEqual({ asked: [true], said: [] });
  });

  it("quotes the last line Chromium wrote, without its log prefix, printable and cut (the launch error's first line is Playwright's)", () => {
    const said = (error: Error) => lastChromiumError(error.message);
    expect(said(launchError(CLOSED, 'Segmentation fault'))).toBe('Segmentation fault');
    expect(
      said(launchError(CLOSED, '[1:1:1126/214617.8:ERROR:zygote_host_impl_linux.cc:103] Running as root. See x.')),
    ).toBe('Running as root. See x.');
    expect(said(launchError(CLOSED, `\u001b]52;c;AAAA\u0007${'x'.repeat(300)}`))).toMatch(/^\?\]52;c;AAAA\?x+…$/);
    expect(
      said(new Error('browserType.launch: Timeout 30000ms exceeded.\nCall log:\n  - <launching> /usr/bin/chromium')),
    ).toBe(undefined);
  });
});
