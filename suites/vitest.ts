/**
 * vitest glue: each suites/<area>/<area>.test.ts registers its checks as tests here. The target is
 * the one named by IDP_TARGET (a URL) or IDP_CONFIG (a config file), else the embedded simulator;
 * IDP_SEED and IDP_RUNS set the seed and property runs. Verdicts come from the same session code
 * as `idp-conformance run`.
 */
import { afterAll, beforeAll, it } from 'vitest';
import type { CheckResult } from './report/model.js';
import { inert } from './report/inert.js';
import type { Check } from './types.js';
import { openTarget } from './target/index.js';
import { DEFAULT_CHECK_TIMEOUT_MS, openSession, type Session } from './runner/session.js';
import { DEFAULT_RUNS, defaultSeed } from './runner/defaults.js';

/** What vitest prints of a result that is no pass: on a terminal, so the target's text in it is inert. */
export function failureText(r: CheckResult): string {
  return inert(
    [
      r.message ?? 'failed',
      ...(r.counterexample ? [`counterexample: ${r.counterexample}`] : []),
      ...(r.exchange ?? []).map(
        (e) => `exchange: ${e.request.method} ${e.request.url} → ${e.response?.status ?? 'no answer'}`,
      ),
      ...(r.reproduce ? [`reproduce: ${r.reproduce}`] : []),
    ].join('\n'),
  );
}

export function defineSuite(checks: Check[]): void {
  const env = process.env;
  const seed = env.IDP_SEED ? Number(env.IDP_SEED) : defaultSeed(env);
  const numRuns = env.IDP_RUNS ? Number(env.IDP_RUNS) : DEFAULT_RUNS;
  let session: Session | undefined;

  beforeAll(async () => {
    const target = await openTarget({ url: env.IDP_TARGET, configFile: env.IDP_CONFIG });
    const reproduceArgs = env.IDP_TARGET
      ? ['--target', env.IDP_TARGET]
      : env.IDP_CONFIG
        ? ['--config', env.IDP_CONFIG]
        : [];
    session = await openSession({ target, seed, numRuns, reproduceArgs });
  });
  afterAll(async () => {
    await session?.close();
  });

  if (!checks.length) it.todo('no checks yet');
  for (const check of checks) {
    it(
      `${check.id}: ${check.title}`,
      async (ctx) => {
        const result = await session!.runCheck(check);
        if (result.status === 'skipped') ctx.skip(result.message);
        // A warned check (a `should` rule) is reported, not failed: the run's exit code stays 0 too.
        if (result.status === 'warned') console.warn(`warned ${check.id} (seed ${seed}): ${failureText(result)}`);
        // Errored is the harness's own trouble: in the project's tests that is a defect to see, not to hide.
        if (result.status === 'failed' || result.status === 'errored')
          throw new Error(`${result.status}: ${failureText(result)}\n(seed ${seed})`);
      },
      DEFAULT_CHECK_TIMEOUT_MS + 10_000,
    ); // the session's own per-check timeout speaks first
  }
}
