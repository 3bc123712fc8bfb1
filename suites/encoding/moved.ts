/**
 * A project whose path changed still answers at its old path. The source says the service "may
 * answer with a redirect notice" whose Location the client must use: a redirect that leads to the
 * project, or the project served in place, both conform (ENC-MOVED-REDIRECT); that it is a
 * redirect, as the real service answers, is ENC-MOVED-ANSWERS-REDIRECT (should).
 */
import { apiHeaders, jsonObject, jsonValue, projectPath, reachProject } from '../shared/api.js';
import { sameProject } from '../shared/identity.js';
import type { Check, CheckContext, HttpResponse } from '../types.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export const movedRedirect: Check = {
  id: 'encoding.moved-path-redirect',
  suite: 'encoding',
  needs: ['restApi'],
  title:
    'the old path of a moved project answers a redirect whose Location leads to the project (or the project itself)',
  rules: ['ENC-MOVED-REDIRECT', 'ENC-MOVED-ANSWERS-REDIRECT'],
  async run(t: CheckContext) {
    if (!t.inForce('ENC-MOVED-REDIRECT')) t.skip(`ENC-MOVED-REDIRECT is not in force at release ${t.release}`);
    const moved = t.config.fixtures?.movedProject;
    if (!moved) t.skip('target config names no fixtures.movedProject');
    const headers = await apiHeaders(t);
    // Where the new path itself is refused, the redirect has nowhere to lead: that is not this rule's.
    await reachProject(t, moved.newPath);
    const newId = jsonObject(await t.http.get(projectPath(moved.newPath), { headers }))?.id;
    for (const suffix of ['', '/issues']) {
      const old = `${projectPath(moved.oldPath)}${suffix}`;
      const res = await t.http.get(old, { headers });
      const redirected = REDIRECTS.has(res.status);
      t.expect(
        redirected || res.status === 200,
        `GET ${old} (a moved path) answered ${res.status}, expected a redirect to the project (or the project)`,
        { path: old, status: res.status, rules: ['ENC-MOVED-REDIRECT'] },
      );
      t.soft(
        redirected,
        `GET ${old} (a moved path) served the project in place (${res.status}) instead of a redirect`,
        {
          path: old,
          status: res.status,
          rules: ['ENC-MOVED-ANSWERS-REDIRECT'],
        },
      );
      let answer: HttpResponse = res;
      let location: string | null = null;
      if (redirected) {
        location = res.headers.get('location');
        t.expect(location, `the redirect from ${old} carries no Location header`, {
          path: old,
          status: res.status,
          rules: ['ENC-MOVED-REDIRECT'],
        });
        // A Location that is no URL reference is a broken redirect: the target's failure, not a crash of ours.
        t.expect(URL.canParse(location, res.url), `the Location of ${old} is not a URL: ${location.slice(0, 200)}`, {
          path: old,
          status: res.status,
          rules: ['ENC-MOVED-REDIRECT'],
        });
        // Location may be relative (RFC 9110 §10.2.2): resolve it against the request, then use it as given.
        location = new URL(location, res.url).href;
        answer = await t.http.follow(location, {
          headers,
          leaving: { what: `Location of ${old}`, rules: ['ENC-MOVED-REDIRECT'] },
        });
        t.expect(answer.status === 200, `following Location of ${old} answered ${answer.status}, expected 200`, {
          location,
          status: answer.status,
          rules: ['ENC-MOVED-REDIRECT'],
        });
      }
      const body = suffix === '' ? jsonObject(answer) : undefined;
      t.expect(
        // Which project, where the answer tells: path_with_namespace or id (neither is a field the source shows).
        suffix === ''
          ? !!body && sameProject(body, { path: moved.newPath, id: newId }) !== false
          : Array.isArray(jsonValue(answer)),
        suffix === ''
          ? `${redirected ? `Location of ${old}` : old} leads to another project than ${moved.newPath}`
          : `${redirected ? `Location of ${old}` : old} does not answer the project's issues (a JSON array)`,
        { location, pathWithNamespace: body?.path_with_namespace ?? null, rules: ['ENC-MOVED-REDIRECT'] },
      );
    }
  },
};
