/**
 * No rule passes unseen (DESIGN.md, one cause, one blame): every suite runs with each assertion
 * watched (test/suites/witness.ts), against the simulator and against providers that differ from
 * it (no REST API or token info, no oracle at all, token errors with empty bodies or their own
 * codes; the JavaScript sign-in application played by Chromium is test/suites/browser-spa.test.ts).
 * Whatever else the run finds, a rule the report calls passed must have been named by an assertion
 * that held in each passed check the report credits with it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { allChecks } from '../../suites/index.js';
import type { Report } from '../../suites/report/model.js';
import { runConformance } from '../../suites/runner/run.js';
import { createEmbeddedTarget } from '../../suites/target/embedded.js';
import { jsonOf, setJson, startOAuthProxy, type OAuthProxy, type Rewrite } from '../independent/oauth-proxy.js';
import { notFound, runAgainst, startProvider, type Deviation } from '../providers/provider.js';
import { unseenPasses, witness } from './witness.js';

const SEED = 20261125;
const closing: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(closing.map((c) => c.close()));
});

/** The report of every check, watched, and the passes nobody saw. */
async function watched(run: (checks: ReturnType<typeof witness>['checks']) => Promise<Report>) {
  const w = witness(allChecks());
  const report = await run(w.checks);
  return { report, unseen: unseenPasses(report, w.named) };
}

const absent =
  (...paths: string[]): Deviation =>
  (_method, url) =>
    url.pathname.startsWith('/api/v4') || paths.includes(url.pathname) ? () => notFound : undefined;

/** A token endpoint refusal, rewritten by `change` (the simulator's answer otherwise). */
const tokenRefusal = (change: Rewrite['answer']): Rewrite => ({
  answer: (asked, answer, sim) =>
    asked.url.pathname === '/oauth/token' && answer.status >= 400 && change!(asked, answer, sim),
});

describe('no rule passes unseen', () => {
  it('against the simulator, every suite', async () => {
    const { report, unseen } = await watched(async (checks) =>
      runConformance({ target: await createEmbeddedTarget({}), checks, seed: SEED, numRuns: 3 }),
    );
    expect(report.summary.passed).toBeGreaterThan(100);
    expect(unseen).toEqual([]);
  }, 300_000);

  it.each<[string, Deviation]>([
    ['an OAuth-only provider (no REST API, no token info)', absent('/oauth/token/info')],
    ['a provider with no oracle of a live token', absent('/oauth/token/info', '/oauth/userinfo')],
  ])(
    'against %s, every suite',
    async (_name, deviation) => {
      const provider = await startProvider(deviation);
      closing.push(provider);
      const { report, unseen } = await watched(async (checks) => (await runAgainst(provider, {}, checks)).report);
      expect(report.summary.passed).toBeGreaterThan(50);
      expect(unseen).toEqual([]);
    },
    300_000,
  );

  describe('token errors delivered otherwise', () => {
    let proxy: OAuthProxy;
    it.each<[string, Rewrite]>([
      [
        'an empty body',
        tokenRefusal((_asked, answer) => {
          answer.body = Buffer.alloc(0);
          return true;
        }),
      ],
      [
        'a code of their own',
        tokenRefusal((_asked, answer) => {
          const body = jsonOf(answer);
          if (body) setJson(answer, { ...body, error: 'request_refused' });
          return !!body;
        }),
      ],
    ])(
      'with %s, every suite',
      async (_name, rewrite) => {
        proxy ??= await startOAuthProxy();
        if (!closing.includes(proxy)) closing.push(proxy);
        proxy.use(rewrite);
        const { report, unseen } = await watched(async (checks) => (await runAgainst(proxy, {}, checks)).report);
        expect(proxy.applied()).toBeGreaterThan(0);
        expect(report.summary.failed).toBeGreaterThan(0);
        expect(unseen).toEqual([]);
      },
      300_000,
    );
  });
});
