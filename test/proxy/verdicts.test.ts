/**
 * The simulator served over HTTP behind `idp-conformance proxy`, driven by the project's own
 * checks: the proxy alone passes the rules it saw exercised, and with a simulator fault whose
 * rule can be judged from traffic, it reports that rule broken (failed for a must, warned for a
 * should), as the run does.
 */
import { describe, expect, it } from 'vitest';
import { runOnSimulator, status } from './behind.js';

const CHECKS = [
  'grants.token-response-fields',
  'grants.token-response-headers',
  'grants.code-single-use',
  'grants.refresh-rotation',
  'pagination.offset-headers',
  'device.single-use',
  'tokens.revoke-access-token',
  'device.slow-down',
  'device.expired-token',
  'device.authorization-response',
  'device.authorization-timings',
  'cors.preflight',
  'cors.x-requested-with-refused',
  'tokens.info-deprecated-aliases',
  'oidc.jwks',
  'versioning.ci-job-token-scope-removed',
  'grants.state-unchanged',
  'grants.client-authentication-failures',
  'oidc.legacy-jwks-removed',
  'scopes.revoked-token-401',
  'pagination.keyset-list-projects',
];
/** A few checks, each run twice, on a shared two-core machine: a bound, not a measurement. */
const SCENARIO_TIMEOUT_MS = 240_000;

