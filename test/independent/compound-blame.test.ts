/**
 * One cause, one blame, under several causes at once: the compounds of corpus deviations
 * (compounds.ts) and the pairs of simulator faults that exposed an interaction when
 * `npm run explore:compounds` and `npm run explore:pairs` ran them (a part that left another
 * check without its premise, or stopped a check before it judged another part's sentence). Each
 * must fail or warn exactly the union of its parts' rules, with no check errored.
 */
import { describe, expect, it } from 'vitest';
import { faults } from '../../spec/index.js';
import { CI_SEED } from '../../suites/runner/defaults.js';
import { describeResults, runWithFaults } from '../suites/fault-matrix.js';
import { blamedRules } from '../../bench/blame-union.js';
import { COMPOUNDS, COMPOUND_PARTS, compoundDeviation } from './compounds.js';
import { expectBlamed } from './corpus.js';
import { oauthDeviationsForTests } from './oauth-deviations.js';
import { proxyForTests, type Answer, type Asked } from './oauth-proxy.js';

const proxy = proxyForTests();
// The other origin some OAuth parts redirect to, started before the tests.
oauthDeviationsForTests(proxy);

/** GitHub refuses every refresh (200 with an error body): no refresh response is there to lack expires_in. */
const NO_REFRESH_RESPONSE = {
  'TOK-REFRESH-RESPONSE-FIELDS':
    'every refresh is refused (200 with an error body): no refresh response to lack expires_in',
};

/**
 * The compounds that exposed something: what it was (the fix is in the commit that added each),
 * and the rules of the union that the compound legitimately hides, each with its reason (two parts
 * that touch the same answer, so the second cannot be seen).
 */
const EXPOSED: Record<string, { found: string; unseen?: Record<string, string> }> = {
  // The harness's own authorization requests carried no state, so a provider that requires one
  // refused every code flow of the run: its other deviations (refresh grace, token lifetime) unseen.
  Okta: { found: 'L17: the client sends state with each authorization request' },
  // The refresh-after-expiry check required the refresh token before judging the access token's
  // lifetime, which needs none: a code response without one hid a lifetime of 3600 s.
  'Entra ID': { found: "L276: the token's lifetime judged apart from the refresh token (L29)" },
  // A missing x-total stopped the offset check before it judged the page size (a cap of 50).
  'a REST API with its own pagination limits': { found: 'L221, L212: the headers said once, the size still judged' },
  // A refused refresh was blamed on other rules by the check of the response fields than by the
  // rotation check, and stopped it before it judged the JSON of an answer asked without Accept.
  'GitHub OAuth app': {
    found: 'L92: a refused refresh is one sentence, blamed alike; L102: JSON judged apart from it',
    unseen: NO_REFRESH_RESPONSE,
  },
  // Both sides behind a limiter that holds every 5th request, token, page or REST read alike: the
  // waits turn no verdict of either side (explore:compounds found the union kept; proven here).
  'GitHub OAuth app and REST API behind its primary rate limit': {
    found: 'L283: a rate limit waited out on both sides, every other verdict kept',
    unseen: NO_REFRESH_RESPONSE,
  },
};

describe('compound deviations are blamed on the union of their parts', () => {
  it.each(COMPOUNDS.filter((c) => c.name in EXPOSED).map((c) => [`${c.name} (${EXPOSED[c.name].found})`, c] as const))(
    '%s',
    async (_label, compound) => {
      const deviation = compoundDeviation(compound);
      const unseen = EXPOSED[compound.name].unseen ?? {};
      await expectBlamed(proxy(), { ...deviation, breaks: deviation.breaks.filter((r) => !(r in unseen)) });
    },
    120_000,
  );
});

/**
 * Corpus deviations of the two sides composed in twos (an OAuth part with a REST part, as
 * explore:compounds composes them) whose overlap is legitimate: one takes the other's premise,
 * said once by the check that owns it, and what leans on it is untested, never failed.
 */
const CROSS: Array<{ parts: [string, string]; unseen: Record<string, string>; untested: RegExp }> = [
  {
    parts: [
      'the token endpoint redirects with 308 to /oauth/token/',
      'a REST API closed to OAuth access tokens (401 to each, personal access tokens still served)',
    ],
    unseen: {
      'TOK-VERIFY-USER': 'no flow gives a token to present: whether the REST API takes one is never asked',
    },
    untested: /the target has no token endpoint/,
  },
];

