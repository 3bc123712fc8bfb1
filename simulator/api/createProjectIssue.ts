/**
 * POST /api/v4/projects/:id/issues. Parameters from the query, a form or a JSON body alike:
 * `labels[]=a&labels[]=b`, `labels=a,b` or `"labels": ["a","b"]`; `confidential` only true/false.
 */
import { firstProblem, full, tooLong, tooMany } from '../bounds.js';
import { apiError, json } from '../http.js';
import { dataset } from '../data/index.js';
import { IDS } from '../data/sizes.js';
import { API, endpoint } from './endpoint.js';
import { findProject } from './lookup.js';
import { bool, list, readParams, str } from './params.js';
import { renderIssue } from './render.js';

export const createProjectIssue = endpoint(API, async (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  const params = await readParams(ctx);
  const title = str(params, 'title');
  if (!title || !title.trim()) return apiError(400, 'title is missing');
  const description = str(params, 'description') ?? '';
  const labels = list(params, 'labels') ?? [];
  const data = dataset(ctx.sim);
  const created = data.createdIssues.get(project.id) ?? [];
  let held = 0;
  for (const issues of data.createdIssues.values()) held += issues.length;
  const refused = firstProblem(
    tooLong('title', title, 'nameMaxLength'),
    tooLong('description', description, 'descriptionMaxLength'),
    tooMany('labels', labels, 'issueLabelsMax'),
    ...labels.map((label) => tooLong('label', label, 'nameMaxLength')),
    full('issues created in a project', created.length, 'createdIssuesPerProjectMax'),
    full('created issues', held, 'createdIssuesMax'),
  );
  if (refused) return apiError(400, refused);
  const iid = project.sizes.issues + created.length + 1;
  const issue = {
    id: project.id * IDS.stride + iid,
    iid,
    projectId: project.id,
    title,
    description,
    state: 'opened' as const,
    labels,
    authorId: caller!.user.id,
    confidential: bool(params, 'confidential') ?? false,
    discussionLocked: null,
    createdAt: ctx.sim.clock.now(),
  };
  created.push(issue);
  data.createdIssues.set(project.id, created);
  return json(201, renderIssue(ctx, project, issue));
});
