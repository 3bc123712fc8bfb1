/**
 * Scopes and authentication of the REST API: which token presentations work, what a token of a
 * narrow scope may and may not do, and that missing, bad and revoked tokens are refused.
 */
import * as fc from 'fast-check';
import { openapi, type RuleId } from '../../spec/index.js';
import type { Check, CheckContext, HttpResponse } from '../types.js';
import { jsonObject, ownProject, projectPath, reachProject } from '../shared/api.js';
import { acceptingOracle, heldScopes } from '../shared/oauth.js';
import { CURRENT_USER_PATH, REST_TOKENS_REPORTER, expectRestTakesTokens } from '../shared/rest-tokens.js';
import { hasBearerChallenge, namesError } from '../shared/challenge.js';
import { gitChecks } from './git.js';
import { GENERATED } from '../shared/generated.js';

/** A read-only endpoint that needs the `api` scope (a `read_user` token must not list projects). */
const NEEDS_API = '/api/v4/projects';

/** The three ways the source names to present a token to the REST API. */
type Presentation = 'bearer' | 'query' | 'private-token';

function present(t: CheckContext, path: string, token: string, via: Presentation): Promise<HttpResponse> {
  if (via === 'bearer') return t.http.get(path, { bearer: token });
  if (via === 'query') return t.http.get(path, { query: { access_token: token } });
  return t.http.get(path, { headers: { 'PRIVATE-TOKEN': token } });
}

/**
 * The token worked on the current-user endpoint: 200 with a JSON object. The source shows no
 * field of that answer ("Response fields: not shown"), so none is demanded.
 */
function expectUser(t: CheckContext, res: HttpResponse, what: string): void {
  t.expect(res.status === 200, `${what}: ${CURRENT_USER_PATH} answered ${res.status}, expected 200`, {
    status: res.status,
  });
  t.expect(jsonObject(res), `${what}: ${CURRENT_USER_PATH} must answer the user as a JSON object`, {
    status: res.status,
    contentType: res.headers.get('content-type'),
  });
}

/** Where a check only leans on a working token, its failing is not this check's to judge. */
async function tokenWorks(t: CheckContext, token: string, what: string): Promise<void> {
  const res = await t.http.get(CURRENT_USER_PATH, { bearer: token });
  await expectRestTakesTokens(t, res);
  if (res.status !== 200 || !jsonObject(res))
    t.harness(`${what}: ${CURRENT_USER_PATH} answered ${res.status} to it, so what follows would prove nothing`);
}

/** A refusal: a 4xx (a 5xx is a crash, a 2xx or 3xx no refusal at all). */
const refused = (res: HttpResponse) => res.status >= 400 && res.status < 500;

function errorCode(res: HttpResponse): unknown {
  return jsonObject(res)?.error;
}

const readUserReadsCurrentUser: Check = {
  id: 'scopes.read-user-reads-current-user',
  suite: 'scopes',
  needs: ['restApi'],
  title: 'a read_user token reads /api/v4/user',
  rules: ['SCOPE-READ-USER'],
  async run(t: CheckContext) {
    const token = await t.oauth.token('limited', { scope: 'read_user' });
    const res = await t.http.get(CURRENT_USER_PATH, { bearer: token.access_token });
    await expectRestTakesTokens(t, res);
    expectUser(t, res, 'read_user token');
  },
};

/**
 * A read_user token on an endpoint that needs api, in both access-token presentations, each
 * answer judged as it comes (`diff` ties an assertion to the answer last received).
 */
