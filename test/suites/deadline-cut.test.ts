/**
 * A request the run's --deadline cuts short inside a helper that reads any error as "no answer"
 * is no answer of the target's: the check stops as past the deadline, never failed or skipped on
 * what the helper made of it. Here the oracles' question whether the REST API refuses every OAuth
 * token (restRefusesTokens, asked after GET /api/v4/user refused the token) is cut at the
 * deadline as its code flow begins: before, that read as "the API takes tokens", so the refusal
 * was judged and the check failed (here T-MUST, as the check names it); now the check ends as the run reaching its
 * --deadline. The cut is made as the HTTP target makes it (suites/target/http.ts): at the
 * deadline, a TransportError coded 'deadline', its timer firing just before the check's own.
 */
import { describe, expect, it } from 'vitest';
import { expectAccessAlive } from '../../suites/shared/oauth.js';
import { DEADLINE_REACHED, openSession } from '../../suites/runner/session.js';
import { TransportError } from '../../suites/target/types.js';
import { RULES, check, fakeRules, fakeTarget } from './fakes.js';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('a request cut by --deadline inside a helper that swallows errors', () => {
  it("stops the check as past the deadline: not failed on the helper's reading of it", async () => {
    // Room for the start-up's questions on a loaded machine: they must be answered before it.
    const deadline = Date.now() + 2_500;
    // Armed once the check runs: the start-up's own probes are answered as a provider would.
    let armed = false;
    const target = fakeTarget(
      async (r) => {
        const url = new URL(r.url);
        if (url.pathname === '/api/v4/user')
          return r.headers.get('private-token') ? json(200, { id: 1 }) : json(401, { message: '401 Unauthorized' });
        if (url.pathname === '/oauth/authorize' && armed) {
          // Its timer and the check's are both set to the deadline; this one fires first (rounded a
          // millisecond or two earlier), else the check's own timer ends it and nothing is misread.
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now() - 2)));
          throw new TransportError("GET /oauth/authorize: no answer before the run's --deadline", 'deadline');
        }
        // The authorization and token endpoints are there; no other oracle (token info, userinfo) is.
        if (['/oauth/authorize', '/oauth/token'].includes(url.pathname)) return json(400, { error: 'invalid_request' });
        return new Response('{}', { status: 404 });
      },
      {
        personalAccessToken: 'glpat-fake-token-for-the-start-up',
        user: { username: 'root', password: 'secret-password' },
        applications: {
          confidential: {
            clientId: 'conf-app',
            clientSecret: 'conf-secret-value',
            redirectUri: 'http://client.test/cb',
            scopes: ['api'],
          },
        },
      },
    );
    const session = await openSession({ target, seed: 7, numRuns: 1, rules: RULES, deadline });
    try {
      expect(session.caps.restApi, 'the start-up ended before the deadline').toBe(true);
      const alive = check('alive', ['T-MUST'], async (t) => {
        armed = true;
        await expectAccessAlive(t, 'a-token-the-api-refuses', 'a fresh access token', fakeRules('T-MUST'));
      });
      const result = await session.runCheck(alive);
      expect([result.status, result.message]).toEqual(['skipped', DEADLINE_REACHED]);
    } finally {
      await session.close();
    }
  });
});
