/**
 * Checks that read a live clock twice allow the real seconds that passed between the readings: a
 * target slow to answer (or a loaded CI machine) is not a target whose expires_in is wrong. Time is
 * faked (Date only), so each token info answer takes 2.5 s exactly, whatever the machine's load.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { createSimulator } from '../../simulator/core.js';
import { TOKEN_INFO_PATH } from '../../suites/shared/oauth.js';
import { allChecks } from '../../suites/index.js';
import { runConformance } from '../../suites/runner/run.js';
import { createEmbeddedTarget } from '../../suites/target/embedded.js';

afterEach(() => vi.useRealTimers());

/** The simulator, its clock on the faked Date, taking `ms` to answer each request to `path`. */
async function slowAt(path: string, ms: number) {
  const sim = createSimulator();
  const reply = sim.reply.bind(sim);
  sim.reply = (request) => {
    if (new URL(request.url).pathname === path) vi.setSystemTime(Date.now() + ms);
    return reply(request);
  };
  return createEmbeddedTarget(sim);
}

it.each(['tokens.info-expires-in-remaining', 'tokens.info-presentations'])(
  '%s passes a target that takes 2.5 s to answer each token info request',
  async (id) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00.400Z'));
    const target = await slowAt(TOKEN_INFO_PATH, 2500);
    const checks = allChecks().filter((c) => c.id === id);
    const report = await runConformance({ target, checks, seed: 1, numRuns: 1 });
    expect(report.checks.map((c) => [c.id, c.status, c.message])).toEqual([[id, 'passed', undefined]]);
  },
);
