/**
 * A diff's rows are the same whatever the seed (review 30, a leftover): two seeds of `diff` against the same
 * pair of targets (the simulator behind the loopback rewriting proxy, the embedded reference) read
 * the same row keys. The names the harness makes up read `{generated}` (review 30); the unknown
 * route is asked with the methods in turn, case by case, not one drawn with the seed, so a route
 * that fails one method alone shows its row, under that method, in every seed of three cases or more.
 */
import { describe, expect, it } from 'vitest';
import { executeDiff } from '../../cli/diff.js';
import type { Difference, Report } from '../../suites/report/model.js';
import { proxyForTests, type Rewrite } from '../independent/oauth-proxy.js';
import { GENERATED } from '../../suites/shared/generated.js';

const proxy = proxyForTests();

/** Seeds that drew other methods for the unknown route when the check drew one a case (`--runs 2` then). */
const SEEDS = ['7', '8', '20261128'];

const unknownRoute = (url: URL) => url.pathname.startsWith(`/api/v4/${GENERATED}unknown-`);

/** A row's key: everything a reader tells rows apart by, its judgement's kind included. */
const keyOf = (d: Difference) =>
  [
    d.operation,
    d.kind,
    d.subject,
    d.status ?? '',
    d.target,
    d.reference,
    d.rules.join(),
    d.allowed ? 'allowed' : '',
    d.unjudged?.join() ?? '',
  ].join(' | ');

async function rowsOf(rewrite: Rewrite, seed: string): Promise<string[]> {
  proxy().use(rewrite);
  let report: Report | undefined;
  const out: string[] = [];
  await executeDiff(
    { config: proxy().configFile, seed, runs: '3', check: 'versioning.unknown-route-404' },
    { out: (t) => void out.push(t), err: () => undefined, onReport: (r) => (report = r) },
    {},
  ).finally(() => proxy().use(undefined));
  expect(report?.diff, out.join('')).toBeDefined();
  return [...new Set(report!.diff!.differences.map(keyOf))].sort();
}

describe('the rows of a diff, whatever the seed', () => {
  it(
    'are the same for two seeds against a front answering unknown routes with HTML',
    { timeout: 240_000 },
    async () => {
      const html: Rewrite = {
        answer(asked, answer) {
          if (!unknownRoute(asked.url) || answer.status !== 404) return false;
          answer.head = new Map([['content-type', ['text/html']]]);
          answer.body = Buffer.from('<html><body><h1>404 Not Found</h1></body></html>');
          return true;
        },
      };
      const first = await rowsOf(html, SEEDS[0]);
      expect(first.length).toBeGreaterThan(0);
      for (const seed of SEEDS.slice(1)) expect(await rowsOf(html, seed), `seed ${seed}`).toEqual(first);
    },
  );

  it('show a route that fails one method alone, under that method, in every seed', { timeout: 240_000 }, async () => {
    // 404 to GET and POST, 500 to DELETE: the DELETE row is the difference, whichever the seed.
    const deleteFails: Rewrite = {
      answer(asked, answer) {
        if (!unknownRoute(asked.url) || asked.method !== 'DELETE') return false;
        answer.status = 500;
        return true;
      },
    };
    for (const seed of SEEDS) {
      const rows = await rowsOf(deleteFails, seed);
      expect(rows, `seed ${seed}`).toContainEqual(
        expect.stringMatching(
          /^DELETE \/api\/v4\/\{generated\} \| status \| status \| {2}\| 500 \| 404 \| ERR-UNKNOWN-ROUTE-404/,
        ),
      );
    }
  });
});

describe('the unknown route', () => {
  it('is asked once a case, the methods in turn (three a case ran a slow or rate-capped target past the time limit, review 31)', async () => {
    const asked: string[] = [];
    const count: Rewrite = {
      answer(request) {
        if (unknownRoute(request.url)) asked.push(request.method);
        return false;
      },
    };
    proxy().use(count);
    await executeDiff(
      { config: proxy().configFile, seed: '7', runs: '6', check: 'versioning.unknown-route-404' },
      { out: () => undefined, err: () => undefined },
      {},
    ).finally(() => proxy().use(undefined));
    // The diff asks the proxied target once; the reference is the embedded simulator.
    expect(asked).toEqual(['GET', 'POST', 'DELETE', 'GET', 'POST', 'DELETE']);
  });
});
