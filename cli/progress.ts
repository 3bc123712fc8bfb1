/**
 * Progress while a run goes: on a terminal one line that rewrites itself; elsewhere (CI logs,
 * pipes) one line per area when the area is done, never one per check. Quiet prints nothing.
 */
import type { CheckResult } from '../suites/report/model.js';
import { countStatuses } from '../reporters/text.js';
import { terminalSafe } from '../reporters/console.js';

export interface ProgressOptions {
  write: (text: string) => void;
  /** stderr is a terminal: rewrite one line in place. */
  tty: boolean;
  quiet: boolean;
}

export interface Progress {
  /** A line of its own: the run's first (target, release, seed, number of checks), or a notice on the way. */
  start(line: string): void;
  result(result: CheckResult, index: number, total: number): void;
  /** Clear the live line, so what follows starts on a clean line. */
  done(): void;
}

const counts = (items: CheckResult[]) => {
  const c = countStatuses(items);
  return Object.entries(c)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
};

export function createProgress({ write, tty, quiet }: ProgressOptions): Progress {
  if (quiet) return { start() {}, result() {}, done() {} };
  let area: string | undefined;
  let inArea: CheckResult[] = [];
  let live = false;
  const flushArea = () => {
    if (area !== undefined && inArea.length) write(`${terminalSafe(area)}: ${counts(inArea)}\n`);
    inArea = [];
  };
  return {
    start(line) {
      // A terminal's live line is cleared first, so the notice does not run on from it.
      write(`${live ? '\r\u001b[2K' : ''}${terminalSafe(line)}\n`);
      live = false;
    },
    result(result, index, total) {
      if (tty) {
        const all = `[${index + 1}/${total}] ${result.status.padEnd(7)} ${result.id}`;
        // A pty may report 0 columns (unknown): taken as 80, as when it reports none.
        const width = Math.max(20, (process.stderr.columns || 80) - 1);
        write(`\r\u001b[2K${terminalSafe(all).slice(0, width)}`);
        live = true;
        return;
      }
      if (result.suite !== area) {
        flushArea();
        area = result.suite;
      }
      inArea.push(result);
      if (index + 1 === total) flushArea();
    },
    done() {
      if (live) write('\r\u001b[2K');
      live = false;
      if (!tty) flushArea();
    },
  };
}
