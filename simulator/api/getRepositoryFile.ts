/** GET /api/v4/projects/:id/repository/files/:file_path?ref=...: the file path arrives %2F-encoded. */
import { apiError, json } from '../http.js';
import { dataset } from '../data/index.js';
import { blobId } from '../data/tree.js';
import { endpoint, PUBLIC_READ } from './endpoint.js';
import { findProject } from './lookup.js';
import { parsePairs, queryPairs, str } from './params.js';
import { commitId, filesOf, refExists } from './repository.js';

export const getRepositoryFile = endpoint(PUBLIC_READ, (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  const ref = str(parsePairs(queryPairs(ctx)), 'ref');
  if (!ref) return apiError(400, 'ref is missing');
  if (!refExists(ref)) return apiError(404, '404 Commit Not Found');
  const file = filesOf(ctx, project).find((f) => f.path === ctx.params.file_path);
  if (!file) return apiError(404, '404 File Not Found');
  const content = Buffer.from(file.content);
  return json(200, {
    file_name: file.path.slice(file.path.lastIndexOf('/') + 1),
    file_path: file.path,
    size: content.length,
    encoding: 'base64',
    content: content.toString('base64'),
    ref,
    blob_id: blobId(dataset(ctx.sim).seed, project.id, file.path),
    commit_id: commitId(ctx, project, ref),
    last_commit_id: commitId(ctx, project, ref),
  });
});
