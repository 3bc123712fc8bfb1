/**
 * The project's own checks run over HTTP against a simulator, straight or behind
 * `idp-conformance proxy`: each run's per-rule report, and the proxy's. Shared by the verdict
 * tests (test/proxy/verdicts.test.ts, equality.test.ts).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { expect } from 'vitest';
import { startSimulation } from '../../cli/simulate.js';
import { executeProxy } from '../../cli/proxy.js';
import { executeRun, type RunFlags } from '../../cli/run.js';
import { targetConfig } from '../../simulator/control/config.js';
import type { Report } from '../../suites/report/model.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-proxy-'));

/** What one run selects: checks (each run alone, merged) or suites (one run). */
export type Selection = { checks: string[] } | { suite: string };

export interface Outcome {
  /** The runs' rules merged, worst status first; undefined rule status: no run judged it. */
  run: Report;
  /** The proxy's report and exit code; absent for a straight run. */
  proxy?: Report;
  proxyCode?: number;
}

/** The rule statuses of several run reports, worst first, as one report's rules would read. */
function merged(reports: Report[]): Report {
  const order = ['failed', 'warned', 'passed'];
  const rules = new Map<string, string>();
  for (const report of reports)
    for (const r of report.rules) {
      if (!order.includes(r.status)) continue;
      const before = rules.get(r.id);
      if (!before || order.indexOf(r.status) < order.indexOf(before)) rules.set(r.id, r.status);
    }
  return { rules: [...rules].map(([id, status]) => ({ id, status })) } as unknown as Report;
}

/** The selection run against `config` (written to a file, as a user would); its rules merged. */
export async function runAll(name: string, url: string, config: object, select: Selection, flags: RunFlags) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(config), { mode: 0o600 });
  const runs = 'checks' in select ? select.checks.map((check) => ({ check })) : [{ suite: select.suite }];
  const reports: Report[] = [];
  for (const [i, one] of runs.entries()) {
    const part = join(dir, `${name}-${i}.json`);
    const err: string[] = [];
    const code = await executeRun(
      { config: file, seed: '1', runs: '2', ...flags, ...one, report: `json=${part}` },
      { out: () => undefined, err: (t) => void err.push(t) },
      {},
    );
    expect(code, `${url}: ${err.join('')}`).not.toBe(2);
    reports.push(JSON.parse(readFileSync(part, 'utf8')) as Report);
  }
  return merged(reports);
}

export interface RecordingProxy {
  url: string;
  /** Stop it (as Ctrl-C would) and read its exit code and report. */
  finish(): Promise<{ proxyCode: number; proxy: Report; file: string }>;
  /** Stop it, whatever state it is in (cleanup). */
  stop(): void;
}

/** `idp-conformance proxy` in front of `target`, in-process, writing a JSON report when stopped. */
export async function recordingProxy(name: string, target: string): Promise<RecordingProxy> {
  let stop!: () => void;
  const stopped = new Promise<void>((r) => (stop = r));
  let announce!: (url: string) => void;
  const announced = new Promise<string>((r) => (announce = r));
  const file = join(dir, `${name}-proxy.json`);
  const running = executeProxy(
    { target, report: `json=${file}` },
    { out: (t) => void (t.startsWith('http://') && announce(t.trim())), err: () => undefined, stop: () => stopped },
  );
  return {
    url: await Promise.race([announced, running.then(() => Promise.reject(new Error('the proxy ended early')))]),
    async finish() {
      stop();
      const proxyCode = await running;
      return { proxyCode, proxy: JSON.parse(readFileSync(file, 'utf8')) as Report, file };
    },
    stop,
  };
}

/** Run the selection against a fresh simulator with `faults`, through the proxy unless `straight`. */
export async function runOnSimulator(
  name: string,
  faults: string[],
  select: Selection,
  { straight = false, flags = {} }: { straight?: boolean; flags?: RunFlags } = {},
): Promise<Outcome> {
  const { sim, served } = await startSimulation(
    { fault: faults },
    () => undefined,
    () => undefined,
  );
  try {
    if (straight) return { run: await runAll(name, served.url, targetConfig(sim, served.url), select, flags) };
    const proxy = await recordingProxy(name, served.url);
    try {
      // The proxy forwards the client's Host: the simulator's control API must answer it too.
      sim.options.controlHosts?.push(new URL(proxy.url).host);
      const run = await runAll(name, proxy.url, targetConfig(sim, proxy.url), select, flags);
      return { run, ...(await proxy.finish()) };
    } finally {
      proxy.stop();
    }
  } finally {
    await served.close();
  }
}

export const status = (report: Report, id: string) => report.rules.find((r) => r.id === id)?.status;
