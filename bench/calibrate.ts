/**
 * `npm run bench:calibrate -- [words…] [--seconds N] [--rounds N]`: what a bench ratio means on
 * this machine. Beside the bare server run bare servers that spin W µs of CPU before each answer
 * ("bare + W µs"), all under the bench's load, on a GET row and a POST row of the bench (or the
 * rows whose label holds one of the words); beside them the simulator's adapter alone (as in
 * `npm run bench`), the simulator, and the simulator's own in-process cost of the same request (a
 * warm loop of `sim.answer`, no socket).
 *
 * Why: sim / bare is not linear in the work a server adds. Over loopback on a VM, a server that
 * answers more slowly also pays more per answer in the kernel (the load generator, idle in
 * between, must be woken for each answer), so W µs of work cost more than W µs. The "bare + W"
 * rows measure that curve; where the simulator's in-process cost falls on it tells how much of its
 * gap to bare is its own work and how much the HTTP path adds (issue 20 item 7; README, Performance).
 */
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArguments } from './args.js';
import { casesFor, CONNECTIONS, measureSizes, type TargetConfigLike } from './cases.js';
import { pinSelfAwayFromServer, startChild, withServerCpu, type Child } from './ipc.js';
import { load, type LoadRequest } from './load.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const USAGE =
  'usage: npm run bench:calibrate -- [words…] [--seconds N] [--rounds N] [--spins W,W,…]\n' +
  '  words: only the bench rows whose label contains one (default: the key set and the pending poll)\n' +
  '  --spins: the µs of work of the "bare + W" servers (default 0,5,10,20,40; 0, the bare server, is always run)\n';
const { values, positionals } = benchArguments(
  'bench:calibrate',
  USAGE,
  {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    spins: { type: 'string', default: '0,5,10,20,40' },
  },
  ['seconds', 'rounds'],
);
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const WORDS = positionals.length ? positionals : ['discovery/keys', 'device poll'];
/** Microseconds of work the "bare + W" servers add per request, ascending, the bare server (0) first. */
const SPINS = [...new Set([0, ...String(values.spins).split(',').map(Number)])].sort((a, b) => a - b);
if (SPINS.some((w) => !Number.isFinite(w) || w < 0)) {
  process.stderr.write(`bench:calibrate: --spins takes microseconds (numbers from 0), comma-separated\n${USAGE}`);
  process.exit(2);
}
/** Requests per run instead of seconds (the smoke test's: it judges no figure). */
const REQUESTS = process.env.BENCH_REQUESTS ? Number(process.env.BENCH_REQUESTS) : undefined;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const n = (x: number) => Math.round(x).toLocaleString('en');

/** One load run: req/s, and the server's CPU µs per request (user + system). */
async function measured(server: Child, request: LoadRequest, expect: number, seconds: number) {
  const { result, cpu } = await withServerCpu(server, () =>
    load(server.ready.url as string, request, {
      connections: CONNECTIONS,
      seconds,
      expect,
      ...(REQUESTS ? { amount: REQUESTS } : {}),
    }),
  );
  if (result.unexpected) process.stderr.write(`  ${result.unexpected} answers were not ${expect}\n`);
  return { rps: result.rps, cpu };
}

/** The ratio a server W µs slower than bare reaches, read off the measured curve (linear between points). */
function onCurve(curve: { w: number; ratio: number }[], w: number): number | undefined {
  for (let i = 1; i < curve.length; i++) {
    const [a, b] = [curve[i - 1], curve[i]];
    if (w >= a.w && w <= b.w) return a.ratio + ((b.ratio - a.ratio) * (w - a.w)) / (b.w - a.w);
  }
  return undefined;
}

