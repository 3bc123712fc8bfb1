/**
 * `diff` honours the independent corpus as `run` does (test/independent/): against the simulator
 * behind the loopback rewriting proxy, one entry at a time, from the same tables. An allowed variant
 * is shown as allowed (or linked only to the should rules it breaks on purpose), never as a
 * difference no rule covers, and exits 0; a deviation shows, linked to rules it breaks and no
 * other, with no difference left uncovered beside it. A fixed sample of each table, so the file
 * stays cheap (test/diff/allowed.test.ts drives the allowed OAuth variants and the Link ones).
 */
import { describe, expect, it } from 'vitest';
import { executeDiff, type DiffFlags } from '../../cli/diff.js';
import { allChecks } from '../../suites/index.js';
import type { DiffSection, Report } from '../../suites/report/model.js';
import { createHttpTarget } from '../../suites/target/http.js';
import { loadTargetConfig } from '../../suites/target/config.js';
import { inQuarter, type Deviation, type Variant } from '../independent/corpus.js';
import { proxyForTests } from '../independent/oauth-proxy.js';
import { oauthDeviationsForTests } from '../independent/oauth-deviations.js';
import { VARIANTS } from '../independent/oauth-variants.js';
import { REST_DEVIATIONS } from '../independent/rest-deviations.js';
import { REST_VARIANTS } from '../independent/rest-variants.js';

const proxy = proxyForTests();
const OAUTH_DEVIATIONS = oauthDeviationsForTests(proxy);

/** Checks that walk every page of the offset collections: seconds each, left to run's corpus tests. */
const WALKS = new Set(['pagination.offset-headers', 'pagination.offset-rows']);
/**
 * Pagination entries this file drives all the same, on the one check that judges their headers
 * where it is enough: a Link with a relation of its own beside the pagination ones, hosted pages
 * without totals, links to an internal host (a value: one `value` row).
 */
const PAGINATION_NAMED = new Map([
  [
    "a CDN's own Link field (rel=preload) on every REST answer, beside the pagination links",
    ['pagination.offset-headers'],
  ],
  [
    'Link URLs naming the internal upstream (http://gitlab-webservice-default:8181) instead of the public address',
    ['pagination.offset-headers'],
  ],
  // All its checks: the other collections they read show that hosted pages may keep rel=last.
  ['the hosted offering with Link alone: every x- pagination header left out, rel=last kept', undefined],
]);

/**
 * Known limits of `diff`, each with its reason (run's verdicts hold them all): spec/openapi.yaml
 * documents the REST answers stricter than the source does (ids as integers, members as non-null,
 * the error code of a 403 in its body) ...
 */
const SCHEMA_STRICTER = new Set([
  'insufficient_scope only in the WWW-Authenticate challenge',
  'REST records with null for the members the source does not name',
  'REST ids and iids as decimal strings ("id": "42")',
]);
/**
 * ... or a check sends several requests before the assertion that judges them, and a held
 * assertion accepts only the answer just before it: the earlier error bodies stay unjudged.
 */
const UNJUDGED_EARLIER = new Set([
  'REST errors as application/problem+json (type, title, status, detail) beside message',
  'every REST 4xx body an RFC 9457 problem (type, title, status, detail), no message or error',
]);

/**
 * ... or the deviation is judged once, where its rule says (a mislabelled REST answer on GET
 * /api/v4/user, versioning.api-prefix), and the same label on another check's operation is a
 * difference no rule of that check covers; or the entry takes an endpoint away besides (GitHub has
 * no token info), a premise diff reports at set-up, not a deviation of its own.
 */
const JUDGED_ELSEWHERE = new Set([
  'REST JSON answered as application/octet-stream',
  'REST JSON answered as text/plain',
  'scope in token responses comma-separated ("repo,gist", GitHub\'s), no token info',
]);

/**
 * Deviations this file drives all the same: one answer read by several checks or oracles, a
 * request more or fewer than the reference's that follows from the deviation, a deviation inside
 * a value diff does not compare (a URL's host, a JWT's claims, a key's members: one `value` row).
 */
