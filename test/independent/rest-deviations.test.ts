/**
 * A deviation of the REST API is blamed on exactly the rule it breaks: the simulator behind the
 * loopback proxy of oauth-proxy.ts, injecting one deviation seen on real servers at a time into its
 * /api/v4 answers (the same judgement as oauth-deviations.test.ts). Deviations the simulator has as
 * a fault (x-page from 0, per_page not capped, ...) are proven by the fault matrix, not here.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectBlamed, labelled } from './corpus.js';
import { blamed, explain, proxyForTests, setJson, type Answer } from './oauth-proxy.js';
import { credentialed, nginxPage } from './rest-variants.js';
import { closedToOAuthTokens, REST_DEVIATIONS as DEVIATIONS } from './rest-deviations.js';

const proxy = proxyForTests();

describe('REST API deviations seen on real servers, injected by a proxy in front of the simulator', () => {
  it.each(labelled(DEVIATIONS))(
    '%s: exactly its rules fail or warn',
    (_label, deviation) => expectBlamed(proxy(), deviation),
    300_000,
  );
});

describe('a REST API closed to OAuth access tokens, and no personal access token configured', () => {
  it('is reported once; the REST checks that reach the API with a flow token are skipped', async () => {
    const config = JSON.parse(readFileSync(proxy().configFile, 'utf8')) as Record<string, unknown>;
    delete config.personalAccessToken;
    const file = join(dirname(proxy().configFile), 'no-pat.json');
    writeFileSync(file, JSON.stringify(config));
    const reaching = ['pagination.offset-headers', 'encoding.namespaced-path-encoded', 'versioning.member-roles'];
    await expectBlamed(proxy(), {
      name: 'closed to OAuth tokens, no PAT',
      cite: 'L248',
      checks: ['scopes.presentation-bearer', ...reaching],
      breaks: ['TOK-VERIFY-USER'],
      rewrite: closedToOAuthTokens,
      flags: { config: file },
      after(report) {
        const skipped = new Map(report.checks.filter((c) => c.status === 'skipped').map((c) => [c.id, c.message]));
        for (const id of reaching)
          expect(skipped.get(id), id).toMatch(/no personal access token is configured .*presentation-bearer/);
      },
    });
  }, 300_000);
});

describe('an instance newer than its config says (the simulator plays 18.0, the config says 17.6)', () => {
  // An upgrade nobody wrote into the harness's config: only what changed between the two releases fails.
  it('fails exactly the release-gated rule whose answer changed (the tree of a missing path: 404, L265)', async () => {
    const checks = [
      'versioning.tree-missing-path-404',
      'versioning.tree-missing-path-empty',
      'versioning.ci-job-token-scope-removed',
      'versioning.member-roles',
      'pagination.keyset-list-repository-tree',
      'pagination.users-offset-limit',
    ];
    const { report, stderr } = await proxy().run('newer-than-config', checks, { release: '17.6' });
    const why = explain(report, stderr);
    expect([...new Set(blamed(report).map((v) => v.rule))], why).toEqual(['ERR-TREE-MISSING-PATH-EMPTY']);
    expect(report.checks.filter((c) => c.status === 'errored').map((c) => c.id)).toEqual([]);
    // The rule of the newer release is out of force at 17.6: its check is skipped, not passed.
    expect(report.checks.find((c) => c.id === 'versioning.tree-missing-path-404')?.status).toBe('skipped');
  }, 300_000);
});

/** Fronts that answer every /api/v4 request themselves, the API behind them out of reach. */
const API_OUT_OF_REACH = [
  {
    // Puma down behind GitLab's nginx: every /api/v4 request gets nginx's 502 page; /oauth is served.
    name: "nginx's 502 page (the API backend down)",
    status: 502,
    answer: (answer: Answer) => nginxPage(answer, 502, 'Bad Gateway'),
  },
  {
    // A maintenance window announced by the load balancer (HAProxy's or Cloudflare's maintenance page).
    name: 'a maintenance 503 with Retry-After: 3600 (longer than the harness waits)',
    status: 503,
    answer: (answer: Answer) => {
      nginxPage(answer, 503, 'Service Temporarily Unavailable');
      answer.head.set('retry-after', ['3600']);
    },
  },
];

