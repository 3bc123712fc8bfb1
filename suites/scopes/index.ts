/**
 * Scopes and authentication of the REST API: which token presentations work, what a token of a
 * narrow scope may and may not do, and that missing, bad and revoked tokens are refused.
 */
import * as fc from 'fast-check';
import type { Check, CheckContext, HttpResponse } from '../types.js';

const CURRENT_USER = '/api/v4/user';
/** A read-only endpoint that needs the `api` scope (a `read_user` token must not list projects). */
const NEEDS_API = '/api/v4/projects';

/** The three ways the source names to present a token to the REST API. */
type Presentation = 'bearer' | 'query' | 'private-token';

function present(t: CheckContext, path: string, token: string, via: Presentation): Promise<HttpResponse> {
  if (via === 'bearer') return t.http.get(path, { bearer: token });
  if (via === 'query') return t.http.get(path, { query: { access_token: token } });
  return t.http.get(path, { headers: { 'PRIVATE-TOKEN': token } });
}

function userId(t: CheckContext, res: HttpResponse, what: string): unknown {
  t.expect(res.status === 200, `${what}: ${CURRENT_USER} answered ${res.status}, expected 200`, { status: res.status });
  const body = res.json<Record<string, unknown>>();
  t.expect(body && typeof body === 'object' && 'id' in body, `${what}: ${CURRENT_USER} must answer the user object with an id`, { status: res.status });
  return body.id;
}

function errorCode(res: HttpResponse): unknown {
  try {
    return (JSON.parse(res.text) as Record<string, unknown>)?.error;
  } catch {
    return undefined;
  }
}

const readUserReadsCurrentUser: Check = {
  id: 'scopes.read-user-reads-current-user',
  suite: 'scopes',
  title: 'a read_user token reads /api/v4/user',
  rules: ['SCOPE-READ-USER-CURRENT-USER', 'AUTH-TOKEN-VERIFY-USER'],
  async run(t: CheckContext) {
    if (!t.config.applications?.limited) t.skip('the target config names no limited (read_user) application');
    const token = await t.oauth.token('limited', { scope: 'read_user' });
    userId(t, await t.http.get(CURRENT_USER, { bearer: token.access_token }), 'read_user token');
  },
};

const readUserRefusedWhereApiNeeded: Check = {
  id: 'scopes.read-user-refused-where-api-needed',
  suite: 'scopes',
  title: 'a read_user token is refused with 403 insufficient_scope where api is needed',
  rules: ['SCOPE-INSUFFICIENT'],
  async run(t: CheckContext) {
    if (!t.config.applications?.limited) t.skip('the target config names no limited (read_user) application');
    const token = await t.oauth.token('limited', { scope: 'read_user' });
    for (const via of ['bearer', 'query'] as const) {
      const res = await present(t, NEEDS_API, token.access_token, via);
      const details = { presentation: via, path: NEEDS_API, status: res.status, error: errorCode(res) ?? null };
      t.expect(res.status === 403, `a read_user token on ${NEEDS_API} must be refused with 403, got ${res.status}`, details);
      t.expect(errorCode(res) === 'insufficient_scope', `the 403 for a read_user token must carry error insufficient_scope`, details);
    }
    // The refusal is about scope, not the token: the same token still reads the current user.
    userId(t, await t.http.get(CURRENT_USER, { bearer: token.access_token }), 'read_user token after the refusal');
  },
};

/** One check per presentation, so a missing personal access token skips only its own. */
function presentationCheck(via: Presentation, rule: string): Check {
  return {
    id: `scopes.presentation-${via}`,
    suite: 'scopes',
    title: `a token presented as ${via === 'bearer' ? 'Authorization: Bearer' : via === 'query' ? 'access_token query parameter' : 'PRIVATE-TOKEN header'} authenticates`,
    rules: [rule],
    needs: via === 'private-token' ? ['pat'] : undefined,
    async run(t: CheckContext) {
      let token: string;
      if (via === 'private-token') {
        if (!t.config.personalAccessToken) t.skip('no personal access token configured');
        token = t.config.personalAccessToken;
      } else {
        if (!t.config.applications?.confidential) t.skip('the target config names no confidential application');
        token = (await t.oauth.token('confidential', { scope: 'api' })).access_token;
      }
      userId(t, await present(t, CURRENT_USER, token, via), `token presented as ${via}`);
      // The presentation is what authenticates: the same request without it is refused.
      const bare = await t.http.get(CURRENT_USER);
      t.expect(bare.status === 401, `${CURRENT_USER} without the token must answer 401, got ${bare.status}`, { status: bare.status });
    },
  };
}

/** Token-shaped strings no provider issued: the 20-character PAT shape and longer random ones. */
const bogusToken = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_'), minLength: 1, maxLength: 64 });

const missingOrBadToken: Check = {
  id: 'scopes.missing-or-bad-token-401',
  suite: 'scopes',
  title: 'no token or a token the provider never issued gets 401',
  rules: ['AUTH-UNAUTHENTICATED-401'],
  async run(t: CheckContext) {
    const none = await t.http.get(CURRENT_USER);
    t.expect(none.status === 401, `${CURRENT_USER} without a token must answer 401, got ${none.status}`, { status: none.status });
    await t.property(bogusToken, fc.constantFrom<Presentation>('bearer', 'query', 'private-token'), async (token, via) => {
      const res = await present(t, CURRENT_USER, `glpat-conformance-${token}`, via);
      t.expect(res.status === 401, `a token the provider never issued, presented as ${via}, must get 401, got ${res.status}`, {
        presentation: via,
        status: res.status,
      });
    });
  },
};

const revokedToken: Check = {
  id: 'scopes.revoked-token-401',
  suite: 'scopes',
  title: 'a revoked access token gets 401 on the REST API in every presentation',
  rules: ['AUTH-REVOKED-401'],
  async run(t: CheckContext) {
    if (!t.config.applications?.confidential) t.skip('the target config names no confidential application');
    const token = await t.oauth.token('confidential', { scope: 'api' });
    userId(t, await t.http.get(CURRENT_USER, { bearer: token.access_token }), 'fresh access token');
    const revoked = await t.oauth.revoke(token.access_token, 'confidential');
    t.expect(revoked.status === 200, `revoking the access token answered ${revoked.status}, expected 200`, { status: revoked.status });
    for (const via of ['bearer', 'query'] as const) {
      const res = await present(t, CURRENT_USER, token.access_token, via);
      t.expect(res.status === 401, `a revoked access token presented as ${via} must get 401, got ${res.status}`, { presentation: via, status: res.status });
    }
  },
};

export const checks: Check[] = [
  readUserReadsCurrentUser,
  readUserRefusedWhereApiNeeded,
  presentationCheck('bearer', 'AUTH-BEARER-HEADER'),
  presentationCheck('query', 'AUTH-ACCESS-TOKEN-QUERY'),
  presentationCheck('private-token', 'AUTH-PRIVATE-TOKEN'),
  missingOrBadToken,
  revokedToken,
];
