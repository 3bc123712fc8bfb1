/**
 * One cause, one blame in `diff`: when the target lacks a premise (an endpoint absent, an
 * OAuth-only server without /api/v4, a REST API out of reach behind a front, the configured user's
 * sign-in refused, a bot wall or a maintenance page in the provider's place), the check that owns it reports it once; the checks that rested on it are listed
 * as not compared, with the reason, and the reference's exchanges for them are no differences.
 * Against the simulator behind the loopback rewriting proxy of test/independent/, a few checks each.
 */
import { describe, expect, it } from 'vitest';
import { executeDiff } from '../../cli/diff.js';
import { allChecks } from '../../suites/index.js';
import type { DiffSection, Report } from '../../suites/report/model.js';
import { proxyForTests, type Answer, type Rewrite } from '../independent/oauth-proxy.js';

const proxy = proxyForTests();

/** Every answer under `prefix` (an exact path for a POST) replaced by `status` and an HTML page. */
const answered = (matches: (method: string, path: string) => boolean, status: number, page: string): Rewrite => ({
  answer(asked, answer: Answer) {
    if (!matches(asked.method, asked.url.pathname)) return false;
    answer.status = status;
    answer.head = new Map([['content-type', ['text/html; charset=utf-8']]]);
    answer.body = Buffer.from(page);
    return true;
  },
});

async function diffWith(rewrite: Rewrite, ids: string[]): Promise<{ code: number; diff: DiffSection; out: string }> {
  proxy().use(rewrite);
  let report: Report | undefined;
  const out: string[] = [];
  const checks = allChecks().filter((c) => ids.includes(c.id));
  const code = await executeDiff(
    { config: proxy().configFile, seed: '20261125', runs: '1' },
    { out: (t) => void out.push(t), err: () => undefined, checks: () => checks, onReport: (r) => (report = r) },
    {},
  ).finally(() => proxy().use(undefined));
  return { code, diff: report!.diff!, out: out.join('') };
}

/** `operation kind subject: rules` of each difference. */
const rows = (diff: DiffSection) =>
  diff.differences.map(
    (d) => `${d.operation} ${d.kind} ${d.subject}: ${d.rules.join(',') || d.allowed || 'uncovered'}`,
  );
const uncompared = (diff: DiffSection) => (diff.notCompared ?? []).flatMap((n) => n.checks).sort();

const CASES = [
  {
    name: 'the token endpoint absent (404)',
    rewrite: answered((_m, p) => p === '/oauth/token', 404, '<h1>Not Found</h1>'),
    checks: [
      'grants.token-response-fields',
      'grants.refresh-rotation',
      'grants.code-single-use',
      'tokens.revoke-access-token',
    ],
    rows: ['POST /oauth/token status status: GRANT-CODE-PARAMS'],
    notCompared: ['grants.code-single-use', 'grants.refresh-rotation', 'tokens.revoke-access-token'],
    reason: /no token endpoint/,
    code: 1,
  },
  {
    name: 'an OAuth-only server: no /api/v4 (404)',
    rewrite: answered((_m, p) => p.startsWith('/api/v4'), 404, '<h1>Not Found</h1>'),
    checks: [
      'versioning.api-prefix',
      'scopes.presentation-bearer',
      'pagination.offset-headers',
      'grants.refresh-rotation',
    ],
    rows: ['GET /api/v4/user status status: ENC-API-PREFIX'],
    notCompared: ['pagination.offset-headers', 'scopes.presentation-bearer'],
    reason: /the target has no REST API/,
    code: 1,
  },
  {
    name: "the REST API out of reach (a front's 502 page)",
    rewrite: answered((_m, p) => p.startsWith('/api/v4/'), 502, '<h1>502 Bad Gateway</h1>'),
    checks: [
      'versioning.api-prefix',
      'scopes.presentation-bearer',
      'pagination.offset-headers',
      'grants.refresh-rotation',
    ],
    rows: [],
    notCompared: ['pagination.offset-headers', 'scopes.presentation-bearer', 'versioning.api-prefix'],
    reason: /GET \/api\/v4\/user answered 502, a gateway error/,
    code: 2,
  },
  {
    // Every path of the provider (not the simulator's control API, which is the test's) walled.
    name: "Cloudflare's challenge on every path",
    rewrite: answered(
      (_m, p) => !p.startsWith('/-/simulator/'),
      403,
      '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>',
    ),
    checks: ['grants.token-response-fields', 'grants.refresh-rotation', 'versioning.api-prefix'],
    rows: [],
    notCompared: ['grants.refresh-rotation', 'grants.token-response-fields', 'versioning.api-prefix'],
    reason:
      /^the target's bot protection refuses the harness: 3 requests in a row were answered by Cloudflare's bot challenge/,
    code: 2,
  },
  {
    // The start-up is served, and the first check's first steps (24 requests), then a maintenance window opens.
    name: 'a maintenance 503 page from the 25th request on',
    rewrite: (() => {
      let count = 0;
      return answered(() => ++count > 24, 503, '<h1>503 Service Temporarily Unavailable</h1><hr>nginx');
    })(),
    checks: [
      'versioning.api-prefix',
      'grants.token-response-fields',
      'grants.refresh-rotation',
      'tokens.revoke-access-token',
    ],
    rows: [],
    notCompared: [
      'grants.refresh-rotation',
      'grants.token-response-fields',
      'tokens.revoke-access-token',
      'versioning.api-prefix',
    ],
    reason:
      /^a gateway answered instead of the provider \([A-Z]+ \/[^ ]*: 503 text\/html|^the target stopped serving: 3 requests in a row answered 503,/,
    code: 2,
  },
  {
    name: "the configured user's sign-in refused (the form again)",
    rewrite: answered(
      (m, p) => m === 'POST' && p === '/users/sign_in',
      200,
      '<form method="post" action="/users/sign_in"><p>Invalid login or password.</p><input name="user[login]"><input type="password" name="user[password]"><button>Sign in</button></form>',
    ),
    checks: ['grants.token-response-fields', 'grants.refresh-rotation', 'tokens.revoke-access-token', 'oidc.discovery'],
    rows: [],
    notCompared: ['grants.refresh-rotation', 'grants.token-response-fields', 'tokens.revoke-access-token'],
    reason: /refused the (sign-in of the configured user|configured user's sign-in)/,
    code: 2,
  },
];

describe('diff against a target without a premise', () => {
  it.each(CASES.map((c) => [c.name, c] as const))(
    '%s: reported once; what rested on it is listed as not compared, not as differences',
    async (_name, c) => {
      const { code, diff, out } = await diffWith(c.rewrite, c.checks);
      expect(rows(diff), out).toEqual(c.rows);
      expect(uncompared(diff), out).toEqual(c.notCompared);
      for (const entry of diff.notCompared ?? []) {
        expect(entry.reason, out).toMatch(c.reason);
        expect(entry.operations.length).toBeGreaterThan(0);
      }
      expect(out).toContain(`not compared: ${diff.notCompared![0].checks.join(', ')}: `);
      expect(out).toMatch(
        c.rows.length ? /; \d checks? not compared \(above\)/ : /No difference in what was compared\./,
      );
      expect(code, out).toBe(c.code);
    },
    120_000,
  );
});
