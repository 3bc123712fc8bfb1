/**
 * The two judgements of the independent corpus (issue 21), one piece of code for the OAuth and the
 * REST API entries: an allowed variant changes no must verdict; a deviation is blamed on exactly
 * the rules whose sentence it breaks. Each entry runs only the checks it concerns.
 */
import { expect } from 'vitest';
import type { RunFlags } from '../../cli/run.js';
import type { Report } from '../../suites/report/model.js';
import type { HttpTargetOptions } from '../../suites/target/http.js';
import { blamed, explain, type OAuthProxy, type Rewrite } from './oauth-proxy.js';

export interface Variant {
  name: string;
  /** Where the source or the RFC allows it. */
  cite: string;
  checks: string[];
  /** Should rules the variant breaks on purpose (the must beside each still holds). */
  warns?: string[];
  /** Why the checks may never meet the variant (they no longer ask where it differs). */
  unseen?: string;
  rewrite: Rewrite;
  /** Flags of the run besides the checks (an offering, ...). */
  flags?: RunFlags;
  /** Checks the variant leaves untested on purpose (a premise it lacks), with their reason. */
  skips?: Record<string, RegExp>;
  /** What else must hold of the run. */
  after?: (report: Report) => void;
  /** Options of the run's HTTP target, made for each run (a virtual clock for the waits of a rate limit). */
  http?: () => HttpTargetOptions;
}

export interface Deviation {
  name: string;
  /** The sentence it breaks: source line or RFC section. */
  cite: string;
  checks: string[];
  /** Exactly the rules that must fail or warn. */
  breaks: string[];
  rewrite: Rewrite;
  /** Flags of the run besides the checks (another config, ...). */
  flags?: RunFlags;
  /** What else must hold of the run. */
  after?: (report: Report) => void;
  http?: () => HttpTargetOptions;
}

/** A label for it.each: the entry and where it comes from. */
export const labelled = <T extends { name: string; cite: string }>(entries: T[]) =>
  entries.map((e) => [`${e.name} (${e.cite})`, e] as const);

async function runWith(proxy: OAuthProxy, entry: Variant | Deviation) {
  proxy.use(entry.rewrite);
  const run = await proxy.run(entry.name.replace(/\W+/g, '-'), entry.checks, entry.flags, entry.http?.());
  const applied = proxy.applied();
  proxy.use(undefined);
  const errored = run.report.checks.filter((c) => c.status === 'errored').map((c) => `${c.id}: ${c.message}`);
  return { ...run, applied, errored, why: explain(run.report, run.stderr) };
}

/** No must failure, exit 0, no check errored, warnings only on the should rules it breaks on purpose. */
export async function expectAllowed(proxy: OAuthProxy, variant: Variant): Promise<void> {
  const { code, report, applied, errored, why } = await runWith(proxy, variant);
  const verdicts = blamed(report);
  if (!variant.unseen) expect(applied, `the variant was never applied\n${why}`).toBeGreaterThan(0);
  expect(
    verdicts.filter((v) => v.level === 'must').map((v) => `${v.check} ${v.rule}`),
    why,
  ).toEqual([]);
  // The should rules it breaks on purpose warn (they were judged), no other.
  expect([...new Set(verdicts.map((v) => v.rule))].sort(), why).toEqual([...(variant.warns ?? [])].sort());
  expect(errored).toEqual([]);
  expect(code, why).toBe(0);
  variant.after?.(report);
}

/** Exactly its rules fail or warn, and no check errored. */
export async function expectBlamed(proxy: OAuthProxy, deviation: Deviation): Promise<void> {
  const { report, applied, errored, why } = await runWith(proxy, deviation);
  expect(applied, `the deviation was never applied\n${why}`).toBeGreaterThan(0);
  expect([...new Set(blamed(report).map((v) => v.rule))].sort(), why).toEqual([...deviation.breaks].sort());
  expect(errored).toEqual([]);
  deviation.after?.(report);
}

/**
 * Whether an entry is in a fixed quarter of its table, by a hash of its name (FNV-1a): the sample
 * stays the same when entries are added elsewhere in the table, where one by position shifted.
 */
export function inQuarter(name: string): boolean {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return hash % 4 === 0;
}
