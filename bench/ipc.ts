/**
 * The bench's processes talk over Node's IPC channel: the parent asks ({ id, type, ... }), the
 * child answers with the same id. Servers run in their own processes, pinned to one core where
 * `taskset` exists, so the load generator never shares the server's event loop or core.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startProfile, stopProfile } from './cpu-profile.js';

export interface Ask {
  id: number;
  type: string;
  [key: string]: unknown;
}

export const hasTaskset = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;

/** The core the servers run on; the load generator takes the others. */
export const SERVER_CORE = 0;

/** Keep this process (the load generator) off the servers' core when the machine has more than one. */
export function pinSelfAwayFromServer(cores: number): boolean {
  if (!hasTaskset || cores < 2) return false;
  const others = Array.from({ length: cores }, (_, i) => i).filter((c) => c !== SERVER_CORE);
  return spawnSync('taskset', ['-pc', others.join(','), String(process.pid)], { stdio: 'ignore' }).status === 0;
}

export interface Child {
  process: ChildProcess;
  ready: Record<string, unknown>;
  ask<T = Record<string, unknown>>(type: string, payload?: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

/** Start a Node script (pinned to the server core when possible) and wait for its `ready` message. */
export function startChild(script: string, args: string[] = [], nodeArgs: string[] = []): Promise<Child> {
  const node = [...nodeArgs, script, ...args];
  const [command, argv] = hasTaskset
    ? ['taskset', ['-c', String(SERVER_CORE), process.execPath, ...node]]
    : [process.execPath, node];
  const proc = spawn(command, argv, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let next = 1;
  const waiting = new Map<number, (value: Record<string, unknown>) => void>();
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    proc.on('message', (message: Record<string, unknown>) => {
      if (message.type === 'ready') {
        proc.removeAllListeners('exit');
        resolve({
          process: proc,
          ready: message,
          ask: (type, payload = {}) =>
            new Promise((answer) => {
              const id = next++;
              waiting.set(id, answer as (value: Record<string, unknown>) => void);
              proc.send({ id, type, ...payload });
            }),
          stop: () =>
            new Promise((done) => {
              if (proc.exitCode !== null) return done();
              proc.once('exit', () => done());
              proc.kill('SIGTERM');
            }),
        });
        return;
      }
      const answer = waiting.get(message.id as number);
      waiting.delete(message.id as number);
      answer?.(message);
    });
  });
}

/**
 * Child side: answer the parent's questions, then say ready. Every child answers `cpu`: the CPU
 * time it used so far (µs), which divided by the requests answered stays comparable on a busy
 * machine where requests per second do not.
 */
export function serveAsks(answer: (ask: Ask) => Promise<Record<string, unknown>> | Record<string, unknown>): void {
  process.on('message', (ask: Ask) => {
    Promise.resolve(ask.type === 'cpu' ? { ...process.cpuUsage() } : answer(ask))
      .then((reply) => process.send!({ ...reply, id: ask.id }))
      .catch((error: Error) => process.send!({ id: ask.id, error: error.message }));
  });
  process.on('SIGTERM', () => process.exit(0));
  // A parent that died (a bench script that failed on its next step) never asks again: without this
  // the server outlived it, holding the script's stdout open, so the run never ended.
  process.on('disconnect', () => process.exit(0));
}

/**
 * `run` (a load on `server`) and the server's CPU time per request it answered meanwhile, in µs
 * (user + system, from its `cpu` ask): comparable on a busy machine where requests per second are
 * not. NaN from a child that answers no `cpu` ask (an older build's bench).
 */
export async function withServerCpu<T extends { requests: number }>(
  server: Child,
  run: () => Promise<T>,
): Promise<{ result: T; cpu: number }> {
  const before = await server.ask<{ user: number; system: number }>('cpu');
  const result = await run();
  const after = await server.ask<{ user: number; system: number }>('cpu');
  return { result, cpu: (after.user + after.system - before.user - before.system) / result.requests };
}

/**
 * A bench server's answers: its memory, a CPU profile taken while the load runs, and whatever
 * else `more` knows (an unknown ask is an error the parent sees).
 */
export function serveServerAsks(
  more: (ask: Ask) => Promise<Record<string, unknown>> | Record<string, unknown> = (ask) => {
    throw new Error(`unknown ask ${ask.type}`);
  },
): void {
  serveAsks((ask) => {
    if (ask.type === 'memory') return memory();
    if (ask.type === 'profile-start') return startProfile();
    if (ask.type === 'profile-stop') return stopProfile(String(ask.file));
    return more(ask);
  });
}

/**
 * The fixed answers of the bare server and the adapter alone, by `METHOD path`: a JSON string of
 * the size the simulator answers that request with (argv[2]: JSON { "METHOD path": bytes }).
 */
export function fixedBodies(): Map<string, string> {
  const sizes = JSON.parse(process.argv[2] ?? '{}') as Record<string, number>;
  return new Map(Object.entries(sizes).map(([key, size]) => [key, `"${'x'.repeat(Math.max(0, size - 2))}"`]));
}

/** A bench server on a free loopback port: it answers the parent's asks, then says ready with its URL. */
export function listenForBench(server: Server): void {
  server.listen(0, '127.0.0.1', () => {
    serveServerAsks();
    process.send!({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
}

/** How long memory() lets the process settle between its two collections (BENCH_SETTLE_MS: the smoke test's shorter wait). */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 1000);

/**
 * Memory after a full collection (the child runs with --expose-gc), so every reading is taken in
 * the same state: what is still referenced, not what garbage the load left. `gc()` without
 * arguments: Node 20's V8 takes `gc({ type: 'major', execution: 'sync' })` for a request it does
 * not run at once (2 million dead objects: heapUsed 188 MiB before, 184 after; plain `gc()`: 3),
 * which is how the heap read "after eviction" came out larger than after the load. The process is
 * then given a moment and collected again: V8 sweeps and gives pages back to the system on
 * background threads after a collection returns, so RSS read at once still counts freed memory.
 */
export async function memory(): Promise<{ rss: number; heapUsed: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await new Promise((settled) => setTimeout(settled, SETTLE_MS));
  gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed };
}

/** Run a Node script to its end (pinned like the servers) and parse the JSON of its last stdout line. */
export function runJson<T>(script: string, args: string[] = [], env: Record<string, string> = {}): Promise<T> {
  const [command, argv] = hasTaskset
    ? ['taskset', ['-c', String(SERVER_CORE), process.execPath, script, ...args]]
    : [process.execPath, [script, ...args]];
  const proc = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  let out = '';
  proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${script} exited with ${code}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1)!) as T);
      } catch {
        reject(new Error(`${script} printed no JSON result`));
      }
    });
  });
}

/** Milliseconds from spawning a command until it prints its first line of stdout; then it is stopped. */
export function timeToFirstLine(args: string[]): Promise<number> {
  const [command, argv] = hasTaskset
    ? ['taskset', ['-c', String(SERVER_CORE), process.execPath, ...args]]
    : [process.execPath, args];
  const start = performance.now();
  const proc = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before printing`)));
    proc.stdout.once('data', () => {
      const ms = performance.now() - start;
      proc.removeAllListeners('exit');
      proc.once('exit', () => resolve(ms));
      proc.kill('SIGTERM');
    });
  });
}

/** Milliseconds a command takes to its end (its output discarded); rejects on a crash, not on exit code 1. */
export function timeToExit(args: string[]): Promise<{ ms: number; code: number | null }> {
  const start = performance.now();
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => proc.once('exit', (code) => resolve({ ms: performance.now() - start, code })));
}
