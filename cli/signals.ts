/**
 * How the commands stop on SIGINT, SIGTERM and SIGHUP: a run stops its running check and still
 * reports; a server closes and writes its report. SIGHUP is the terminal closing (or an SSH session
 * dropping) under a long `proxy` or `run`: before, it killed the process and what it had judged was
 * lost (review 30). GNU timeout signals the process, then its group, so the same signal twice at
 * once is one request.
 */
type Signal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';
const SIGNALS: readonly Signal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The same signal again within this long is the same request (GNU timeout signals the process, then its group). */
export const SIGNAL_REPEAT_MS = 1000;
/** After the first signal, how long the running check has to stop and revoke before the run leaves anyway. */
export const STOP_GRACE_MS = 5000;

/**
 * Ctrl-C during a run (and a diff): the first signal stops the running check at its next request,
 * revokes its tokens, skips the rest and still reports; a second one leaves now.
 */
export function watchSignals(io: { err: (text: string) => void }): {
  stopRequested: () => Signal | undefined;
  /** Aborted at the first signal: what waits with no tokens to revoke (the probe) stops at once. */
  stop: AbortSignal;
  /** Aborted when the run must leave now (a second signal, or the first unfinished after the grace). */
  abandon: AbortSignal;
  release(): void;
} {
  // The first signal stops the running check at its next request, revokes its tokens, skips the
  // rest and still reports. A second one (not the same one repeated at once), or the first one
  // unfinished after STOP_GRACE_MS, leaves now: the running check is abandoned, and the reports
  // of what finished are written all the same.
  let interrupted: Signal | undefined;
  let firstAt = 0;
  const leave = new AbortController();
  const first = new AbortController();
  let grace: NodeJS.Timeout | undefined;
  const onSignal = (signal: Signal) => {
    if (!interrupted) {
      interrupted = signal;
      firstAt = Date.now();
      io.err(`\nidp-conformance: ${signal}: stopping after the running request; revoking its tokens\n`);
      first.abort();
      grace = setTimeout(() => {
        io.err(`idp-conformance: the running check did not stop within ${STOP_GRACE_MS} ms; leaving now\n`);
        leave.abort();
      }, STOP_GRACE_MS).unref();
      return;
    }
    if (signal === interrupted && Date.now() - firstAt < SIGNAL_REPEAT_MS) return;
    if (leave.signal.aborted) return;
    io.err(`idp-conformance: ${signal} again; leaving now, without revoking the tokens of the running check\n`);
    leave.abort();
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  return {
    stopRequested: () => interrupted,
    stop: first.signal,
    abandon: leave.signal,
    release: () => {
      clearTimeout(grace);
      if (interrupted) absorbRepeat(interrupted, firstAt);
      for (const signal of SIGNALS) process.off(signal, onSignal);
    },
  };
}

/**
 * Once a command is done with a signal, its repeat may still be on its way (GNU timeout sends it
 * once the first is handled). With no listener left Node would let it kill the process between the
 * written reports and the exit, with no exit code: a listener absorbs it for the rest of the window.
 */
function absorbRepeat(signal: Signal, since: number): void {
  const left = since + SIGNAL_REPEAT_MS - Date.now();
  if (left <= 0) return;
  const absorb = () => undefined;
  process.on(signal, absorb);
  setTimeout(() => process.off(signal, absorb), left).unref();
}

/** The first SIGINT, SIGTERM or SIGHUP; its repeat is absorbed while the command closes and reports. */
export function untilSignal(): Promise<Signal> {
  return new Promise((resolve) => {
    const stop = (signal: Signal) => {
      absorbRepeat(signal, Date.now());
      for (const s of SIGNALS) process.off(s, stop);
      resolve(signal);
    };
    for (const s of SIGNALS) process.on(s, stop);
  });
}
