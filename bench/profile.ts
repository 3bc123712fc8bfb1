/**
 * `npm run bench:profile -- [words…] [--seconds N] [--top N]`: the simulator's server and the
 * bare one under autocannon load, one bench case at a time (those whose label contains one of the
 * words; all without), with a CPU profile of the measured load only; prints req/s, CPU time per
 * request of each, and the top self-time functions (share, and µs per request). The gap between
 * the two servers' µs per request is what the simulator adds. The profiles stay in
 * .tmp/profiles/ (open them in Chrome DevTools).
 *
 * `--against DIST` (a copy of another build's dist/; copy this build's dist/bench/*.js into it for
 * its CPU figures) compares instead: both simulators in their
 * own process on the same core, taking turns case by case for `--rounds` rounds, and prints the
 * median req/s and CPU µs per request of each, and their ratios. Same machine, same moment: the
 * ratios are what to read, and on a busy machine the CPU per request more than req/s.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArguments } from './args.js';
import { casesFor, CONNECTIONS, measureSizes, type Case, type TargetConfigLike } from './cases.js';
import { readProfile, type Profile } from './cpu-profile.js';
import { pinSelfAwayFromServer, startChild, withServerCpu, type Child } from './ipc.js';
import { load, type LoadRequest, type LoadResult } from './load.js';
import { availableParallelism } from 'node:os';

const HERE = dirname(fileURLToPath(import.meta.url));
const USAGE =
  'usage: npm run bench:profile -- [words…] [--seconds N] [--top N] [--against DIST] [--rounds N]\n' +
  "  words: profile only the cases whose label contains one (all without); see bench/profile.ts's header\n";

const { values, positionals } = benchArguments(
  'bench:profile',
  USAGE,
  {
    seconds: { type: 'string', default: '5' },
    top: { type: 'string', default: '25' },
    against: { type: 'string' },
    rounds: { type: 'string', default: '3' },
  },
  ['seconds', 'top', 'rounds'],
);
const SECONDS = Number(values.seconds);
const OUT = resolve('.tmp/profiles');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (x: number) => `${(100 * x).toFixed(1).padStart(5)}%`;

async function simulator(script: string): Promise<{ child: Child; url: string; cases: Case[] }> {
  const child = await startChild(script);
  const url = child.ready.url as string;
  const config = (await (await fetch(`${url}/-/simulator/config`)).json()) as TargetConfigLike;
  const cases = casesFor(child, url, config).filter(
    (c) => positionals.length === 0 || positionals.some((word) => c.label.includes(word)),
  );
  if (cases.length === 0) throw new Error(`no case's label contains ${positionals.join(' or ')}`);
  return { child, url, cases };
}

async function rate(url: string, c: Case, seconds: number, request?: LoadRequest): Promise<LoadResult> {
  const expect = request ? 200 : c.expect;
  const result = await load(url, request ?? (await c.build.sim!()), { connections: CONNECTIONS, seconds, expect });
  if (result.unexpected) process.stderr.write(`  ${c.label}: ${result.unexpected} answers were not ${expect}\n`);
  return result;
}

/** Load `server` with the case (warm-up first), profiling only the measured run. */
async function profiled(server: Child, c: Case, name: string, request?: LoadRequest) {
  const url = server.ready.url as string;
  await rate(url, c, 1, request); // warm-up: compiled code, not the first calls, is what the profile should show
  await server.ask('profile-start');
  const { result, cpu } = await withServerCpu(server, () => rate(url, c, SECONDS, request));
  const file = join(OUT, `${c.label.replace(/[^\w]+/g, '-').replace(/^-|-$/g, '')}.${name}.cpuprofile`);
  await server.ask('profile-stop', { file });
  return { result, file, cpu, ...readProfile(JSON.parse(readFileSync(file, 'utf8')) as Profile) };
}

