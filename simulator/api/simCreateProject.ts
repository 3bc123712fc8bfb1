/**
 * POST /-/simulator/projects {path, name?}: a project at any namespaced path (missing groups are
 * created), so the encoding checks can use arbitrary names. 201 when created, 200 when it exists.
 */
import { apiError, json } from '../http.js';
import { dataset } from '../data/index.js';
import type { Handler } from '../types.js';
import { readParams, str } from './params.js';
import { renderProject } from './render.js';

export const simCreateProject: Handler = async (ctx) => {
  const params = await readParams(ctx);
  const path = str(params, 'path');
  const name = str(params, 'name');
  if (!path) return apiError(400, 'path is missing');
  const result = dataset(ctx.sim).catalog.create(path, name);
  if ('error' in result) return apiError(400, result.error);
  return json(result.created ? 201 : 200, renderProject(ctx, result.project));
};
