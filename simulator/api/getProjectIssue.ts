/** GET /api/v4/projects/:id/issues/:issue_iid: the per-project iid; a global id there is a 404. */
import { apiError, json } from '../http.js';
import { dataset } from '../data/index.js';
import { IDS } from '../data/sizes.js';
import { endpoint, PUBLIC_READ } from './endpoint.js';
import { findProject } from './lookup.js';
import { renderIssue } from './render.js';

export const getProjectIssue = endpoint(PUBLIC_READ, (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  const issues = dataset(ctx.sim).issuesOf(project);
  if (!/^\d+$/.test(ctx.params.issue_iid)) return apiError(404, '404 Issue Not Found');
  let iid = Number(ctx.params.issue_iid);
  // fault: the global id is accepted where the iid belongs
  if (ctx.sim.fault('iid-accepts-global-id') && Math.floor(iid / IDS.stride) === project.id)
    iid -= project.id * IDS.stride;
  if (iid < 1 || iid > issues.length) return apiError(404, '404 Issue Not Found');
  return json(200, renderIssue(ctx, project, issues.at(iid - 1)));
});
