/**
 * `npm run bench` (`--quick` or BENCH_QUICK=1: a short smoke run): one run, one table.
 *
 * Over loopback HTTP, 50 connections, autocannon in this process and every server in its own
 * process pinned to one core (taskset, where it exists): the simulator, a bare `node:http` server
 * answering a fixed body of the simulator's size (the runtime's limit) and node-oidc-provider
 * (the peer). The servers take turns request by request, for a few rounds, the simulator and the
 * bare server back to back; each req/s cell is the median of the rounds, each ratio the median of
 * the rounds' ratios (a pair run seconds apart sees the same machine). Then in-process throughput (sim.handle, msw), `simulate` start time,
 * the simulator's RSS idle, after the load and after eviction, and the in-process pagination
 * figures. Figures are only compared within this run: ratios, never absolute thresholds.
 */
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { limits } from '../spec/index.js';
import { benchArguments } from './args.js';
import {
  pinSelfAwayFromServer,
  hasTaskset,
  runJson,
  startChild,
  timeToExit,
  timeToFirstLine,
  withServerCpu,
  type Child,
} from './ipc.js';
import { load, type LoadResult } from './load.js';
import { casesFor, CONNECTIONS, measureSizes, post, type Case, type Server, type TargetConfigLike } from './cases.js';

const { values } = benchArguments(
  'bench',
  'usage: npm run bench [-- --quick]\n  --quick: a smoke run of about a minute (also BENCH_QUICK=1); see bench/run.ts\n',
  { quick: { type: 'boolean' } },
  [],
  false,
);
const QUICK = process.env.BENCH_QUICK === '1' || values.quick === true;
// Five rounds of 2 s rather than three of 3 s: the same time, and more pairs for each row's median.
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 0.25 : 2));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 5));
/** Requests per row instead of SECONDS (the smoke test's: it judges no figure). */
const REQUESTS = process.env.BENCH_REQUESTS ? Number(process.env.BENCH_REQUESTS) : undefined;
const HERE = dirname(fileURLToPath(import.meta.url));
const CLI = join(HERE, '..', 'cli', 'main.js');

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * A ratio to two places, or three where two would round it onto its target's side of the line
 * (0.497 against ≥ 0.5 printed "0.50" beside "no").
 */
const ratioCell = (r: number, target?: number) =>
  target !== undefined && r < target && Number(r.toFixed(2)) >= target ? fmt(r, 3) : fmt(r, 2);
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mib = (bytes: number) => `${fmt(bytes / 1024 / 1024, 1)} MiB`;
/**
 * A load run with two figures req/s cannot give: the server's CPU time per request it answered (µs,
 * its own `cpu` ask) and the share of its core the load generator (autocannon, in this process)
 * kept busy. Near 1 the generator, not the server, set the pace: that req/s is the generator's
 * ceiling, and a ratio over it says less of the server than the CPU per request does.
 */
type Measured = LoadResult & { cpu: number; generator: number };

/**
 * Warm-up: 1 s loads until the rate stops rising (a run no more than 5 % over the best before it),
 * at least 2 and at most 8. A server's code is compiled as it runs: a fixed second left the
 * simulator's device authorization on its way up (CPU per request 103, 73, 48, then 41-44 µs in
 * 2 s runs, same process), while the bare server was steady after one, so the first rounds of
 * such a row compared a warming server with a warm one.
 */
const WARM_MIN = 2;
const WARM_MAX = 8;
const WARM_RISE = 1.05;

const lat = (r?: LoadResult) => (r ? `${fmt(r.p50)} / ${fmt(r.p99)}` : '');

