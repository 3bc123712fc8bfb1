/**
 * An issuer with a path (Keycloak's /realms/NAME) is no failure by itself: with the base URL at the
 * realm, every endpoint lies under it; with the base URL at the root and the issuer configured,
 * discovery is read at {issuer}/.well-known/openid-configuration (OIDC Discovery §4), not at the root.
 * Nor is a REST API under such a path prefix (`http://host/gitlab/api/v4`) whose Link and Location
 * are relative references: RFC 8288 §3.2 resolves a Link against the answer's URL, RFC 9110 §10.2.2
 * a Location against the request's, so `?page=2`, a path-absolute `/realms/conformance/api/v4/…`
 * and a path-relative `group%2Fnew-name` lead where the absolute URL would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import { readTargetProfile } from '../../suites/diff/profile.js';
import { allChecks } from '../../suites/index.js';
import { createHttpTarget } from '../../suites/target/http.js';
import { checksWith, runAgainst, rulesWith, erroredText } from './provider.js';
import { startPathProvider, type PathProvider } from './issuer-path.js';

/** The checks that read discovery, the issuer, or a URL the provider writes under its path. */
const CHECKS = [
  'oidc.discovery',
  'oidc.id-token',
  'tokens.json-content-type',
  'grants.token-response-fields',
  'device.authorization-response',
  'device.token-response',
];
const checks = () => allChecks().filter((c) => CHECKS.includes(c.id));

describe('an issuer with a path', () => {
  let realmOnly: PathProvider;
  let rootToo: PathProvider;
  beforeAll(async () => {
    [realmOnly, rootToo] = await Promise.all([startPathProvider(), startPathProvider({ rootToo: true })]);
  });
  afterAll(() => Promise.all([realmOnly.close(), rootToo.close()]));

  it('served under the realm alone, the base URL at the realm: nothing fails or warns', async () => {
    const { code, report } = await runAgainst({ sim: realmOnly.sim, url: realmOnly.issuer }, {}, checks());
    expect(rulesWith(report, 'failed', 'warned'), erroredText(report)).toEqual([]);
    expect(
      report.checks
        .filter((c) => c.status === 'passed')
        .map((c) => c.id)
        .sort(),
    ).toEqual([...CHECKS].sort());
    expect(code).toBe(0);
  });

  it('the base URL at the root and the issuer at the realm: discovery is read under the issuer', async () => {
    const { code, report } = await runAgainst({ sim: rootToo.sim, url: rootToo.url }, {}, checks());
    expect(rulesWith(report, 'failed', 'warned'), erroredText(report)).toEqual([]);
    expect(report.checks.find((c) => c.id === 'oidc.discovery')?.status).toBe('passed');
    expect(code).toBe(0);
  });

  it('diff reads the flags a discovery document ties to from the one under the issuer too', async () => {
    const profile = await readTargetProfile(createHttpTarget(targetConfig(rootToo.sim, rootToo.url)));
    expect(profile.read.join('\n')).toMatch(
      /^device_authorization_grant on \(GET \/realms\/conformance\/\.well-known\/openid-configuration\)$/m,
    );
    expect(profile.flags.device_authorization_grant).toBe(true);
  });
});

/** The checks that follow a Link or a Location the REST API writes. */
const FOLLOWING = [
  'pagination.keyset-list-projects',
  'pagination.keyset-rows-list-projects',
  'pagination.offset-headers',
  'encoding.moved-path-redirect',
];

describe('a REST API under a path prefix, its Link and Location relative references', () => {
  let provider: PathProvider;
  beforeAll(async () => {
    provider = await startPathProvider({ relative: true });
  });
  afterAll(() => provider.close());

  it('allowed: every check that follows them passes', async () => {
    const only = allChecks().filter((c) => FOLLOWING.includes(c.id));
    const { code, report } = await runAgainst({ sim: provider.sim, url: provider.issuer }, {}, only);
    const why = report.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`).join('\n');
    expect(checksWith(report, 'passed'), why).toEqual([...FOLLOWING].sort());
    expect(code, why).toBe(0);
  });
});