async function main(): Promise<void> {
  pinSelfAwayFromServer(availableParallelism());
  const sim = await startChild(join(HERE, 'sim-server.js'), [], ['--expose-gc']);
  const bares: Child[] = [];
  let floor: Child | undefined;
  try {
    const url = sim.ready.url as string;
    const config = (await (await fetch(`${url}/-/simulator/config`)).json()) as TargetConfigLike;
    const cases = casesFor(sim, url, config).filter((c) => WORDS.some((word) => c.label.includes(word)));
    if (cases.length === 0) throw new Error(`no bench row's label contains ${WORDS.join(' or ')}`);
    const sizes = await measureSizes(url, cases);
    const sizeArg = JSON.stringify(Object.fromEntries([...sizes.values()].map((s) => [s.key, s.size])));
    for (const w of SPINS) bares.push(await startChild(join(HERE, 'bare-server.js'), [sizeArg, String(w)]));
    floor = await startChild(join(HERE, 'floor-server.js'), [sizeArg]);

    for (const c of cases) {
      const fixed = sizes.get(c)!.req;
      type Served = { name: string; added: string; child: Child; request: () => Promise<LoadRequest>; expect: number };
      const servers: Served[] = [
        ...bares.map((child, i) => ({
          name: SPINS[i] ? `bare + ${SPINS[i]} µs` : 'bare',
          added: `${SPINS[i]} µs`,
          child,
          request: async () => fixed,
          expect: 200,
        })),
        {
          name: 'adapter alone',
          added: 'reading the request as the simulator does (bench/floor-server.ts)',
          child: floor,
          request: async () => fixed,
          expect: 200,
        },
        { name: 'simulator', added: '', child: sim, request: () => c.build.sim!(), expect: c.expect },
      ];
      const runs = new Map<string, { rps: number; cpu: number }[]>();
      // A warm-up run each: compiled code, not first calls, is what is measured.
      for (const s of servers) await measured(s.child, await s.request(), s.expect, Math.min(1, SECONDS));
      for (let round = 0; round < ROUNDS; round++) {
        // Each round in another order, so a slow moment of the machine does not always hit the same server.
        const turn = servers.map((_, i) => servers[(i + round) % servers.length]);
        for (const s of turn) {
          process.stderr.write(`bench:calibrate ${c.label}: round ${round + 1} of ${ROUNDS}, ${s.name}\n`);
          runs.set(s.name, [
            ...(runs.get(s.name) ?? []),
            await measured(s.child, await s.request(), s.expect, SECONDS),
          ]);
        }
      }
      const { us } = await sim.ask<{ us: number }>('answer-cost', {
        request: { method: fixed.method, path: fixed.path, headers: fixed.headers, body: fixed.body },
        seconds: Math.min(2, SECONDS),
      });
      const rps = (name: string) => median(runs.get(name)!.map((r) => r.rps));
      const cpu = (name: string) => median(runs.get(name)!.map((r) => r.cpu));
      const bare = rps('bare');
      const curve = SPINS.map((w, i) => ({ w, ratio: rps(servers[i].name) / bare }));
      process.stdout.write(
        `\n## ${c.label}\n\n| server | work added per request | req/s | / bare | server CPU µs per request |\n| --- | --- | --- | --- | --- |\n`,
      );
      for (const s of servers) {
        const added = s.child === sim ? `its own: ${us.toFixed(1)} µs in process, and the adapter's` : s.added;
        process.stdout.write(
          `| ${s.name} | ${added} | ${n(rps(s.name))} | ${(rps(s.name) / bare).toFixed(2)} | ${cpu(s.name).toFixed(1)} |\n`,
        );
      }
      const predicted = onCurve(curve, us);
      process.stdout.write(
        `\nA server doing the simulator's in-process work (${us.toFixed(1)} µs) over bare would reach ` +
          `${predicted === undefined ? `(off the measured curve, over ${SPINS.at(-1)} µs)` : predicted.toFixed(2)}; ` +
          `the simulator reaches ${(rps('simulator') / bare).toFixed(2)}.\n`,
      );
    }
  } finally {
    await Promise.all([sim.stop(), floor?.stop(), ...bares.map((b) => b.stop())]);
  }
}

main().catch((error: Error) => {
  process.stderr.write(`bench:calibrate: ${error.message}\n`);
  process.exit(1);
});
