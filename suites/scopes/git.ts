/**
 * Git over HTTPS: a token is the password (any username), and its scope decides what it may do.
 * Only the ref advertisement is requested (`info/refs`): it proves access without moving data,
 * and asking for receive-pack there pushes nothing.
 */
import * as fc from 'fast-check';
import type { Check, CheckContext, HttpResponse } from '../types.js';
import { fixtureProject } from '../shared/api.js';

type Service = 'git-upload-pack' | 'git-receive-pack';

function infoRefs(
  t: CheckContext,
  project: string,
  service: Service,
  user: string,
  password: string,
): Promise<HttpResponse> {
  const path = `/${project.split('/').map(encodeURIComponent).join('/')}.git/info/refs?service=${service}`;
  return t.http.get(path, { basic: { user, password } });
}

/** Usernames git clients send: oauth2 (recommended) or anything else without a colon. */
const username = fc.oneof(
  fc.constant('oauth2'),
  fc.string({ unit: fc.constantFrom(...'abcxyz019-_.@ '), minLength: 1, maxLength: 16 }),
);

async function token(t: CheckContext, app: 'confidential' | 'limited', scope: string): Promise<string> {
  const config = t.oauth.app(app);
  if (!config.scopes.includes(scope)) t.skip(`the ${app} application is not registered for ${scope}`);
  return (await t.oauth.token(app, { scope })).access_token;
}

/** What each repository scope is for: read_repository fetches, write_repository pushes. */
const SERVICE_OF: Array<[scope: string, service: Service, what: string]> = [
  ['read_repository', 'git-upload-pack', 'git fetch'],
  ['write_repository', 'git-receive-pack', 'git push'],
];

const gitTokenAsPassword: Check = {
  id: 'scopes.git-token-as-password',
  suite: 'scopes',
  title:
    'a read_repository token (fetch) and a write_repository token (push) are accepted as the Git over HTTPS password with any username',
  rules: ['AUTH-GIT-HTTPS-TOKEN'],
  async run(t: CheckContext) {
    const project = fixtureProject(t);
    const held = SERVICE_OF.filter(([scope]) => t.oauth.app('confidential').scopes.includes(scope));
    if (!held.length) t.skip('the confidential application holds neither read_repository nor write_repository');
    for (const [scope, service, what] of held) {
      const password = await token(t, 'confidential', scope);
      await t.property(username, async (user) => {
        const res = await infoRefs(t, project, service, user, password);
        t.expect(
          res.status === 200,
          `${what} advertisement with a ${scope} token as password (username ${JSON.stringify(user)}) answered ${res.status}, expected 200`,
          { username: user, status: res.status },
        );
        t.expect(
          // Media types compare case-insensitively (RFC 9110 §8.3.1).
          (res.headers.get('content-type') ?? '').toLowerCase().startsWith(`application/x-${service}-advertisement`),
          `the answer is not a ${service} advertisement`,
          { contentType: res.headers.get('content-type') },
        );
      });
    }
  },
};

const gitScopes: Check = {
  id: 'scopes.git-needs-repository-scope',
  suite: 'scopes',
  title: 'Git over HTTPS refuses a token without read_repository, and pushing without write_repository',
  rules: ['SCOPE-REPOSITORY-GIT'],
  async run(t: CheckContext) {
    const project = fixtureProject(t);
    // A refusal counts only where the same repository serves a token that has the scope.
    const readOnly = await token(t, 'confidential', 'read_repository');
    const served = await infoRefs(t, project, 'git-upload-pack', 'oauth2', readOnly);
    if (served.status !== 200)
      t.harness(
        `git fetch of ${project} with a read_repository token answered ${served.status}, so refusals there would prove nothing`,
      );
    const readUser = await token(t, 'limited', 'read_user');
    const fetchDenied = await infoRefs(t, project, 'git-upload-pack', 'oauth2', readUser);
    t.expect(
      fetchDenied.status === 401 || fetchDenied.status === 403,
      `git fetch with a read_user token answered ${fetchDenied.status}, expected 401 or 403`,
      { status: fetchDenied.status },
    );
    const pushDenied = await infoRefs(t, project, 'git-receive-pack', 'oauth2', readOnly);
    t.expect(
      pushDenied.status === 401 || pushDenied.status === 403,
      `git push advertisement with a read_repository token answered ${pushDenied.status}, expected 401 or 403`,
      { status: pushDenied.status },
    );
  },
};

export const gitChecks: Check[] = [gitTokenAsPassword, gitScopes];
