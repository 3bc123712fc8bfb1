/**
 * The simulator served over HTTP behind `idp-conformance proxy`, driven by the project's own
 * checks: the proxy alone passes the rules it saw exercised, and with a simulator fault whose
 * rule can be judged from traffic, it reports that rule broken (failed for a must, warned for a
 * should), as the run does.
 */
import { describe, expect, it } from 'vitest';
import { runOnSimulator, status } from './behind.js';
import { CAUGHT } from './caught.js';

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
  'pagination.keyset-rows-list-projects',
  'pagination.keyset-list-groups',
  'oidc.discovery-rs256',
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
        'TOK-ERROR-NO-STORE',
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
        'AUTH-INVALID-CLIENT-BASIC',
        'VER-JWKS-REMOVED',
        'AUTH-INVALID-TOKEN-401',
        'PAG-KEYSET-NO-OFFSET-HEADERS',
        'PAG-KEYSET-END',
        'PAG-KEYSET-SELECTED-ENDPOINTS',
        'PAG-KEYSET-ROWS',
        'PAG-KEYSET-NEXT-LINK',
        'OIDC-DISCOVERY-RS256',
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

  for (const [fault, rule, verdict, check] of CAUGHT)
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
