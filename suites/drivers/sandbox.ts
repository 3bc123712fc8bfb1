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
 * setuid helper not set up), in the launch log Playwright's error quotes.
 */
const NO_SANDBOX_HERE = /No usable sandbox|\b(?:setuid|SUID) sandbox\b|Failed to move to new namespace/i;

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