describe('corpus deviations of the two sides are blamed on the union of their rules', () => {
  it.each(CROSS.map((c) => [c.parts.join(' + '), c] as const))(
    '%s',
    async (name, { parts, unseen, untested }) => {
      const deviation = compoundDeviation({ name, parts });
      await expectBlamed(proxy(), {
        ...deviation,
        breaks: deviation.breaks.filter((r) => !(r in unseen)),
        after(report) {
          // The REST checks that need a flow's token are untested, naming the one premise.
          const rest = report.checks.filter((c) => c.suite === 'scopes');
          expect(rest.length).toBeGreaterThan(0);
          for (const c of rest)
            expect(`${c.status} ${c.message}`, c.id).toMatch(new RegExp(`^skipped .*${untested.source}`));
        },
      });
    },
    120_000,
  );
});

/**
 * Pairs of simulator faults that exposed something (`npm run explore:pairs`, a seeded sample of 200
 * pairs a side: every one it found is here): each runs once, only the checks of the two faults'
 * rules (as the fault matrix does), and must fail or warn exactly their rules but those the pair
 * legitimately hides, each with its reason (`found: 'expected'`).
 *
 * Why a check never reaches what the other fault changes:
 */
const NO_PROJECT =
  'the fixture project is not reached by its %2F-encoded path (ENC-NAMESPACED-PATH, said once): the checks that read it there are untested';
const NO_LINK = 'without Link the walk stops at its first page (PAG-LINK-HEADER, the premise of every walk)';
const LINK_ELSEWHERE =
  "the next link drops the request's parameters and leads to another listing (PAG-LINK-FOLLOW, the walk's premise)";

interface Pair {
  pair: [string, string];
  found: string;
  unseen?: Record<string, string>;
  /** Rules whose checks run too: they lean on a premise the pair took away (and must not error). */
  also?: string[];
}

/** A pair whose overlap is legitimate: the rules of the union it hides, and why. */
const overlap = (pair: [string, string], rules: string[], why: string): Pair => ({
  pair,
  found: 'expected',
  unseen: Object.fromEntries(rules.map((rule) => [rule, why])),
});

