/** Issues carry a global id and a per-project iid; paths take the iid. */
import * as fc from 'fast-check';
import { limits } from '../../spec/index.js';
import {
  apiHeaders,
  breaking,
  expectRows,
  integerId,
  reachedFixtureProject,
  jsonObject,
  projectPath,
  type Expect,
} from '../shared/api.js';
import type { Check, CheckContext } from '../types.js';

interface IssueIds {
  id: number;
  iid: number;
}

export const iidInPath: Check = {
  id: 'encoding.issue-iid-in-path',
  suite: 'encoding',
  needs: ['restApi'],
  title: 'issues carry id and iid; /issues/:issue_iid finds the issue by iid, never by its global id',
  rules: ['ENC-IID-IN-PATH', 'ENC-ID-AND-IID'],
  async run(t: CheckContext) {
    const headers = await apiHeaders(t);
    const expectIds: Expect = breaking(t, 'ENC-ID-AND-IID');
    const expectIidPath: Expect = breaking(t, 'ENC-IID-IN-PATH');
    const base = `${projectPath(await reachedFixtureProject(t))}/issues`;
    const listing = await t.http.get(base, { headers, query: { per_page: limits().perPageMax } });
    expectIds(listing.status === 200, `the fixture project's issues answered ${listing.status}`, {
      status: listing.status,
    });
    const issues = expectRows(listing.json(), `the fixture project's issues`, expectIds);
    if (issues.length === 0) t.skip('the fixture project has no issues');
    const bad = issues.find((i) => integerId(i.id) === undefined || integerId(i.iid) === undefined);
    expectIds(!bad, 'an issue lacks an integer id or iid', { issue: bad?.id ?? null });
    const ids = issues as unknown as IssueIds[];
    for (const field of ['id', 'iid'] as const) {
      const values = ids.map((i) => i[field]);
      expectIds(new Set(values).size === values.length, `two issues of one project share an ${field}`);
    }
    await t.property(fc.constantFrom(...ids), async (issue) => {
      const byIid = jsonObject(await t.http.get(`${base}/${issue.iid}`, { headers }));
      expectIidPath(byIid?.id === issue.id, `GET /issues/${issue.iid} (its iid) did not answer issue ${issue.id}`, {
        iid: issue.iid,
        answered: byIid?.id ?? null,
      });
      if (issue.id === issue.iid) return;
      const byId = await t.http.get(`${base}/${issue.id}`, { headers });
      const answered = byId.status === 200 ? jsonObject(byId) : undefined;
      // The global id may happen to be another issue's iid; it must never find this issue.
      expectIidPath(
        byId.status === 404 || (answered?.iid === issue.id && answered?.id !== issue.id),
        `GET /issues/${issue.id} (the global id) answered ${byId.status} with issue ${answered ? String(answered.id) : '-'}: the path takes the iid`,
        {
          id: issue.id,
          iid: issue.iid,
          status: byId.status,
        },
      );
    });
  },
};
