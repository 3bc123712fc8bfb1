/**
 * `proxy` honours the independent corpus as `run` does (test/independent/): the project's checks as
 * the client, `idp-conformance proxy` in front of the loopback rewriting proxy of test/independent/,
 * one entry at a time, from the same tables. The proxy's verdicts come from the suites' assertions:
 * an allowed variant breaks no must rule there either (only the should rules it breaks on purpose
 * warn), a deviation fails or warns no rule but those it breaks, and a flow the client never used
 * (keyset pages, in a run of no pagination check) is untested, not failed. A fixed sample of each
 * table, and the entries named below, so the file stays cheap.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { executeRun } from '../../cli/run.js';
import { allChecks } from '../../suites/index.js';
import type { Report } from '../../suites/report/model.js';
import { inQuarter, type Deviation, type Variant } from '../independent/corpus.js';
import { proxyForTests } from '../independent/oauth-proxy.js';
import { oauthDeviationsForTests } from '../independent/oauth-deviations.js';
import { VARIANTS } from '../independent/oauth-variants.js';
import { REST_DEVIATIONS } from '../independent/rest-deviations.js';
import { REST_VARIANTS } from '../independent/rest-variants.js';
import { recordingProxy } from './behind.js';

const upstream = proxyForTests();
const OAUTH_DEVIATIONS = oauthDeviationsForTests(upstream);
const dir = mkdtempSync(join(tmpdir(), 'idp-proxy-corpus-'));

/** Checks that walk every page of the offset collections: seconds each. */
const WALKS = new Set(['pagination.offset-headers', 'pagination.offset-rows']);
/**
 * Entries this file drives all the same, where the proxy once judged otherwise than the run; those
 * whose checks walk every page, on the one walk that serves the pages they concern.
 */
const NAMED = new Set([
  "a CDN's own Link field (rel=preload) on every REST answer, beside the pagination links",
  'Link URLs relative (path-absolute or query-only), query reordered and re-encoded, with an extra parameter',
  'keyset asked outside the support table: the parameter ignored, offset pages served',
  'rel=prev on the first offset page, to itself',
  'the token endpoint redirects with 308 to /oauth/token/',
  'token errors with the right status and an empty body',
  'token answers labelled text/plain',
  'keyset pagination off for project jobs: pagination=keyset ignored, offset pages served',
]);
const ONE_WALK = ['pagination.offset-headers'];

/**
 * Known differences of the proxy's judgement from the run's, each with its reason: a passive judge
 * sees one answer, not the question the check asked (an x-page one more than the page asked
 * without page= reads as another page served; a revoked token token info still answers, as the
 * revocation's failure; a device grant's code of its own, as a non-standard code); it holds each
 * answer to every rule its endpoint has (no-store on a refusal) where the run's checks judge one
 * answer each; a userinfo JWT is no JSON to the shapes it judges.
 */
const PASSIVE_LIMITS = new Set([
  'x-page one more than the page it is on',
  'x-per-page echoing a per_page above the maximum while the page holds the maximum',
  'token info still answers a token revoked less than a minute ago (a replica a minute behind)',
  "a denied device code refused with Entra ID's authorization_declined",
  'token and device authorization answers form-encoded unless the request asks for JSON',
  'the token endpoint takes the client secret in HTTP Basic only',
  'userinfo answered as a JWT signed by the published key (application/jwt), with iss and aud',
  // Link and x-next-page disagree on one answer: a passive judge cannot tell which one lies.
  'x-next-page left empty on the pages of a collection above 10,000 records',
]);

const walks = (e: Variant | Deviation) => e.checks.some((c) => WALKS.has(c));
const sample = <T extends Variant | Deviation>(table: readonly T[]): T[] =>
  table
    .filter((e) => NAMED.has(e.name) || (inQuarter(e.name) && !PASSIVE_LIMITS.has(e.name) && !walks(e)))
    .map((e) => (walks(e) ? { ...e, checks: ONE_WALK } : e));

/** The entry's checks through `proxy` in front of the rewriting proxy: the proxy's report and exit code. */
async function through(entry: Variant | Deviation): Promise<{ proxy: Report; proxyCode: number; why: string }> {
  const up = upstream();
  const name = entry.name.replace(/\W+/g, '-').slice(0, 60);
  const proxy = await recordingProxy(name, up.url);
  // The recording proxy forwards the client's Host: the simulator's control API must answer it too.
  up.sim.options.controlHosts?.push(new URL(proxy.url).host);
  up.use(entry.rewrite);
  try {
    const config = JSON.parse(readFileSync(entry.flags?.config ?? up.configFile, 'utf8')) as object;
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify({ ...config, baseUrl: proxy.url }), { mode: 0o600 });
    const { release, offering } = entry.flags ?? {};
    const checks = allChecks().filter((c) => entry.checks.includes(c.id));
    const err: string[] = [];
    await executeRun(
      { config: file, seed: '20261125', runs: '1', ...(release ? { release } : {}), ...(offering ? { offering } : {}) },
      { out: () => undefined, err: (t) => void err.push(t), checks: () => checks },
      {},
    );
    up.use(undefined);
    const { proxy: report, proxyCode } = await proxy.finish();
    const why = report.checks
      .filter((c) => c.status === 'failed' || c.status === 'warned')
      .map((c) => `${c.id}: ${(c.message ?? '').slice(0, 300)}`)
      .join('\n');
    return { proxy: report, proxyCode, why: `${why}\n${err.join('').slice(-500)}` };
  } finally {
    up.use(undefined);
    proxy.stop();
  }
}

const blamedBy = (report: Report, level?: string) =>
  report.rules
    .filter((r) => (r.status === 'failed' || r.status === 'warned') && (!level || r.level === level))
    .map((r) => r.id)
    .sort();

/** A flow the client never used is untested: keyset pagination's rules, in a run of no pagination check. */
function keysetUntested(report: Report, entry: Variant | Deviation): void {
  if (entry.checks.some((c) => c.startsWith('pagination.'))) return;
  const keyset = report.rules.filter((r) => r.id.startsWith('PAG-KEYSET-'));
  expect(keyset.length).toBeGreaterThan(0);
  expect(keyset.filter((r) => r.status !== 'untested').map((r) => `${r.id} ${r.status}`)).toEqual([]);
}

describe('proxy in front of a provider that differs only as the source allows', () => {
  const variants = [...sample(REST_VARIANTS), ...sample(VARIANTS)];
  it.each(variants.map((v) => [v.name, v] as const))(
    '%s: no must rule broken, exit 0',
    async (_name, variant) => {
      const { proxy, proxyCode, why } = await through(variant);
      expect(blamedBy(proxy, 'must'), why).toEqual([]);
      expect(
        blamedBy(proxy).filter((r) => !variant.warns?.includes(r)),
        why,
      ).toEqual([]);
      expect(proxyCode, why).toBe(0);
      keysetUntested(proxy, variant);
    },
    120_000,
  );
});

describe('proxy in front of a provider with one deviation seen on real servers', () => {
  const deviations = [...sample(REST_DEVIATIONS), ...sample(OAUTH_DEVIATIONS)];
  it.each(deviations.map((d) => [d.name, d] as const))(
    '%s: no rule blamed but those it breaks',
    async (_name, deviation) => {
      const { proxy, why } = await through(deviation);
      expect(
        blamedBy(proxy).filter((r) => !deviation.breaks.includes(r)),
        why,
      ).toEqual([]);
      keysetUntested(proxy, deviation);
    },
    120_000,
  );
});