const PAIRS: Pair[] = [
  {
    // Without the fixture project the offset check walks the users, too many to walk whole: the size
    // of its last page was judged from x-total, and a wrong x-total blamed on the page size.
    pair: ['x-total-off-by-one', 'encoded-slash-rejected'],
    found: 'L221: a last page that disagrees with x-total breaks the headers, not the page size (L212)',
  },
  {
    // The removed-attribute checks listed feature flags and packages without page=: served an
    // empty second page, they skipped as if the target had none.
    pair: ['page-default-not-first', 'removed-attributes-present'],
    found: 'L204: the default page is its own sentence; the attribute checks ask page=1',
  },
  {
    // The premise of every check that reaches the fixture project (is it listed, when its encoded
    // path is refused?) read the project list without page=: served its second page, 26 checks
    // errored as if the config named a project that is not there.
    pair: ['page-default-not-first', 'encoded-slash-rejected'],
    found: 'L204: the project list read at page=1, so ENC-NAMESPACED-PATH is failed, not the config blamed',
    also: ['VER-CI-JOB-TOKEN-SCOPE-REMOVED', 'ENC-MOVED-REDIRECT'],
  },
  // A sentence that nothing after it reads, repeated by every page (an offset header, the removed
  // Links, an offset header on a keyset page, the refusal of an ordering), stopped the check at its
  // first failure and hid the other fault's: now said once, softly (softOnce), the rest judged.
  { pair: ['x-total-off-by-one', 'x-page-zero-based'], found: 'L221: x-page and x-total judged apart' },
  { pair: ['x-page-zero-based', 'per-page-not-clamped'], found: 'L221, L212: x-page and the page size judged apart' },
  { pair: ['links-header-present', 'x-page-zero-based'], found: 'L217: the removed Links said once' },
  { pair: ['links-header-present', 'x-total-off-by-one'], found: 'L217: the removed Links said once' },
  { pair: ['links-header-present', 'totals-not-omitted'], found: 'L217, L279: the removed Links said once' },
  { pair: ['links-header-present', 'keyset-end-next-link'], found: 'L217: the removed Links said once' },
  {
    pair: ['link-header-dropped', 'keyset-offset-headers'],
    found: 'L221: offset headers on a keyset page said once',
  },
  {
    pair: ['keyset-any-order', 'keyset-offset-headers'],
    found: 'L224-237: other orderings judged first, apart from the walks',
  },
  { pair: ['link-drops-params', 'keyset-any-order'], found: 'L224-237: other orderings judged apart from the walks' },
  { pair: ['link-drops-params', 'keyset-offset-headers'], found: "L221: a keyset first page's headers judged apart" },
  {
    pair: ['link-drops-params', 'page-default-not-first'],
    found: 'L204: the default page compared with page=1 before the walk',
  },
  {
    pair: ['per-page-not-clamped', 'keyset-any-order'],
    found: 'L224-237: other orderings judged apart from the walks',
  },
  // Legitimate: both faults touch the same answer, or one takes away the other's premise (said once).
  overlap(
    ['keyset-end-next-link', 'keyset-duplicate-row'],
    ['PAG-KEYSET-END'],
    'the page past the last row holds that row again: there is no empty end page to link on',
  ),
  overlap(
    ['link-header-dropped', 'links-header-present'],
    ['PAG-LINKS-HEADER-REMOVED'],
    "the simulator's Links copies Link: with Link dropped there is none",
  ),
  overlap(['link-header-dropped', 'link-drops-params'], ['PAG-LINK-FOLLOW'], NO_LINK),
  overlap(['link-header-dropped', 'keyset-end-next-link'], ['PAG-KEYSET-END'], NO_LINK),
  overlap(['link-header-dropped', 'keyset-duplicate-row'], ['PAG-KEYSET-ROWS'], NO_LINK),
  overlap(['link-header-dropped', 'per-page-not-clamped'], ['PAG-KEYSET-PARAMS'], NO_LINK),
  overlap(['link-header-dropped', 'x-total-off-by-one'], ['PAG-OFFSET-HEADERS'], NO_LINK),
  overlap(['link-drops-params', 'x-total-off-by-one'], ['PAG-OFFSET-HEADERS'], LINK_ELSEWHERE),
  overlap(['link-drops-params', 'per-page-not-clamped'], ['PAG-KEYSET-PARAMS'], LINK_ELSEWHERE),
  overlap(['link-drops-params', 'keyset-end-next-link'], ['PAG-KEYSET-END'], LINK_ELSEWHERE),
  overlap(['link-drops-params', 'keyset-duplicate-row'], ['PAG-KEYSET-ROWS', 'PAG-KEYSET-NEXT-LINK'], LINK_ELSEWHERE),
  overlap(
    ['git-write-repository-refused', 'git-any-token'],
    ['AUTH-GIT-HTTPS-TOKEN'],
    'both decide the same push: any valid token accepted, write_repository refused no more',
  ),
  // The OAuth side: all 528 pairs, these three alone, each two faults deciding the same answer.
  overlap(
    ['loopback-port-exact', 'authorize-open-redirect'],
    ['GRANT-REDIRECT-LOOPBACK-PORT'],
    'every redirect_uri is accepted unchecked: the exact port is never compared',
  ),
  overlap(
    ['cors-allows-x-requested-with', 'cors-no-preflight'],
    ['CORS-X-REQUESTED-WITH-REFUSED', 'CORS-ALLOWED-HEADERS-LIMITED'],
    'no preflight is answered: no header is allowed, X-Requested-With neither',
  ),
  overlap(
    ['password-client-credentials-setting-ignored', 'password-requires-client'],
    ['GRANT-PASSWORD-CLIENT-CREDENTIALS-SETTING'],
    'client credentials are required whatever the setting: its being ignored cannot show',
  ),
  overlap(['encoded-slash-rejected', 'totals-not-omitted'], ['PAG-TOTALS-OMITTED'], NO_PROJECT),
  overlap(['encoded-slash-rejected', 'no-moved-redirect'], ['ENC-MOVED-REDIRECT'], NO_PROJECT),
  overlap(['encoded-slash-rejected', 'unencoded-slash-accepted'], ['ENC-UNENCODED-404'], NO_PROJECT),
  overlap(['encoded-slash-rejected', 'plus-read-as-plus'], ['ENC-PLUS-AS-2B'], NO_PROJECT),
  overlap(['encoded-slash-rejected', 'iid-accepts-global-id'], ['ENC-IID-IN-PATH'], NO_PROJECT),
  overlap(['encoded-slash-rejected', 'tree-missing-path-200'], ['ERR-TREE-MISSING-PATH-404'], NO_PROJECT),
  overlap(
    ['encoded-slash-rejected', 'removed-attributes-present'],
    ['VER-CI-JOB-TOKEN-SCOPE-REMOVED', 'VER-FEATURE-FLAG-VERSION-REMOVED', 'VER-PACKAGES-PIPELINES-REMOVED'],
    NO_PROJECT,
  ),
];

