/**
 * `npm run explore:compounds -- [words…] [--runs N]`: the compounds (those whose name
 * contains one of the words; all without) of test/independent/compounds.ts
 * (corpus deviations that real providers show together) each run once through the loopback proxy
 * in front of the simulator, only the checks their parts concern; prints those whose failed or
 * warned rules are not the union of their parts' (extra, missing), or that errored a check.
 * Not part of `npm test`; compound-blame.test.ts proves the ones that exposed an interaction.
 */
import { COMPOUNDS, compoundDeviation } from '../test/independent/compounds.js';
import { startOAuthProxy } from '../test/independent/oauth-proxy.js';
import { benchArguments } from './args.js';
import {
  blamedRules,
  endIfInterrupted,
  keepSignals,
  stopSignal,
  unionRow,
  unionTable,
  type Judged,
} from './blame-union.js';

const USAGE = "usage: npm run explore:compounds -- [words…] [--runs N]\n  see bench/compounds.ts's header\n";
const { values, positionals } = benchArguments('explore:compounds', USAGE, { runs: { type: 'string', default: '3' } }, [
  'runs',
]);

const proxy = await startOAuthProxy();
const judged: Judged[] = [];
const times: number[] = [];
keepSignals();
try {
  for (const compound of COMPOUNDS.filter((c) => !positionals.length || positionals.some((w) => c.name.includes(w)))) {
    const deviation = compoundDeviation(compound);
    proxy.use(deviation.rewrite);
    const started = performance.now();
    const { report } = await proxy.run(
      compound.name.replace(/\W+/g, '-'),
      deviation.checks,
      { ...deviation.flags, runs: String(values.runs) },
      deviation.http?.(),
    );
    proxy.use(undefined);
    if (stopSignal(report)) await proxy.close();
    endIfInterrupted('explore:compounds', report, judged, times);
    times.push(performance.now() - started);
    const j: Judged = {
      name: `${compound.name} (${compound.parts.length} parts, ${deviation.checks.length} checks)`,
      allowed: new Set(deviation.breaks),
      expected: new Set(deviation.breaks),
      blamed: blamedRules(report),
      errored: report.checks.filter((c) => c.status === 'errored').map((c) => c.id),
    };
    judged.push(j);
    const row = unionRow(j);
    if (row) process.stderr.write(`${row}\n`);
    for (const c of report.checks.filter((c) => c.status !== 'passed'))
      process.stderr.write(
        `  ${c.status} ${c.id}${c.broken ? ` [${c.broken.join(', ')}]` : ''}: ${(c.message ?? '').slice(0, 300)}\n`,
      );
  }
} finally {
  await proxy.close();
}
process.stdout.write(unionTable(judged, times));