async function main(): Promise<void> {
  const cores = availableParallelism();
  const pinned = pinSelfAwayFromServer(cores);
  // One progress line per step on stderr (the table alone goes to stdout): a full run takes minutes.
  let steps = 0;
  let done = 0;
  const step = (what: string) => process.stderr.write(`bench [${++done}/${steps}] ${what}\n`);
  const sim = await startChild(join(HERE, 'sim-server.js'), [], ['--expose-gc']);
  const simUrl = sim.ready.url as string;
  const oidc = await startChild(join(HERE, 'oidc-server.js'), [], ['--expose-gc']);
  let bare: Child | undefined;
  let floor: Child | undefined;
  try {
    const config = (await (await fetch(`${simUrl}/-/simulator/config`)).json()) as TargetConfigLike;
    const cases = casesFor(sim, simUrl, config, oidc);
    const pairs = cases.reduce((n, c) => n + 1 + (c.target === undefined ? 0 : 1) + Object.keys(c.build).length, 0);
    // servers ready, warm-up, rounds, memory and eviction, in process, start time, full run, pagination
    steps = 1 + (QUICK ? 0 : pairs) + ROUNDS * pairs + 1 + 1 + 1 + (QUICK ? 0 : 1) + 1;
    step('servers started (simulator, node-oidc-provider); measuring answer sizes, idle memory');
    const sizes = await measureSizes(simUrl, cases);
    const sizeArg = JSON.stringify(Object.fromEntries([...sizes.values()].map((s) => [s.key, s.size])));
    bare = await startChild(join(HERE, 'bare-server.js'), [sizeArg]);
    floor = await startChild(join(HERE, 'floor-server.js'), [sizeArg]);
    const urls: Record<Server, string> = {
      sim: simUrl,
      bare: bare.ready.url as string,
      floor: floor.ready.url as string,
      oidc: oidc.ready.url as string,
    };
    const idle = await sim.ask<{ rss: number; heapUsed: number }>('memory');
    const idleStats = (await (await fetch(`${simUrl}/-/simulator/stats`)).json()) as unknown;

    const runs = new Map<string, Measured[]>();
    const children: Record<Server, Child> = { sim, bare, floor, oidc };
    // The bare server and the adapter alone get the simulator's request and answer 200.
    const fixed = (server: Server) => server === 'bare' || server === 'floor';
    const once = async (c: Case, server: Server, seconds: number): Promise<Measured> => {
      const request = fixed(server) ? sizes.get(c)!.req : await c.build[server]!();
      const before = process.cpuUsage();
      const started = performance.now();
      const { result, cpu } = await withServerCpu(children[server], () =>
        load(urls[server], request, {
          connections: CONNECTIONS,
          seconds,
          expect: fixed(server) ? 200 : c.expect,
          ...(REQUESTS ? { amount: REQUESTS } : {}),
        }),
      );
      const used = process.cpuUsage(before);
      const generator = (used.user + used.system) / 1000 / (performance.now() - started);
      return { ...result, cpu, generator };
    };
    /** 1 s runs until the rate stops rising (WARM_*); how many it took. */
    const warmUp = async (c: Case, s: Server): Promise<number> => {
      let best = 0;
      for (let n = 1; ; n++) {
        const { rps } = await once(c, s, 1);
        if ((n >= WARM_MIN && rps <= best * WARM_RISE) || n >= WARM_MAX) return n;
        best = Math.max(best, rps);
      }
    };
    /** Per row with a target: how many warm-up runs the simulator and the bare server took. */
    const warmed = new Map<string, string[]>();
    // The simulator and the bare server back to back, then the others: a row's ratio is read from
    // two runs seconds apart, not from runs a case apart (on a shared VM the same server's CPU per
    // request moves by half between runs a few seconds apart, and both servers move together).
    const order: Server[] = ['bare', 'sim', 'floor', 'oidc'];
    const names: Record<Server, string> = {
      sim: 'simulator',
      bare: 'bare server',
      floor: "the simulator's adapter alone",
      oidc: 'node-oidc-provider',
    };
    /** Who serves a row: the bare server always, the adapter alone where the row has a target. */
    const serves = (c: Case, s: Server) => s === 'bare' || (s === 'floor' ? c.target !== undefined : !!c.build[s]);
    if (!QUICK)
      for (const c of cases)
        for (const s of order)
          if (serves(c, s)) {
            step(`warm-up (1 s runs until its rate stops rising, at most ${WARM_MAX}): ${c.label}, ${names[s]}`);
            if (c.target !== undefined && (s === 'sim' || s === 'bare'))
              warmed.set(c.label, [...(warmed.get(c.label) ?? []), `${names[s]} ${await warmUp(c, s)}`]);
            else await warmUp(c, s);
          }
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate who goes first within each pair, so a slowing machine does not always hit the same server.
      const turn = round % 2 ? order.map((_, i) => order[i ^ 1]) : order;
      for (const c of cases) {
        for (const s of turn) {
          if (!serves(c, s)) continue;
          const key = `${c.label}|${s}`;
          step(`round ${round + 1} of ${ROUNDS} (${SECONDS} s): ${c.label}, ${names[s]}`);
          runs.set(key, [...(runs.get(key) ?? []), await once(c, s, SECONDS)]);
        }
      }
    }
    /** Round by round, x's req/s over y's in the same round (the pair ran back to back). */
    const perRound = (c: Case, x: Server, y: Server): number[] => {
      const [xs, ys] = [runs.get(`${c.label}|${x}`), runs.get(`${c.label}|${y}`)];
      return xs && ys ? xs.map((r, i) => r.rps / ys[i].rps) : [];
    };
    /** A row's ratio: the median of its rounds' ratios, not the ratio of two medians taken apart. */
    const paired = (c: Case, x: Server, y: Server): number | undefined => {
      const ratios = perRound(c, x, y);
      return ratios.length ? median(ratios) : undefined;
    };
    /**
     * A row's rounds, and the same pairs seen from the servers: bare CPU per request over the
     * simulator's (a ratio the load generator's pace cannot bound), the generator's busy share on
     * each server's runs, and the warm-up runs each took.
     */
    const serverSide = (c: Case): string => {
      const [ss, bs] = [runs.get(`${c.label}|sim`)!, runs.get(`${c.label}|bare`)!];
      const byCpu = median(ss.map((x, i) => bs[i].cpu / x.cpu));
      const pct = (xs: Measured[]) => `${fmt(100 * median(xs.map((x) => x.generator)))} %`;
      const us = (xs: Measured[]) => fmt(median(xs.map((x) => x.cpu)), 1);
      const cpuKnown = Number.isFinite(byCpu);
      return (
        `${c.label}: sim / bare by round ${perRound(c, 'sim', 'bare')
          .map((x) => fmt(x, 2))
          .join(', ')}` +
        (cpuKnown ? `; by server CPU per request ${fmt(byCpu, 2)} (simulator ${us(ss)} µs, bare ${us(bs)} µs)` : '') +
        `; load generator busy ${pct(ss)} of its core on the simulator's runs, ${pct(bs)} on the bare server's` +
        (warmed.has(c.label) ? `; warm-up runs: ${warmed.get(c.label)!.join(', ')}` : '')
      );
    };
    const fmtRatio = (x?: number) => (x === undefined ? '' : fmt(x, 2));
    const roundRatios: string[] = [];
    const med = (c: Case, s: Server): LoadResult | undefined => {
      const rs = runs.get(`${c.label}|${s}`);
      if (!rs) return undefined;
      return {
        rps: median(rs.map((r) => r.rps)),
        requests: rs.reduce((n, r) => n + r.requests, 0),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        unexpected: rs.reduce((n, r) => n + r.unexpected, 0),
        failed: rs.reduce((n, r) => n + r.failed, 0),
      };
    };

    step('simulator memory after the load, then after eviction (clock moved past every lifetime)');
    const afterLoad = await sim.ask<{ rss: number; heapUsed: number }>('memory');
    const loadStats = (await (await fetch(`${simUrl}/-/simulator/stats`)).json()) as unknown;
    // Past every lifetime and grace period: the next request's sweep evicts what the load left.
    const lim = limits() as unknown as Record<string, number>;
    // Sizes in bytes are no durations: only the other limits can bound a lifetime.
    const durations = Object.entries(lim).filter(([k, v]) => typeof v === 'number' && !k.endsWith('Bytes'));
    const beyond = 2 * Math.max(...durations.map(([, v]) => v), 86_400);
    await post(`${simUrl}/-/simulator/clock`, { advanceSeconds: beyond }, true);
    const evictedStats = (await (await fetch(`${simUrl}/-/simulator/stats`)).json()) as unknown;
    const afterEviction = await sim.ask<{ rss: number; heapUsed: number }>('memory');

    step('in process: sim.handle and msw handlers');
    const inProcess = await runJson<Record<string, number>>(join(HERE, 'inprocess.js'), [
      String(QUICK ? Math.min(0.2, SECONDS) : 2),
    ]);
    step('`simulate` start time');
    const starts: number[] = [];
    for (let i = 0; i < (QUICK ? 1 : 3); i++) starts.push(await timeToFirstLine([CLI, 'simulate', '--port', '0']));
    if (!QUICK) step('full default `run` (all suites, embedded simulator)');
    const fullRun = QUICK ? undefined : await timeToExit([CLI, 'run']);
    step('pagination in process (1,000,000 records)');
    const pagination = await runJson<{ rows: [string, string][]; keysetRatio: number }>(
      join(HERE, 'pagination.js'),
      [],
      {
        BENCH_ITERATIONS: QUICK ? '5' : '2000',
      },
    );

    // One table: HTTP rows with the three servers, then the single figures (in the simulator column).
    const head = [
      'measure',
      'simulator req/s',
      'p50 / p99 ms',
      'bare Node http req/s',
      'p50 / p99 ms',
      'sim / bare',
      'adapter alone / bare',
      'node-oidc-provider req/s',
      'p50 / p99 ms',
      'sim / oidc',
      'target',
      'met',
    ];
    const rows: string[][] = [];
    const verdict = (ok: boolean | undefined) => (ok === undefined ? '' : ok ? 'yes' : 'no');
    const notes: string[] = [];
    for (const c of cases) {
      const [s, b, f, o] = [med(c, 'sim'), med(c, 'bare'), med(c, 'floor'), med(c, 'oidc')];
      const r = paired(c, 'sim', 'bare');
      if (c.target !== undefined && r !== undefined) roundRatios.push(serverSide(c));
      for (const [who, m, expected] of [
        ['simulator', s, c.expect],
        ['bare', b, 200],
        ["the simulator's adapter alone", f, 200],
        ['node-oidc-provider', o, c.expect],
      ] as const)
        if (m?.unexpected) notes.push(`${c.label}: ${fmt(m.unexpected)} answers of ${who} were not ${expected}`);
      rows.push([
        `${c.label} (${fmt(sizes.get(c)!.size)} B)`,
        fmt(s!.rps),
        lat(s),
        fmt(b!.rps),
        lat(b),
        r === undefined ? '' : ratioCell(r, c.target),
        fmtRatio(paired(c, 'floor', 'bare')),
        o ? fmt(o.rps) : '',
        lat(o),
        fmtRatio(paired(c, 'sim', 'oidc')),
        c.target ? `sim / bare ≥ ${c.target}` : '',
        c.target ? verdict(r! >= c.target) : '',
      ]);
    }
    // Paired as the rows are: the two depths' simulator runs of one round, not two medians taken apart.
    const [first, deep] = cases.slice(-2).map((c) => runs.get(`${c.label}|sim`)!);
    const depthRounds = first.map((r, i) => r.rps / deep[i].rps);
    roundRatios.push(
      `keyset over HTTP: depth 1 / depth 900,000 by round ${depthRounds.map((x) => fmt(x, 2)).join(', ')}`,
    );
    const depthRatio = median(depthRounds);
    const single = (label: string, value: string, r = '', target = '', met?: boolean) =>
      rows.push([label, value, '', '', '', r, '', '', '', '', target, verdict(met)]);
    single('keyset over HTTP, depth 1 / depth 900,000 (req/s)', '', fmt(depthRatio, 2), '≤ 1.5', depthRatio <= 1.5);
    for (const [k, v] of Object.entries(inProcess))
      single(`in process, ${k.replace('handle', 'sim.handle').replace('msw', 'msw handlers')}`, `${fmt(v)} req/s`);
    const start = median(starts);
    single('`simulate` start until its URL is printed', `${fmt(start)} ms`, '', '< 1,000 ms', start < 1000);
    if (fullRun)
      single(
        'full default `run` (all suites, embedded simulator)',
        `${fmt(fullRun.ms / 1000, 1)} s (exit ${fullRun.code})`,
        '',
        '< 20 s',
        fullRun.ms < 20_000,
      );
    single('simulator RSS idle (started, one request of each kind)', `${mib(idle.rss)} (heap ${mib(idle.heapUsed)})`);
    single(
      'simulator RSS after the load',
      `${mib(afterLoad.rss)} (heap ${mib(afterLoad.heapUsed)})`,
      `${fmt(afterLoad.rss / idle.rss, 2)} × idle`,
    );
    const evictRatio = afterEviction.rss / idle.rss;
    single(
      `simulator RSS after eviction (clock +${fmt(beyond)} s)`,
      `${mib(afterEviction.rss)} (heap ${mib(afterEviction.heapUsed)}, ${fmt(afterEviction.heapUsed / idle.heapUsed, 2)} × idle)`,
      `${fmt(evictRatio, 2)} × idle`,
      '≤ 1.5 × idle',
      evictRatio <= 1.5,
    );
    for (const [label, stats] of [
      ['idle', idleStats],
      ['after load', loadStats],
      ['after eviction', evictedStats],
    ] as const)
      single(`stored records ${label} (GET /-/simulator/stats)`, storeLine(stats));
    for (const [k, v] of pagination.rows) single(`pagination in process: ${k}`, v);
    single(
      'pagination in process: keyset deep / first (µs)',
      '',
      fmt(pagination.keysetRatio, 2),
      '≤ 1.5',
      pagination.keysetRatio <= 1.5,
    );

    const line = (cells: string[]) => `| ${cells.join(' | ')} |\n`;
    process.stdout.write(
      `idp-conformance bench${QUICK ? ' (quick)' : ''}: ${CONNECTIONS} connections, ${ROUNDS} round(s) of ${SECONDS} s per request, req/s medians, ratios the median of each round's (sim and bare back to back); ` +
        `servers ${hasTaskset ? 'pinned to core 0 (taskset)' : 'not pinned (no taskset)'}, load generator ${pinned ? 'on the other cores' : 'unpinned'}; ` +
        `${cores} cores, Node ${process.version}\n\n`,
    );
    process.stdout.write(line(head) + line(head.map(() => '---')));
    for (const r of rows) process.stdout.write(line(r));
    process.stdout.write(`\n${roundRatios.join('\n')}\n`);
    if (notes.length) process.stdout.write(`\n${notes.join('\n')}\n`);
  } finally {
    await Promise.all([sim.stop(), oidc.stop(), bare?.stop(), floor?.stop()]);
  }
}

function storeLine(stats: unknown): string {
  const stored = (stats as { stored?: Record<string, number> }).stored;
  if (!stored) return 'not reported';
  return Object.entries(stored)
    .map(([k, v]) => `${k} ${fmt(v)}`)
    .join(', ');
}

main().catch((error) => {
  process.stderr.write(`bench: ${(error as Error).message}\n`);
  process.exit(1);
});
