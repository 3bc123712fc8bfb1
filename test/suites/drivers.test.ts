/** The form and manual drivers against the simulator's real pages (no control API used). */
import { describe, expect, it } from 'vitest';
import { createEmbeddedTarget } from '../../suites/target/embedded.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { createFormDriver } from '../../suites/drivers/form.js';
import { createManualDriver } from '../../suites/drivers/manual.js';
import { createOAuthFlows } from '../../suites/runner/oauth.js';
import { createRandom } from '../../suites/runner/random.js';

async function setup() {
  const target = await createEmbeddedTarget();
  const http = createHttp(target, createRecorder(50), createRedactor());
  const driver = createFormDriver(http, target.config);
  const flows = createOAuthFlows(http, driver, target.config, createRedactor(), createRandom(1));
  return { target, http, driver, flows };
}

describe('form driver (generic HTML forms, cookie jar, CSRF from the page)', () => {
  it('signs in, approves consent and lands on the redirect URI with a code and the state', async () => {
    const { driver, flows, target } = await setup();
    const { redirect } = await driver.authorize(flows.authorizeUrl('confidential', { state: 'st-1' }), 'approve');
    expect(redirect?.href.startsWith(target.config.applications!.confidential!.redirectUri)).toBe(true);
    expect(redirect?.searchParams.get('code')).toBeTruthy();
    expect(redirect?.searchParams.get('state')).toBe('st-1');
  });

  it('denies consent: the redirect carries access_denied and no code', async () => {
    const { driver, flows } = await setup();
    const { redirect } = await driver.authorize(flows.authorizeUrl('confidential', { state: 's' }), 'deny');
    expect(redirect?.searchParams.get('error')).toBe('access_denied');
    expect(redirect?.searchParams.get('code')).toBeNull();
  });

  it('says whether it pressed anything past the sign-in, and whether the run met a consent (grants.consent-denied reads both)', async () => {
    const { driver, flows } = await setup();
    const outcome = await driver.authorize(flows.authorizeUrl('confidential', { state: 's' }), 'approve');
    expect([outcome.decided, outcome.stepped, outcome.consentSeen]).toEqual([true, true, true]);
  });

  it('approves a device code through the verification page, and the device gets its token', async () => {
    const { driver, flows, http, target } = await setup();
    const app = target.config.applications!.public ?? target.config.applications!.confidential!;
    const start = (
      await http.post('/oauth/authorize_device', { form: { client_id: app.clientId, scope: app.scopes[0] } })
    ).json<{ device_code: string; user_code: string }>();
    await driver.approveDevice(start.user_code);
    const token = await flows.tokenRequest(
      { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: start.device_code },
      { app: target.config.applications!.public ? 'public' : 'confidential' },
    );
    expect(token.status).toBe(200);
    expect(token.json<{ access_token?: string }>().access_token).toBeTruthy();
  });
});

describe('manual driver', () => {
  it('asks the operator and reads the pasted redirect URL', async () => {
    const { http, flows } = await setup();
    const questions: string[] = [];
    const driver = createManualDriver(http, {
      ask: async (q) => (questions.push(q), 'https://client.test/cb?code=abc&state=xyz'),
    });
    const { redirect } = await driver.authorize(flows.authorizeUrl('confidential'), 'approve');
    expect(questions[0]).toContain('/oauth/authorize?');
    expect(redirect?.searchParams.get('code')).toBe('abc');
    await driver.approveDevice('WXYZ-1234');
    expect(questions[1]).toContain('WXYZ-1234');
    await expect(driver.advanceClock(5)).rejects.toThrow(/no clock control/);
  });
});
