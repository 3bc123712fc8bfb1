/** A project whose path changed answers its old path with a redirect the client must follow. */
import { apiHeaders, jsonObject, projectPath } from '../shared/api.js';
import type { Check, CheckContext } from '../types.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export const movedRedirect: Check = {
  id: 'encoding.moved-path-redirect',
  suite: 'encoding',
  title: 'the old path of a moved project answers a redirect whose Location leads to the project',
  rules: ['ENC-MOVED-REDIRECT'],
  async run(t: CheckContext) {
    if (!t.inForce('ENC-MOVED-REDIRECT')) t.skip(`ENC-MOVED-REDIRECT is not in force at release ${t.release}`);
    const moved = t.config.fixtures?.movedProject;
    if (!moved) t.skip('target config names no fixtures.movedProject');
    const headers = await apiHeaders(t);
    for (const suffix of ['', '/issues']) {
      const old = `${projectPath(moved.oldPath)}${suffix}`;
      const res = await t.http.get(old, { headers });
      t.expect(REDIRECTS.has(res.status), `GET ${old} (a moved path) answered ${res.status}, expected a redirect`, {
        path: old,
        status: res.status,
      });
      const location = res.headers.get('location');
      t.expect(location, `the redirect from ${old} carries no Location header`, { path: old, status: res.status });
      // Location may be relative (RFC 9110 §10.2.2): resolve it against the request, then use it as given.
      const target = new URL(location, res.url).href;
      const followed = await t.http.follow(target, { headers });
      t.expect(followed.status === 200, `following Location of ${old} answered ${followed.status}, expected 200`, {
        location: target,
        status: followed.status,
      });
      if (suffix === '') {
        const body = jsonObject(followed);
        t.expect(
          body?.path_with_namespace === moved.newPath,
          `Location of ${old} leads to another project than ${moved.newPath}`,
          {
            location: target,
            pathWithNamespace: body?.path_with_namespace ?? null,
          },
        );
      }
    }
  },
};