async function refusedForScope(t: CheckContext, judge: (via: Presentation, res: HttpResponse) => void): Promise<void> {
  // A refusal counts only where the same endpoint serves a token that has the scope.
  const api = (await t.oauth.token('confidential', { scope: 'api' })).access_token;
  const served = await t.http.get(NEEDS_API, { bearer: api });
  await expectRestTakesTokens(t, served);
  if (served.status !== 200)
    t.harness(
      `${NEEDS_API} answered ${served.status} to an api token, so its refusal of a narrower one would prove nothing`,
    );
  const token = await t.oauth.token('limited', { scope: 'read_user' });
  for (const via of ['bearer', 'query'] as const) judge(via, await present(t, NEEDS_API, token.access_token, via));
  // The refusal is about scope, not the token: the same token still reads the current user.
  await tokenWorks(t, token.access_token, 'the read_user token after the refusal');
}

const readUserRefusedWhereApiNeeded: Check = {
  id: 'scopes.read-user-refused-where-api-needed',
  suite: 'scopes',
  needs: ['restApi'],
  title: 'a read_user token is refused where api is needed',
  rules: ['SCOPE-MISSING-FAILS'],
  async run(t: CheckContext) {
    await refusedForScope(t, (via, res) => {
      // "must fail": any refusal; that it is 403 insufficient_scope is SCOPE-INSUFFICIENT-403's.
      t.soft(refused(res), `a read_user token presented as ${via} on ${NEEDS_API} must be refused, got ${res.status}`, {
        presentation: via,
        path: NEEDS_API,
        status: res.status,
      });
    });
  },
};

const insufficientScope403: Check = {
  id: 'scopes.insufficient-scope-403',
  suite: 'scopes',
  needs: ['restApi'],
  title: 'the refusal of a token without the needed scope is 403 insufficient_scope',
  rules: ['SCOPE-INSUFFICIENT-403'],
  async run(t: CheckContext) {
    await refusedForScope(t, (via, res) => {
      const challenge = res.headers.get('www-authenticate') ?? '';
      const details = {
        presentation: via,
        path: NEEDS_API,
        status: res.status,
        error: errorCode(res) ?? null,
        wwwAuthenticate: challenge || null,
      };
      t.soft(
        res.status === 403,
        `a read_user token presented as ${via} on ${NEEDS_API} must be refused with 403, got ${res.status}`,
        details,
      );
      // RFC 6750 §3: the challenge is a MUST for a token that does not enable access, and its
      // error attribute names the code; the same code in a JSON body is the real service's habit.
      t.soft(
        hasBearerChallenge(res),
        `the 403 for a read_user token presented as ${via} must carry a WWW-Authenticate Bearer challenge`,
        details,
      );
      t.soft(
        namesError(res, 'insufficient_scope'),
        `the 403 for a read_user token presented as ${via} must name the error insufficient_scope (WWW-Authenticate or JSON body)`,
        details,
      );
    });
  },
};

/** One check per presentation, so a missing personal access token skips only its own. */
function presentationCheck(via: Presentation, rule: RuleId): Check {
  return {
    id: `scopes.presentation-${via}`,
    suite: 'scopes',
    title: `a token presented as ${via === 'bearer' ? 'Authorization Bearer header' : via === 'query' ? 'access_token query parameter' : 'PRIVATE-TOKEN header'} authenticates`,
    rules: [rule],
    needs: via === 'private-token' ? ['pat', 'restApi'] : ['restApi'],
    async run(t: CheckContext) {
      let token: string;
      if (via === 'private-token') {
        if (!t.config.personalAccessToken) t.skip('no personal access token configured');
        token = t.config.personalAccessToken;
      } else {
        token = (await t.oauth.token('confidential', { scope: 'api' })).access_token;
      }
      const res = await present(t, CURRENT_USER_PATH, token, via);
      // Refused however presented: the flows' tokens do not work on the API at all, one cause.
      if (via !== 'private-token')
        await expectRestTakesTokens(t, res, `scopes.presentation-${via}` === REST_TOKENS_REPORTER);
      expectUser(t, res, `token presented as ${via}`);
      // The presentation is what authenticates: the same request without it is refused (how, 401
      // exactly, is AUTH-REQUIRED-401's: scopes.missing-token-401).
      const bare = await t.http.get(CURRENT_USER_PATH);
      t.expect(refused(bare), `${CURRENT_USER_PATH} without the token must be refused, got ${bare.status}`, {
        status: bare.status,
      });
    },
  };
}