describe('proxy verdicts on the simulator', () => {
  it(
    'without a fault: passes what it saw, fails nothing, and agrees with the run on every rule it judged',
    async () => {
      const { proxyCode, proxy: seen, run } = await runOnSimulator('clean', [], { checks: CHECKS });
      const proxy = seen!;
      expect(proxyCode).toBe(0);
      const judged = proxy.rules.filter((r) => r.status !== 'untested');
      expect(judged.filter((r) => r.status !== 'passed')).toEqual([]);
      for (const id of [
        'TOK-NO-STORE',
        'ENC-JSON-CONTENT-TYPE',
        'TOK-CODE-RESPONSE-FIELDS',
        'GRANT-CODE-SINGLE-USE',
        'DEV-SINGLE-USE',
        'TOK-REFRESH-ROTATION',
        'TOK-REFRESH-OLD-REFUSED',
        'REV-REVOKES-TOKEN',
        'PAG-OFFSET-HEADERS',
        'PAG-LINK-HEADER',
        'DEV-SLOW-DOWN',
        'DEV-EXPIRED-TOKEN',
        'DEV-CODE-LIFETIME',
        'DEV-VERIFICATION-URI-COMPLETE',
        'CORS-PREFLIGHT',
        'CORS-X-REQUESTED-WITH-REFUSED',
        'INFO-ALIAS-SCOPES',
        'REV-EMPTY-OBJECT',
        'OIDC-JWKS',
        'VER-CI-JOB-TOKEN-SCOPE-REMOVED',
        'GRANT-STATE-ECHO',
        'PAG-LINK-FOLLOW',
        'PAG-PAGE-DEFAULT',
        'PAG-PER-PAGE-MAX',
        'AUTH-INVALID-CLIENT',
        'VER-JWKS-REMOVED',
        'AUTH-INVALID-TOKEN-401',
        'PAG-KEYSET-NO-OFFSET-HEADERS',
        'PAG-KEYSET-END',
      ])
        expect(status(proxy, id), id).toBe('passed');
      for (const r of judged) if (status(run, r.id)) expect(status(run, r.id), r.id).toBe(r.status);
      // What it did not see stays untested.
      expect(status(proxy, 'GRANT-PASSWORD-2FA-REFUSED')).toBe('untested');
      // The harness polls at once on purpose (device.slow-down): its habit, reported apart from the rules.
      expect(proxy.client?.habits.map((h) => h.habit)).toContain('polls-too-fast');
    },
    SCENARIO_TIMEOUT_MS,
  );

  // Each fault with the one check (of those above) that makes the traffic show it.
  const FAULTS: [fault: string, rule: string, verdict: string, check: string][] = [
    ['token-type-case', 'TOK-TYPE-LOWERCASE-BEARER', 'failed', 'grants.token-response-fields'],
    ['code-reusable', 'GRANT-CODE-SINGLE-USE', 'failed', 'grants.code-single-use'],
    ['device-code-reusable', 'DEV-SINGLE-USE', 'warned', 'device.single-use'],
    ['refresh-token-reusable', 'TOK-REFRESH-OLD-REFUSED', 'failed', 'grants.refresh-rotation'],
    ['x-total-off-by-one', 'PAG-OFFSET-HEADERS', 'failed', 'pagination.offset-headers'],
    ['x-page-zero-based', 'PAG-X-PAGE-STARTS-AT-1', 'failed', 'pagination.offset-headers'],
    ['link-header-dropped', 'PAG-LINK-HEADER', 'failed', 'pagination.offset-headers'],
    ['links-header-present', 'PAG-LINKS-HEADER-REMOVED', 'failed', 'pagination.offset-headers'],
    ['token-cacheable', 'TOK-NO-STORE', 'warned', 'grants.token-response-headers'],
    ['old-access-token-valid', 'TOK-REFRESH-ROTATION', 'failed', 'grants.refresh-rotation'],
    ['revoke-ignored', 'REV-REVOKES-TOKEN', 'failed', 'tokens.revoke-access-token'],
    ['no-slow-down', 'DEV-SLOW-DOWN', 'failed', 'device.slow-down'],
    ['device-code-never-expires', 'DEV-EXPIRED-TOKEN', 'failed', 'device.expired-token'],
    ['device-timings-doubled', 'DEV-POLL-INTERVAL', 'failed', 'device.authorization-timings'],
    ['device-uri-complete-no-user-code', 'DEV-VERIFICATION-URI-COMPLETE', 'failed', 'device.authorization-response'],
    ['cors-no-preflight', 'CORS-PREFLIGHT', 'failed', 'cors.preflight'],
    ['cors-allows-x-requested-with', 'CORS-X-REQUESTED-WITH-REFUSED', 'failed', 'cors.x-requested-with-refused'],
    ['jwks-private-members', 'OIDC-JWKS', 'failed', 'oidc.jwks'],
    ['legacy-jwks-served', 'VER-JWKS-REMOVED', 'failed', 'oidc.legacy-jwks-removed'],
    ['totals-not-omitted', 'PAG-TOTALS-OMITTED', 'failed', 'pagination.totals-omitted-above-limit'],
    ['keyset-offset-headers', 'PAG-KEYSET-NO-OFFSET-HEADERS', 'failed', 'pagination.keyset-list-projects'],
    ['keyset-end-next-link', 'PAG-KEYSET-END', 'failed', 'pagination.keyset-list-projects'],
    ['invalid-token-anonymous', 'AUTH-INVALID-TOKEN-401', 'warned', 'scopes.revoked-token-401'],
    ['state-dropped', 'GRANT-STATE-ECHO', 'failed', 'grants.state-unchanged'],
    ['link-drops-params', 'PAG-LINK-FOLLOW', 'failed', 'pagination.offset-headers'],
    ['page-default-not-first', 'PAG-PAGE-DEFAULT', 'failed', 'pagination.offset-headers'],
    ['per-page-not-clamped', 'PAG-PER-PAGE-MAX', 'failed', 'pagination.offset-headers'],
    ['invalid-client-no-challenge', 'AUTH-INVALID-CLIENT', 'warned', 'grants.client-authentication-failures'],
    ['removed-attributes-present', 'VER-CI-JOB-TOKEN-SCOPE-REMOVED', 'failed', 'versioning.ci-job-token-scope-removed'],
    ['token-info-no-aliases', 'INFO-ALIAS-EXPIRES-IN-SECONDS', 'failed', 'tokens.info-deprecated-aliases'],
  ];
  for (const [fault, rule, verdict, check] of FAULTS)
    it(
      `--fault ${fault}: the proxy alone reports ${rule} ${verdict}`,
      async () => {
        const { proxyCode, proxy, run } = await runOnSimulator(fault, [fault], { checks: [check] });
        expect(status(proxy!, rule)).toBe(verdict);
        expect(status(run, rule)).toBe(verdict);
        expect(proxyCode).toBe(verdict === 'failed' ? 1 : 0);
      },
      SCENARIO_TIMEOUT_MS,
    );
});
