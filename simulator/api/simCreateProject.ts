/**
 * POST /-/simulator/projects {path, name?}: a project at any namespaced path (missing groups are
 * created), so the encoding checks can use arbitrary names. 201 when created, 200 when it exists.
 */
import { apiError, json } from '../http.js';
import { dataset } from '../data/index.js';
import type { Handler } from '../types.js';
import { ParamError, readParams, str } from './params.js';
import { renderProject } from './render.js';

export const simCreateProject: Handler = async (ctx) => {
  let path: string | undefined;
  let name: string | undefined;
  try {
    const params = await readParams(ctx);
    path = str(params, 'path');
    name = str(params, 'name');
  } catch (error) {
    if (error instanceof ParamError) return apiError(400, error.message);
    throw error;
  }
  if (!path) return apiError(400, 'path is missing');
  const result = dataset(ctx.sim).catalog.create(path, name);
  if ('error' in result) return apiError(400, result.error);
  return json(result.created ? 201 : 200, renderProject(ctx, result.project));
};
