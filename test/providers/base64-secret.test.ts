/**
 * A confidential client whose secret is standard base64 (`+`, `/`, `=` in it: Entra ID's older
 * secrets, any provider that hands out random bytes so encoded), at a provider that reads HTTP
 * Basic as RFC 6749 §2.3.1 says (the client id and secret form-encoded inside it: Spring
 * Authorization Server, Ory Hydra, Zitadel, oidc-provider, and the simulator). The harness must
 * encode them so: a `+` sent as it is reads as a space, and the provider rightly refuses the secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digest } from '../../simulator/digest.js';
import { seeded } from '../../simulator/oauth/accounts.js';
import { targetConfig } from '../../simulator/control/config.js';
import { allChecks } from '../../suites/index.js';
import { checksWith, explain, rulesWith, runAgainst, startProvider, type Provider } from './provider.js';

/** 32 random bytes in standard base64: a `+`, a `/` and the padding. */
const SECRET = 'q8+Vh1/zXk0+RmT3aQ2/9wLc7Ne4pYb+Uo5sJd6KfHg=';

/** The checks that send the confidential client's secret in HTTP Basic, and one in the body. */
const CHECKS = [
  'grants.password-response',
  'grants.password-client-credentials-setting',
  'grants.client-authentication-failures',
  'tokens.revoke-client-auth',
  'grants.token-response-fields',
];

let provider: Provider;

beforeAll(async () => {
  provider = await startProvider(() => undefined);
  // The provider holds this secret for the confidential application.
  provider.sim.store.applications.get(seeded(provider.sim).applications.confidential.uid)!.secretHash = digest(SECRET);
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

describe('a client secret in standard base64, HTTP Basic read as RFC 6749 §2.3.1 says', () => {
  it('is form-encoded inside Basic: nothing fails, errors or is skipped for the secret', async () => {
    const config = targetConfig(provider.sim, provider.url);
    const applications = {
      ...config.applications,
      confidential: { ...config.applications!.confidential!, clientSecret: SECRET },
    };
    const checks = allChecks().filter((c) => CHECKS.includes(c.id));
    const { code, report, stderr } = await runAgainst(provider, { runs: '1' }, checks, { applications });
    const why = explain(report, stderr);
    expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual([]);
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual([]);
    expect(code, why).toBe(0);
    // The secret, raw or encoded, is nowhere in the report.
    const text = JSON.stringify(report);
    for (const form of [SECRET, encodeURIComponent(SECRET), Buffer.from(SECRET).toString('base64')])
      expect(text.includes(form), form).toBe(false);
  }, 120_000);
});
