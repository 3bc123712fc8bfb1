/**
 * The judgement shared by the compound-deviation explorations (fault-pairs.ts, compounds.ts): a
 * compound is blamed on the union of its parts' blames, and where it is not, the table says how.
 */
import type { Report } from '../suites/report/model.js';
import { createRandom } from '../suites/runner/random.js';

/** One compound's run, judged against its parts. */
export interface Judged {
  name: string;
  /** The rules the parts may be blamed for (declared). */
  allowed: Set<string>;
  /** The rules the parts were blamed for, each alone. */
  expected: Set<string>;
  /** The rules the compound was blamed for. */
  blamed: Set<string>;
  /** Checks errored in the compound and in none of its parts alone. */
  errored: string[];
}

/** The rules a report fails or warns: each failed or warned check's broken rules, each failure's. */
export function blamedRules(report: Report): Set<string> {
  const out = new Set<string>();
  for (const check of report.checks)
    if (check.status === 'failed' || check.status === 'warned')
      for (const f of check.failures ?? [{ broken: check.broken ?? check.rules }])
        for (const rule of f.broken) out.add(rule);
  return out;
}

/** `count` of `items`, the same ones for the same seed (a seeded Fisher-Yates prefix). */
export function seededSample<T>(items: readonly T[], count: number, seed: number): T[] {
  const random = createRandom(seed);
  const copy = [...items];
  const n = Math.min(count, copy.length);
  for (let i = 0; i < n; i++) {
    const j = i + random.int(copy.length - i);
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, n);
}

/** The table row of a compound that breaks the union, or undefined. */
export function unionRow(j: Judged): string | undefined {
  const extra = [...j.blamed].filter((r) => !j.allowed.has(r));
  const missing = [...j.expected].filter((r) => !j.blamed.has(r));
  if (extra.length || missing.length || j.errored.length)
    return `| ${j.name} | ${extra.join(', ')} | ${missing.join(', ')} | ${j.errored.join(', ')} |`;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;

/** The table of the compounds that break the union (extra, missing, errored) and the run times. */
export function unionTable(judged: Judged[], timesMs: number[]): string {
  const rows = judged.flatMap((j) => unionRow(j) ?? []);
  const total = timesMs.reduce((a, b) => a + b, 0);
  return [
    `${judged.length} compounds run, ${rows.length} break the union; ${timesMs.length} runs in ${(total / 1000).toFixed(0)} s, median ${(median(timesMs) / 1000).toFixed(2)} s a run`,
    '',
    '| compound | extra rules | missing rules | errored checks |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

/**
 * A run a signal stopped (Ctrl-C reaches the run, which finishes its check and marks the report) is
 * no verdict on its compound: judged, its unreached checks read as missing rules. The exploration
 * ends there, with the table of what it judged before.
 */
export function endIfInterrupted(name: string, report: Report, judged: Judged[], timesMs: number[]): void {
  const signal = stopSignal(report);
  if (!signal) return;
  process.stderr.write(`${name}: stopped by ${signal}; the run it stopped is not judged\n`);
  process.stdout.write(unionTable(judged, timesMs));
  process.exit(signal === 'SIGINT' ? 130 : 143);
}

let caught: 'SIGINT' | 'SIGTERM' | undefined;

/** The signal that stops the exploration after this run: the run's own, or one kept outside any run. */
export function stopSignal(report: Report): string | undefined {
  return report.interrupted ?? caught;
}

/**
 * Keep a signal that comes while no run listens for it (before a run's handler is set, or between
 * two runs): without a listener Node ended the exploration at once, with no table and no line, where
 * a Ctrl-C 300 ms after the start on a busy machine landed (explore-interrupted.test.ts failed so
 * under load). endIfInterrupted then stops after the run under way, which it does not judge.
 */
export function keepSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void (caught ??= signal));
}
