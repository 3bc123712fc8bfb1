/**
 * Ory Hydra's state rule (fosite's minimum parameter entropy): an authorization request whose state
 * is shorter than 8 characters is refused before anything else is looked at, by a redirect to the
 * client with `error=invalid_state` ("The state is missing or does not have enough characters and is
 * therefore considered too weak"), no code and no state. The source's state is "a non-predictable
 * value" (L17), RFC 6749 §10.12 asks for a non-guessable one: a client sending one of a character
 * is outside both, and its refusal breaks no sentence. A provider that refuses a state any client
 * may send (here: shorter than 64 characters, the harness's 24-character ones among them) still
 * fails GRANT-AUTHORIZE-PARAMS, the rule that says state is taken. Before, the harness sent states
 * of one character (`m`, `p` in the PKCE method checks, the state property's shortest draws): the
 * Hydra-like provider failed GRANT-AUTHORIZE-PARAMS, PKCE-METHOD-UNSUPPORTED and PKCE-METHOD-PLAIN
 * (musts), exit 1. Review 18: `scope-${at}` of grants.scope-outside-application was 7 characters for
 * at < 10 (GRANT-AUTHORIZE-ERROR-PARAMS and GRANT-SCOPE-INVALID-SCOPE failed); every state now comes
 * from runner/state.ts (test/suites/states.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import { allChecks } from '../../suites/index.js';
import { explain, rulesWith, runAgainst, startProvider, type Provider, type Reply } from './provider.js';

/** The checks that send a state of their own choosing, short or drawn. */
const CHECKS = [
  'grants.state-unchanged',
  'grants.pkce-method-unsupported',
  'grants.pkce-method-plain',
  'grants.scope-outside-application',
];

/** The shortest state the provider takes: 8 as Hydra's, or 64 (every state a client sends refused). */
let minimum = 8;
/** The states the provider refused. */
const refused: string[] = [];
let provider: Provider;

/** fosite's invalid_state redirect (its WriteAuthorizeError: the state was never taken, none goes back). */
function tooWeak(url: URL): Reply {
  const back = new URL(url.searchParams.get('redirect_uri') ?? '');
  back.searchParams.set('error', 'invalid_state');
  back.searchParams.set(
    'error_description',
    `The state is missing or does not have enough characters and is therefore considered too weak. Request parameter 'state' must be at least be ${minimum} characters long to ensure sufficient entropy.`,
  );
  return { status: 303, headers: { location: back.href } };
}

beforeAll(async () => {
  provider = await startProvider((method, url, sim) => {
    if (method !== 'GET' || url.pathname !== '/oauth/authorize') return undefined;
    const q = url.searchParams;
    const state = q.get('state');
    // The client and its redirect URI come first (RFC 6749 §4.1.2.1: else no redirect at all).
    const app = Object.values(targetConfig(sim, url.origin).applications ?? {}).find(
      (a) => a?.clientId === q.get('client_id') && a.redirectUri === q.get('redirect_uri'),
    );
    if (!app || state === null || state.length >= minimum) return undefined;
    return () => (refused.push(state), tooWeak(url));
  });
});
afterAll(() => provider.close());

const run = (ids: readonly string[]) =>
  runAgainst(
    provider,
    { runs: '10' },
    allChecks().filter((c) => ids.includes(c.id)),
  );

describe("a provider refusing a state shorter than 8 characters (Ory Hydra's invalid_state)", () => {
  it('is never sent one: every check passes', async () => {
    minimum = 8;
    refused.length = 0;
    const { code, report, stderr } = await run(CHECKS);
    const why = explain(report, stderr);
    expect(refused, why).toEqual([]);
    expect(rulesWith(report, 'failed', 'warned', 'errored'), why).toEqual([]);
    expect(code, why).toBe(0);
  }, 60_000);

  it('refusing a state of 24 characters fails GRANT-AUTHORIZE-PARAMS alone, the rule that says state is taken', async () => {
    minimum = 64;
    refused.length = 0;
    const { code, report, stderr } = await run(['grants.state-unchanged']);
    const why = explain(report, stderr);
    expect(refused.length, why).toBeGreaterThan(0);
    // The refusal is the cause; the state its error redirect leaves out is GRANT-AUTHORIZE-ERROR-PARAMS's, not this check's.
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['GRANT-AUTHORIZE-PARAMS']);
    expect(code, why).toBe(1);
  }, 60_000);
});
