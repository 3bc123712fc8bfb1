/**
 * The simulator faults the proxy alone catches from traffic: each with the rule it reports, its
 * verdict (failed for a must, warned for a should) and the one check whose traffic shows it. The
 * README's proxy table lists the same faults in its "yes, now" row (test/proxy/fault-table.test.ts).
 */
export const CAUGHT: [fault: string, rule: string, verdict: string, check: string][] = [
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
  ['keyset-any-order', 'PAG-KEYSET-SELECTED-ENDPOINTS', 'failed', 'pagination.keyset-list-groups'],
  ['keyset-duplicate-row', 'PAG-KEYSET-NEXT-LINK', 'failed', 'pagination.keyset-list-projects'],
  ['invalid-token-anonymous', 'AUTH-INVALID-TOKEN-401', 'warned', 'scopes.revoked-token-401'],
  ['state-dropped', 'GRANT-STATE-ECHO', 'failed', 'grants.state-unchanged'],
  ['link-drops-params', 'PAG-LINK-FOLLOW', 'failed', 'pagination.offset-headers'],
  ['page-default-not-first', 'PAG-PAGE-DEFAULT', 'failed', 'pagination.offset-headers'],
  ['per-page-not-clamped', 'PAG-PER-PAGE-MAX', 'failed', 'pagination.offset-headers'],
  ['invalid-client-no-challenge', 'AUTH-INVALID-CLIENT-BASIC', 'failed', 'grants.client-authentication-failures'],
  ['removed-attributes-present', 'VER-CI-JOB-TOKEN-SCOPE-REMOVED', 'failed', 'versioning.ci-job-token-scope-removed'],
  ['token-info-no-aliases', 'INFO-ALIAS-EXPIRES-IN-SECONDS', 'failed', 'tokens.info-deprecated-aliases'],
];