describe('a REST API out of reach behind the proxy in front, the OAuth endpoints served', () => {
  it.each(API_OUT_OF_REACH.map((c) => [c.name, c] as const))(
    '%s: reported once, errored (an outage breaks no sentence of the source); the REST checks untested, the OAuth checks judged',
    async (_name, { status: code, answer: front }) => {
      const restChecks = [
        'scopes.presentation-bearer',
        'scopes.read-user-reads-current-user',
        'pagination.offset-headers',
        'pagination.keyset-list-projects',
        'encoding.namespaced-path-encoded',
        'versioning.unknown-route-404',
        'versioning.rest-errors-json',
      ];
      proxy().use({
        answer(asked, answer) {
          if (!asked.url.pathname.startsWith('/api/v4/')) return false;
          front(answer);
          return true;
        },
      });
      const {
        code: exit,
        report,
        stderr,
      } = await proxy()
        .run(`rest-api-${code}`, ['versioning.api-prefix', ...restChecks, 'grants.refresh-rotation'])
        .finally(() => proxy().use(undefined));
      const why = explain(report, stderr);
      expect(blamed(report), why).toEqual([]);
      const status = new Map(report.checks.map((c) => [c.id, c]));
      expect(status.get('versioning.api-prefix')?.status, why).toBe('errored');
      expect(status.get('versioning.api-prefix')?.message).toMatch(
        new RegExp(`GET /api/v4/user answered ${code}, a gateway error`),
      );
      for (const id of restChecks) {
        expect(status.get(id)?.status, `${id}\n${why}`).toBe('skipped');
        expect(status.get(id)?.message, id).toMatch(
          new RegExp(
            `the REST API is unreachable: GET /api/v4/user answered ${code}, a gateway error, at start-up \\(versioning.api-prefix reports it\\)`,
          ),
        );
      }
      // The OAuth side is judged, with other oracles than the REST API.
      expect(status.get('grants.refresh-rotation')?.status, why).toBe('passed');
      expect(exit, why).toBe(2);
    },
    300_000,
  );
});

/** Fronts whose REST API refuses the harness's credentials, whoever presents them; OAuth served. */
const CREDENTIALS_REFUSED = [
  {
    // The account of the config blocked (or its token expired, revoked).
    name: "GitLab's 403 for a blocked account",
    status: 403,
    refuses: credentialed,
    head: [] as Array<[string, string[]]>,
    body: { message: '403 Forbidden - Your account has been blocked.' },
  },
  {
    // Kong's key-auth plugin in front: it wants a key of its own, before any token is read.
    name: "an API gateway's 401 asking for its own key (Kong key-auth)",
    status: 401,
    refuses: () => true,
    head: [['www-authenticate', ['Key realm="kong"']]] as Array<[string, string[]]>,
    body: { message: 'No API key found in request' },
  },
];

describe('a REST API that refuses the configured credentials, OAuth served', () => {
  // The harness's credentials, not a sentence of the source. Before, 5 must rules of 4 checks
  // failed on the blocked account's 403s.
  it.each(CREDENTIALS_REFUSED.map((c) => [c.name, c] as const))(
    '%s: reported once, errored, by versioning.api-prefix; the REST checks untested, the OAuth checks judged',
    async (name, front) => {
      const restChecks = [
        'scopes.presentation-bearer',
        'scopes.read-user-reads-current-user',
        'pagination.offset-headers',
        'pagination.keyset-list-projects',
        'encoding.namespaced-path-encoded',
        'versioning.member-roles',
      ];
      proxy().use({
        answer(asked, answer) {
          if (!asked.url.pathname.startsWith('/api/v4/') || !front.refuses(asked)) return false;
          answer.status = front.status;
          answer.head = new Map([['content-type', ['application/json']], ...front.head]);
          setJson(answer, front.body);
          return true;
        },
      });
      const { code, report, stderr } = await proxy()
        .run(name.replace(/\W+/g, '-'), ['versioning.api-prefix', ...restChecks, 'grants.refresh-rotation'])
        .finally(() => proxy().use(undefined));
      const why = explain(report, stderr);
      expect(blamed(report), why).toEqual([]);
      const status = new Map(report.checks.map((c) => [c.id, c]));
      expect(status.get('versioning.api-prefix')?.status, why).toBe('errored');
      expect(status.get('versioning.api-prefix')?.message).toMatch(
        new RegExp(`GET /api/v4/user answered ${front.status} to the configured personal access token at start-up`),
      );
      for (const id of restChecks) {
        expect(status.get(id)?.status, `${id}\n${why}`).toBe('skipped');
        expect(status.get(id)?.message, id).toMatch(
          new RegExp(
            `the REST API refuses the configured personal access token: GET /api/v4/user answered ${front.status} at start-up \\(versioning.api-prefix reports it\\)`,
          ),
        );
      }
      // Neither the target's own words nor the token are in the report.
      const pat = (JSON.parse(readFileSync(proxy().configFile, 'utf8')) as { personalAccessToken: string })
        .personalAccessToken;
      expect(JSON.stringify(report)).not.toContain(front.body.message);
      expect(JSON.stringify(report)).not.toContain(pat);
      expect(status.get('grants.refresh-rotation')?.status, why).toBe('passed');
      expect(code, why).toBe(2);
    },
    300_000,
  );
});