/** Token-shaped strings no provider issued: the 20-character PAT shape and longer random ones. */
const bogusToken = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_'),
  minLength: 1,
  maxLength: 64,
});

/** An endpoint that needs authentication, and one that also answers anonymous requests. */
const PROBED = [CURRENT_USER_PATH, NEEDS_API];

const missingToken: Check = {
  id: 'scopes.missing-token-401',
  suite: 'scopes',
  needs: ['restApi'],
  title: 'an endpoint that needs authentication answers 401 to a request without a token',
  rules: ['AUTH-REQUIRED-401'],
  async run(t: CheckContext) {
    const none = await t.http.get(CURRENT_USER_PATH);
    t.expect(none.status === 401, `${CURRENT_USER_PATH} without a token must answer 401, got ${none.status}`, {
      status: none.status,
    });
  },
};

/**
 * A refused bearer token (header or query) carries a Bearer challenge (RFC 6750 §3, the parenthesis
 * of AUTH-INVALID-TOKEN-401); a PRIVATE-TOKEN is no bearer scheme.
 */
function expectBearerChallenge(t: CheckContext, res: HttpResponse, via: Presentation, what: string): void {
  if (via === 'private-token' || res.status !== 401) return;
  t.soft(hasBearerChallenge(res), `${what}: the 401 must carry WWW-Authenticate: Bearer`, {
    presentation: via,
    status: res.status,
    rules: ['AUTH-INVALID-TOKEN-401'],
  });
}

const badToken: Check = {
  id: 'scopes.bad-token-401',
  suite: 'scopes',
  needs: ['restApi'],
  title: 'a token the provider never issued gets 401, on private and public endpoints, in every presentation',
  rules: ['AUTH-INVALID-TOKEN-401'],
  async run(t: CheckContext) {
    await t.property(
      bogusToken,
      fc.constantFrom<Presentation>('bearer', 'query', 'private-token'),
      fc.constantFrom(...PROBED),
      async (token, via, path) => {
        const res = await present(t, path, `glpat-conformance-${token}`, via);
        t.expect(
          res.status === 401,
          `a token the provider never issued, presented as ${via} to ${path}, must get 401, got ${res.status}`,
          {
            presentation: via,
            path,
            status: res.status,
          },
        );
        expectBearerChallenge(t, res, via, `a token the provider never issued, presented as ${via} to ${path}`);
      },
    );
  },
};

const revokedToken: Check = {
  id: 'scopes.revoked-token-401',
  suite: 'scopes',
  needs: ['restApi'],
  title: 'a revoked access token gets 401 on private and public endpoints, in every presentation',
  rules: ['AUTH-INVALID-TOKEN-401'],
  async run(t: CheckContext) {
    const token = await t.oauth.token('confidential', { scope: 'api' });
    // A 401 after revocation says something only of a token that worked and was revoked; a
    // revocation that fails is the tokens suite's to judge (REV-*), not this rule's.
    await tokenWorks(t, token.access_token, 'a fresh api token');
    const revoked = await t.oauth.revoke(token.access_token, 'confidential');
    if (revoked.status < 200 || revoked.status >= 300)
      t.skip(
        `revoking the access token answered ${revoked.status}: nothing was revoked (the REV-* rules, judged by tokens.revoke-access-token)`,
      );
    // Answered 200 and still working elsewhere (Auth0 revokes refresh tokens only): not revoked.
    const alive = await acceptingOracle(t, token.access_token, { restApi: true });
    if (alive)
      t.skip(
        `the revocation did not take: ${alive} still accepts the token (REV-REVOKES-TOKEN, judged by tokens.revoke-access-token)`,
      );
    for (const path of PROBED) {
      for (const via of ['bearer', 'query'] as const) {
        const res = await present(t, path, token.access_token, via);
        t.expect(
          res.status === 401,
          `a revoked access token presented as ${via} to ${path} must get 401, got ${res.status}`,
          { presentation: via, path, status: res.status },
        );
        expectBearerChallenge(t, res, via, `a revoked access token presented as ${via} to ${path}`);
      }
    }
  },
};