describe('pairs of faults are blamed on the union of their rules', () => {
  const seed = Number(process.env.IDP_SEED ?? CI_SEED);
  it.each(PAIRS.map((p) => [`${p.pair.join(' + ')} (${p.found})`, p] as const))(
    '%s',
    async (_label, { pair, unseen = {}, also = [] }) => {
      const on = pair.map((name) => faults().find((f) => f.name === name)!);
      const { report } = await runWithFaults(on, seed, undefined, false, also);
      const expected = [...new Set(on.flatMap((f) => f.rules))].filter((r) => !(r in unseen));
      expect([...blamedRules(report)].sort(), `seed ${seed}:\n${describeResults(report.checks)}`).toEqual(
        expected.sort(),
      );
      expect(report.checks.filter((c) => c.status === 'errored').map((c) => c.id)).toEqual([]);
    },
    120_000,
  );
});

/**
 * A compound hands each part every answer of the run, of either side: a part must pass over what
 * it does not concern. One that threw instead (rel=next on the last offset page read every answer
 * as a JSON list, a sign-in page too) turned that answer into the proxy's 502, and every check of
 * the other side that met it errored (explore:compounds, an OAuth part with it).
 */
describe('each part of a compound passes over the answers it does not concern', () => {
  const json = (value: unknown, head: Record<string, string> = {}, status = 200): Answer => ({
    status,
    head: new Map(Object.entries({ 'content-type': 'application/json', ...head }).map(([k, v]) => [k, [v]])),
    body: Buffer.from(JSON.stringify(value)),
  });
  const html = (status: number): Answer => ({
    status,
    head: new Map([['content-type', ['text/html; charset=utf-8']]]),
    body: Buffer.from('<!DOCTYPE html><html><body><form method="post"></form></body></html>'),
  });
  const rows = [{ id: 2 }, { id: 1 }];
  /** What a run meets on both sides: pages, token and discovery answers, REST lists and refusals. */
  const MET: Array<[string, string, () => Answer]> = [
    ['GET', '/oauth/authorize?client_id=a&response_type=code&state=s', () => html(200)],
    ['POST', '/oauth/token', () => json({ access_token: 'a', token_type: 'Bearer', expires_in: 7200, created_at: 1 })],
    ['GET', '/.well-known/openid-configuration', () => json({ issuer: 'http://127.0.0.1' })],
    [
      'GET',
      '/api/v4/projects?page=1&per_page=2',
      () => json(rows, { 'x-page': '1', 'x-next-page': '', 'x-per-page': '2', 'x-total': '2', 'x-total-pages': '1' }),
    ],
    [
      'GET',
      '/api/v4/projects?pagination=keyset&per_page=2&order_by=id&sort=desc',
      () => json(rows, { link: '<http://127.0.0.1/api/v4/projects?id_before=1>; rel="next"' }),
    ],
    ['GET', '/api/v4/user', () => json({ message: '401 Unauthorized' }, { 'www-authenticate': 'Bearer' }, 401)],
    ['GET', '/api/v4/no-such-route', () => html(404)],
  ];

  it.each(COMPOUND_PARTS.map((part) => [part.name, part] as const))('%s', async (_name, part) => {
    const sim = proxy().sim;
    for (const [method, path, answer] of MET) {
      const asked: Asked = {
        method,
        url: new URL(path, 'http://127.0.0.1'),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: Buffer.from(method === 'POST' ? 'grant_type=authorization_code&code=c&client_id=a' : ''),
      };
      const { rewrite } = part;
      const met = async () => {
        rewrite.request?.(asked, sim);
        rewrite.refuse?.(asked);
        await rewrite.answer?.(asked, answer(), sim);
      };
      await expect(met(), `${method} ${path}`).resolves.toBeUndefined();
    }
  });
});