const LINKING_NAMED = new Set([
  'an id_token with auth_time 0',
  'a key set with an encryption key whose signing key carries no use',
  'verification_uri and verification_uri_complete on another origin',
  'revoking an access token answers 200 and leaves it working (Auth0 revokes refresh tokens only)',
  'the token endpoint takes the client secret in HTTP Basic only',
  'a keyset page shorter than per_page with no Link, as the end (no empty page after it)',
]);

/**
 * A fixed quarter of each table (test/independent/ runs them all under `run`), the entries whose
 * checks walk every offset page left out, but the named ones, on their one check; no known limit.
 */
const sample = <T extends Variant | Deviation>(table: readonly T[]): T[] =>
  table
    .filter((e) => !e.checks.some((c) => WALKS.has(c)))
    .filter((e) => !SCHEMA_STRICTER.has(e.name) && !UNJUDGED_EARLIER.has(e.name) && !JUDGED_ELSEWHERE.has(e.name))
    .filter((e) => inQuarter(e.name) || LINKING_NAMED.has(e.name))
    .concat(
      table
        .filter((e) => PAGINATION_NAMED.has(e.name))
        .map((e) => ({ ...e, checks: PAGINATION_NAMED.get(e.name) ?? e.checks })),
    );

async function diffWith(entry: Variant | Deviation): Promise<{ code: number; diff: DiffSection; why: string }> {
  proxy().use(entry.rewrite);
  let report: Report | undefined;
  const out: string[] = [];
  const { config, release, offering } = entry.flags ?? {};
  const flags: DiffFlags = {
    config: config ?? proxy().configFile,
    seed: '20261125',
    runs: '1',
    ...(release ? { release } : {}),
    ...(offering ? { offering } : {}),
  };
  const checks = allChecks().filter((c) => entry.checks.includes(c.id));
  const code = await executeDiff(
    flags,
    {
      out: (t) => void out.push(t),
      err: () => undefined,
      checks: () => checks,
      onReport: (r) => (report = r),
      ...(entry.http ? { target: async () => createHttpTarget(loadTargetConfig(flags.config!), entry.http!()) } : {}),
    },
    {},
  ).finally(() => proxy().use(undefined));
  return { code, diff: report!.diff!, why: out.join('') };
}

const uncovered = (diff: DiffSection) =>
  diff.differences.filter((d) => !d.rules.length && !d.allowed).map((d) => `${d.operation} ${d.kind} ${d.subject}`);
const linked = (diff: DiffSection) => [...new Set(diff.differences.flatMap((d) => d.rules))].sort();

describe('diff against a target that differs from the reference only as the source allows', () => {
  const variants = [...sample(REST_VARIANTS), ...sample(VARIANTS.filter((v) => v.warns))];
  it.each(variants.map((v) => [v.name, v] as const))(
    '%s: allowed (or linked to the should rules it breaks on purpose), exit 0',
    async (_name, variant) => {
      const { code, diff, why } = await diffWith(variant);
      expect(uncovered(diff), why).toEqual([]);
      expect(
        linked(diff).filter((r) => !variant.warns?.includes(r)),
        why,
      ).toEqual([]);
      expect(code, why).toBe(0);
    },
    120_000,
  );
});

describe('diff against a target with one deviation seen on real servers', () => {
  const deviations = [...sample(REST_DEVIATIONS), ...sample(OAUTH_DEVIATIONS)];
  it.each(deviations.map((d) => [d.name, d] as const))(
    '%s: linked to its rules, nothing uncovered beside it',
    async (_name, deviation) => {
      const { diff, why } = await diffWith(deviation);
      const rules = linked(diff);
      expect(rules.length, why).toBeGreaterThan(0);
      expect(
        rules.filter((r) => !deviation.breaks.includes(r)),
        why,
      ).toEqual([]);
      expect(uncovered(diff), why).toEqual([]);
    },
    120_000,
  );
});