/** The scopes the source names, from the oauth2 security scheme of spec/openapi.yaml. */
function namedScopes(): string[] {
  const schemes = openapi().components?.securitySchemes as
    Record<string, { flows?: { authorizationCode?: { scopes?: Record<string, string> } } }> | undefined;
  return Object.keys(schemes?.oauth2?.flows?.authorizationCode?.scopes ?? {});
}

const namedScopesKnown: Check = {
  id: 'scopes.named-scopes-granted',
  suite: 'scopes',
  title: 'every scope the source names can be requested and is granted to an application registered for it',
  rules: ['SCOPE-NAMES'],
  async run(t: CheckContext) {
    const app = t.oauth.app('confidential');
    const testable = namedScopes().filter((scope) => app.scopes.includes(scope));
    if (testable.length === 0) t.skip('the confidential application is registered for none of the named scopes');
    for (const scope of testable) {
      const token = await t.oauth.token('confidential', { scope });
      // Token info where it answers, else the token response (RFC 6749 §5.1), as the OAuth suites read it.
      const granted = await heldScopes(t, token, [scope]);
      t.soft(granted.includes(scope), `a token requested with scope ${scope} was not granted it`, {
        scope,
        granted,
        rules: ['SCOPE-NAMES'],
      });
    }
  },
};

/** A project of the harness's own on the simulator, for the write half of the api scope. */
const SCRATCH = `${GENERATED}scopes/api-write`;

const apiFullAccess: Check = {
  id: 'scopes.api-full-access',
  suite: 'scopes',
  needs: ['restApi'],
  title: 'an api token reads the user, projects and issues, and (on the simulator) writes',
  rules: ['SCOPE-API-FULL-ACCESS'],
  async run(t: CheckContext) {
    const token = (await t.oauth.token('confidential', { scope: 'api' })).access_token;
    const project = t.config.fixtures?.project;
    const reads = [
      CURRENT_USER_PATH,
      NEEDS_API,
      // Reached first: a project refused by its encoded path is ENC-NAMESPACED-PATH's, not this rule's.
      ...(project ? [`${projectPath(await reachProject(t, project))}/issues`] : []),
    ];
    for (const path of reads) {
      const res = await t.http.get(path, { bearer: token });
      await expectRestTakesTokens(t, res);
      t.expect(res.status === 200, `an api token reading ${path} answered ${res.status}, expected 200`, {
        path,
        status: res.status,
      });
    }
    if (!t.caps.control || !t.caps.writable) return;
    await ownProject(t, SCRATCH);
    const write = await t.http.post(`${projectPath(await reachProject(t, SCRATCH))}/issues`, {
      bearer: token,
      json: { title: 'written with an api token' },
    });
    // Written is any 2xx; 201 exactly is ENC-CREATED-201's (encoding suite).
    t.expect(
      write.status >= 200 && write.status < 300,
      `an api token creating an issue answered ${write.status}, expected a 2xx`,
      { status: write.status },
    );
  },
};

export const checks: Check[] = [
  namedScopesKnown,
  apiFullAccess,
  readUserReadsCurrentUser,
  readUserRefusedWhereApiNeeded,
  presentationCheck('bearer', 'AUTH-BEARER-HEADER'),
  presentationCheck('query', 'AUTH-ACCESS-TOKEN-QUERY'),
  presentationCheck('private-token', 'AUTH-PRIVATE-TOKEN'),
  insufficientScope403,
  missingToken,
  badToken,
  revokedToken,
  ...gitChecks,
];