async function profileEach(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const { child, url, cases } = await simulator(join(HERE, 'sim-server.js'));
  const sizes = await measureSizes(url, cases);
  const bare = await startChild(join(HERE, 'bare-server.js'), [
    JSON.stringify(Object.fromEntries([...sizes.values()].map((s) => [s.key, s.size]))),
  ]);
  const top = Number(values.top);
  const n = (x: number) => Math.round(x).toLocaleString('en');
  try {
    for (const [i, c] of cases.entries()) {
      const sim = await profiled(child, c, 'sim');
      const base = await profiled(bare, c, 'bare', sizes.get(c)!.req);
      // Shares of the profile's busy time (sampled on the wall clock) spread over the CPU time per request.
      const [simCost, bareCost] = [sim.cpu, base.cpu];
      process.stdout.write(
        `\n## ${c.label}: simulator ${n(sim.result.rps)} req/s, ${simCost.toFixed(1)} µs CPU per request; ` +
          `bare ${n(base.result.rps)} req/s, ${bareCost.toFixed(1)} µs (sim / bare: ${(sim.result.rps / base.result.rps).toFixed(2)} by req/s, ${(bareCost / simCost).toFixed(2)} by CPU)\n` +
          `profiles: ${sim.file}, ${base.file}\n\n`,
      );
      process.stdout.write(`simulator, self time by function (top ${top}; µs per request)\n`);
      for (const f of sim.functions.slice(0, top))
        process.stdout.write(`${pct(f.share)} ${(f.share * simCost).toFixed(1).padStart(6)}  ${f.name}\n`);
      process.stdout.write(`\nsimulator, self time by file (top ${Math.min(top, 15)})\n`);
      for (const f of sim.files.slice(0, Math.min(top, 15)))
        process.stdout.write(`${pct(f.share)} ${(f.share * simCost).toFixed(1).padStart(6)}  ${f.name}\n`);
      process.stdout.write(`\nbare server, self time by function (top 10)\n`);
      for (const f of base.functions.slice(0, 10))
        process.stdout.write(`${pct(f.share)} ${(f.share * bareCost).toFixed(1).padStart(6)}  ${f.name}\n`);
      process.stderr.write(`profiled ${i + 1} of ${cases.length}: ${c.label}\n`);
    }
  } finally {
    await Promise.all([child.stop(), bare.stop()]);
  }
}

/** Requests per second and the server's CPU µs per request (user + system) of one run. */
async function measured(server: Child, c: Case): Promise<{ rps: number; cpu: number }> {
  const { result, cpu } = await withServerCpu(server, () => rate(server.ready.url as string, c, SECONDS));
  return { rps: result.rps, cpu };
}

async function compare(base: string): Promise<void> {
  const ours = await simulator(join(HERE, 'sim-server.js'));
  const theirs = await simulator(join(resolve(base), 'bench', 'sim-server.js'));
  const rounds = Number(values.rounds);
  const n = (x: number) => Math.round(x).toLocaleString('en');
  // An older build's bench answers no `cpu` ask: its CPU cells stay empty.
  const cell = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '');
  try {
    process.stdout.write(
      `| case | this build req/s | ${base} req/s | this / that | this build CPU µs per request | ${base} CPU µs | that / this |\n` +
        `| --- | --- | --- | --- | --- | --- | --- |\n`,
    );
    for (const [i, c] of ours.cases.entries()) {
      const other = theirs.cases.find((t) => t.label === c.label)!;
      const mine: { rps: number; cpu: number }[] = [];
      const that: { rps: number; cpu: number }[] = [];
      await rate(ours.url, c, 1);
      await rate(theirs.url, other, 1);
      for (let r = 0; r < rounds; r++) {
        // Alternate who goes first, so a slow moment of the shared machine does not always hit the same one.
        if (r % 2) that.push(await measured(theirs.child, other));
        mine.push(await measured(ours.child, c));
        if (!(r % 2)) that.push(await measured(theirs.child, other));
        process.stderr.write(
          `compared ${c.label}: round ${r + 1} of ${rounds} (case ${i + 1} of ${ours.cases.length})\n`,
        );
      }
      const [a, b] = [median(mine.map((m) => m.rps)), median(that.map((m) => m.rps))];
      const [ca, cb] = [median(mine.map((m) => m.cpu)), median(that.map((m) => m.cpu))];
      process.stdout.write(
        `| ${c.label} | ${n(a)} | ${n(b)} | ${(a / b).toFixed(2)} | ${cell(ca)} | ${cell(cb)} | ${cell(cb / ca, 2)} |\n`,
      );
    }
  } finally {
    await Promise.all([ours.child.stop(), theirs.child.stop()]);
  }
}

pinSelfAwayFromServer(availableParallelism());
(typeof values.against === 'string' ? compare(values.against) : profileEach()).catch((error: Error) => {
  process.stderr.write(`bench:profile: ${error.message}\n`);
  process.exit(1);
});
