import { inert } from '../diff/shape.js';

/**
 * Whether Chromium runs in its own sandbox: the provider's scripts run in it, and a hostile
 * provider's page that took over its renderer is held there, not loose in the user's account (it
 * ran without one everywhere: the flag was for containers). Chromium will not start one as root.
 */
export const sandboxFor = (uid = process.getuid?.()): boolean => uid !== 0;

/** Starts Chromium with or without its sandbox (Playwright's launch). */
export type StartChromium<B> = (sandbox: boolean) => Promise<B>;

/**
 * What Chromium says when this machine gives it no sandbox (no user namespaces in a container, a
 * setuid helper not set up, root inside a user namespace), or Playwright's own line when it saw
 * that, in the launch error Playwright throws (its "Browser logs", then its "Call log").
 */
const NO_SANDBOX_HERE =
  /No usable sandbox|\b(?:setuid|SUID) sandbox\b|Failed to move to new namespace|Chromium sandboxing failed!|Running as root without --no-sandbox is not supported|crbug\.com\/(?:357670|638180)/i;

/** Characters of Chromium's last log line a launch error quotes. */
const LOG_LINE_SHOWN = 200;

/**
 * The last line Chromium wrote on stderr, in Playwright's launch error ("Call log", one
 * `  - [pid=N][err] …` line each, dimmed with ANSI codes), without its log prefix
 * (`[pid:tid:time:ERROR:file.cc:103]`), printable and cut; undefined when it wrote none.
 */
export function lastChromiumError(message: string): string | undefined {
  const lines = message
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((line) => /^\s*- \[pid=\d+\]\[err\] (.*)$/.exec(line)?.[1])
    .filter((line): line is string => line !== undefined && line.trim() !== '');
  const last = lines.at(-1)?.replace(/^\[[^\]]*\]\s*/, '');
  return last === undefined ? undefined : inert(last, LOG_LINE_SHOWN);
}

/**
 * Starts Chromium sandboxed where sandboxFor says so, and again without only when the sandboxed
 * launch failed for want of a sandbox, saying so on one line (`warn`). Any other failure (a crash,
 * a launch that hung until its timeout) is thrown: it is no reason to drop the sandbox unseen.
 */
export async function launchChromium<B>(
  start: StartChromium<B>,
  { uid, warn }: { uid?: number; warn: (line: string) => void },
): Promise<B> {
  if (!sandboxFor(uid)) return start(false);
  try {
    return await start(true);
  } catch (error) {
    const said = String((error as Error)?.message ?? error);
    const why = NO_SANDBOX_HERE.exec(said);
    if (!why) throw error;
    warn(
      `idp-conformance: Chromium could not start its sandbox here ("${why[0]}"): running it without its sandbox, so a provider's page that takes over its renderer is not held (see the README)`,
    );
    return start(false);
  }
}
