/**
 * `npm run explore:pairs -- [--side oauth|api|cross] [--sample N | --all] [--seed N] [--runs N]`:
 * one cause, one blame under two causes. Runs the embedded simulator (every check, as the blame
 * test does) with each fault alone, then with pairs of them (two of a side, or with `cross` an
 * OAuth fault with a REST API fault), and prints the pairs whose failed or warned rules are not
 * the union of the two single-fault blames:
 *   extra    a rule outside both faults' declared rules (spec/faults.yaml), as blame.ts forbids;
 *   missing  a rule one fault alone was blamed for that the pair no longer is (often legitimate:
 *            both faults touch the same answer, so the second cannot be seen);
 *   errored  a check errored in the pair that errored with neither fault alone.
 * With the 60 faults of spec/faults.yaml (34 OAuth, 26 REST API: 886 same-side pairs, 884 cross
 * pairs, 2026-11-26), each kind takes about 20 minutes (0.8-2.2 s a run)
 * on two shared cores, so by default a seeded sample of 200 pairs a side is run (--sample, drawn
 * with --seed); --all runs every pair. Not part of `npm test`.
 */
import { executeRun } from '../cli/run.js';
import { faults, type Fault } from '../spec/index.js';
import { CI_SEED } from '../suites/runner/defaults.js';
import type { Report } from '../suites/report/model.js';
import { benchArguments } from './args.js';
import {
  blamedRules,
  endIfInterrupted,
  keepSignals,
  seededSample,
  unionRow,
  unionTable,
  type Judged,
} from './blame-union.js';

const USAGE =
  'usage: npm run explore:pairs -- [--side oauth|api|cross] [--sample N | --all] [--seed N] [--runs N]\n' +
  "  see bench/fault-pairs.ts's header\n";

const { values } = benchArguments(
  'explore:pairs',
  USAGE,
  {
    side: { type: 'string' },
    sample: { type: 'string', default: '200' },
    all: { type: 'boolean' },
    seed: { type: 'string', default: String(CI_SEED) },
    runs: { type: 'string', default: '8' },
  },
  ['sample', 'seed', 'runs'],
  false,
);
type Side = Fault['side'] | 'cross';
const SIDES: Side[] = ['oauth', 'api', 'cross'];
if (values.side !== undefined && !SIDES.includes(values.side as Side)) {
  process.stderr.write(`explore:pairs: --side takes oauth, api or cross\n${USAGE}`);
  process.exit(2);
}
const seed = Number(values.seed);

/** Every check against the embedded simulator with these faults on. */
async function runWith(names: string[]): Promise<{ report: Report; ms: number }> {
  let report: Report | undefined;
  let err = '';
  const started = performance.now();
  await executeRun(
    { fault: names, runs: String(values.runs), seed: String(seed) },
    { out: () => {}, err: (t) => void (err += t), onReport: (r) => (report = r) },
    {},
  );
  if (!report) throw new Error(`run --fault ${names.join(' --fault ')} made no report:\n${err}`);
  endIfInterrupted('explore:pairs', report, judged, times);
  return { report, ms: performance.now() - started };
}

const errored = (report: Report) => report.checks.filter((c) => c.status === 'errored').map((c) => c.id);

/** A side's pairs: two faults of it, or for `cross` each OAuth fault with each REST API fault. */
function pairsOf(side: Side): (readonly [Fault, Fault])[] {
  const of = (s: Fault['side']) => faults().filter((f) => f.side === s);
  if (side === 'cross') return of('oauth').flatMap((a) => of('api').map((b) => [a, b] as const));
  const list = of(side);
  return list.flatMap((a, i) => list.slice(i + 1).map((b) => [a, b] as const));
}

const sides: Side[] = values.side ? [values.side as Side] : SIDES;
keepSignals();
const times: number[] = [];
const judged: Judged[] = [];
// Each fault alone runs once, however many sides and pairs it is part of.
const single = new Map<string, { blamed: Set<string>; errored: Set<string> }>();
async function alone(f: Fault) {
  let known = single.get(f.name);
  if (!known) {
    const { report, ms } = await runWith([f.name]);
    times.push(ms);
    single.set(f.name, (known = { blamed: blamedRules(report), errored: new Set(errored(report)) }));
  }
  return known;
}
for (const side of sides) {
  const pairs = pairsOf(side);
  const chosen = values.all ? pairs : seededSample(pairs, Number(values.sample), seed);
  const involved = new Set(chosen.flat());
  process.stderr.write(`${side}: ${involved.size} faults alone, ${chosen.length} of ${pairs.length} pairs\n`);
  for (const f of involved) await alone(f);
  for (const [n, [a, b]] of chosen.entries()) {
    if (n && n % 50 === 0) process.stderr.write(`${side}: ${n} of ${chosen.length} pairs run\n`);
    const { report, ms } = await runWith([a.name, b.name]);
    times.push(ms);
    const sa = await alone(a);
    const sb = await alone(b);
    const j: Judged = {
      name: `${a.name} + ${b.name}`,
      allowed: new Set([...a.rules, ...b.rules]),
      expected: new Set([...sa.blamed, ...sb.blamed]),
      blamed: blamedRules(report),
      errored: errored(report).filter((id) => !sa.errored.has(id) && !sb.errored.has(id)),
    };
    judged.push(j);
    // As it goes, so a long run shows its findings early.
    const row = unionRow(j);
    if (row) process.stderr.write(`${row}\n`);
  }
}

process.stdout.write(unionTable(judged, times));
