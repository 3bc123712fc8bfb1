/** GET /api/v4/projects/:id/repository/branches/:branch (`feature/x` arrives as `feature%2Fx`). */
import { apiError, json } from '../http.js';
import { BRANCHES } from '../data/tree.js';
import { endpoint, PUBLIC_READ } from './endpoint.js';
import { findProject } from './lookup.js';
import { commitId } from './repository.js';

export const getRepositoryBranch = endpoint(PUBLIC_READ, (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  const name = ctx.params.branch;
  if (!BRANCHES.includes(name)) return apiError(404, '404 Branch Not Found');
  return json(200, {
    name,
    merged: false,
    protected: name === 'main',
    default: name === 'main',
    developers_can_push: false,
    developers_can_merge: false,
    can_push: false,
    commit: { id: commitId(ctx, project, name), title: 'Initial commit' },
    web_url: `${ctx.origin}/${project.pathWithNamespace}/-/tree/${name.split('/').map(encodeURIComponent).join('/')}`,
  });
});
